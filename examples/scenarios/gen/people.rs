//! The service's customers: tenants, the clients they call from, how those clients retry, and
//! the addresses they come from. In: the world's Rng and a tenant count. Out: [`Tenant`]s with
//! Zipf-like weights and a [`ClientKind`] each.

use super::facts::Tenant;
use super::rng::Rng;

/// How a tenant's ids look in the data (one style per world).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdStyle {
    /// `acct-4411`
    Prefixed,
    /// `58213`
    Numeric,
    /// a UUID
    Uuid,
    /// `acme-corp`
    Slug,
}

/// What a client does when a request fails: how many times it re-sends, after what delay.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetryPolicy {
    /// Attempts in all (1: never retries).
    pub attempts: u32,
    pub base_delay_ms: f64,
    pub factor: f64,
    /// Full jitter (the delay is uniform in [0, delay]) or none.
    pub jitter: bool,
    /// Re-sends 429 answers too (most only retry 5xx and timeouts).
    pub on_429: bool,
    /// Gives up after this long (a client-side timeout; 0: waits for the server).
    pub timeout_ms: i64,
}

impl RetryPolicy {
    pub const NONE: RetryPolicy = RetryPolicy {
        attempts: 1,
        base_delay_ms: 0.0,
        factor: 1.0,
        jitter: false,
        on_429: false,
        timeout_ms: 0,
    };

    /// The delay before attempt `n` (1 = the first re-send).
    pub fn delay(&self, rng: &mut Rng, n: u32) -> i64 {
        let d = self.base_delay_ms * self.factor.powi(n.saturating_sub(1) as i32);
        let d = if self.jitter { d * rng.unit() } else { d };
        d.round() as i64
    }
}

/// The kind of client a tenant's traffic comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientKind {
    Browser,
    Sdk,
    Integration,
}

/// Tenants with their weights (share of ordinary traffic), client kinds and retry policies.
pub struct People {
    pub tenants: Vec<Tenant>,
    pub weights: Vec<f64>,
    pub kinds: Vec<ClientKind>,
    pub policies: Vec<RetryPolicy>,
    /// One or two client addresses per tenant.
    pub ips: Vec<Vec<String>>,
    pub style: IdStyle,
}

const BROWSERS: [&str; 4] = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
    "Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36",
];

/// SDK user agents: (product token, whole agent).
const SDKS: [(&str, &str); 6] = [
    ("python-requests", "python-requests/2.31.0"),
    ("okhttp", "okhttp/4.12.0"),
    ("Go-http-client", "Go-http-client/1.1"),
    ("axios", "axios/1.6.8"),
    ("curl", "curl/8.5.0"),
    ("node-fetch", "node-fetch/1.0 (+https://github.com/bitinn/node-fetch)"),
];

/// Named integrations: (product token, version) -> `token/version (+https://token.example)`.
const INTEGRATIONS: [&str; 12] = [
    "acme-exporter",
    "zapier",
    "jenkins-plugin",
    "datasync",
    "reportly",
    "hookrelay",
    "ledger-bridge",
    "crm-sync",
    "backup-agent",
    "terraform-provider",
    "slack-app",
    "etl-runner",
];

const SLUG_WORDS: [&str; 24] = [
    "acme", "globex", "initech", "umbrella", "stark", "wayne", "hooli", "vandelay", "wonka",
    "tyrell", "cyberdyne", "soylent", "monarch", "nakatomi", "oscorp", "pied", "piper",
    "massive", "dynamic", "blue", "north", "river", "summit", "bright",
];

impl People {
    pub fn draw(rng: &mut Rng, n: usize) -> People {
        let style = rng.pick(&[IdStyle::Prefixed, IdStyle::Numeric, IdStyle::Uuid, IdStyle::Slug]);
        let zipf = rng.uniform(0.7, 1.3);
        let offset = rng.uniform(1.0, 8.0);
        let mut ranks: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = rng.range(0, i as i64) as usize;
            ranks.swap(i, j);
        }
        let mut out = People {
            tenants: Vec::with_capacity(n),
            weights: Vec::with_capacity(n),
            kinds: Vec::with_capacity(n),
            policies: Vec::with_capacity(n),
            ips: Vec::with_capacity(n),
            style,
        };
        let base_num = rng.range(1000, 60_000);
        let mut seen_ids = std::collections::HashSet::new();
        for (i, rank) in ranks.iter().enumerate() {
            out.weights.push(1.0 / (*rank as f64 + offset).powf(zipf));
            let n = base_num + i as i64 * rng.range(1, 3);
            let mut id = tenant_id(rng, style, n);
            if !seen_ids.insert(id.clone()) {
                id = format!("{id}-{i}");
                seen_ids.insert(id.clone());
            }
            let roll = rng.unit();
            let (kind, integration, user_agent) = if roll < 0.55 {
                (ClientKind::Browser, "browser".to_string(), rng.pick(&BROWSERS).to_string())
            } else if roll < 0.85 {
                let (tok, ua) = rng.pick(&SDKS);
                (ClientKind::Sdk, tok.to_string(), ua.to_string())
            } else {
                let tok = rng.pick(&INTEGRATIONS);
                let ua = format!(
                    "{tok}/{}.{}.{} (+https://{tok}.example)",
                    rng.range(1, 4),
                    rng.range(0, 12),
                    rng.range(0, 9)
                );
                (ClientKind::Integration, tok.to_string(), ua)
            };
            let api_key = (kind != ClientKind::Browser && rng.chance(0.7))
                .then(|| format!("sk_live_{}", rng.hex(24)));
            out.policies.push(policy(rng, kind, &integration));
            out.kinds.push(kind);
            let first = public_ip(rng);
            let ips = if rng.chance(0.3) {
                vec![first, public_ip(rng)]
            } else {
                vec![first]
            };
            out.ips.push(ips);
            out.tenants.push(Tenant {
                id,
                integration,
                user_agent,
                api_key,
            });
        }
        out
    }

    /// Makes tenant `t` a named integration's client (a scenario's culprit), keeping its id.
    pub fn make_integration(&mut self, rng: &mut Rng, t: usize, token: &str) {
        let ua = format!("{token}/{}.{}.{} (+https://{token}.example)", rng.range(1, 4), rng.range(0, 12), rng.range(0, 9));
        self.tenants[t].integration = token.to_string();
        self.tenants[t].user_agent = ua;
        self.tenants[t].api_key = Some(format!("sk_live_{}", rng.hex(24)));
        self.kinds[t] = ClientKind::Integration;
    }

    /// Index of the tenant at rank `rank` by weight (0 = the biggest).
    pub fn by_rank(&self, rank: usize) -> usize {
        let mut idx: Vec<usize> = (0..self.weights.len()).collect();
        idx.sort_by(|a, b| self.weights[*b].total_cmp(&self.weights[*a]).then(a.cmp(b)));
        idx[rank.min(idx.len() - 1)]
    }
}

fn tenant_id(rng: &mut Rng, style: IdStyle, n: i64) -> String {
    match style {
        IdStyle::Prefixed => format!("acct-{n}"),
        IdStyle::Numeric => format!("{}", n * 7 + rng.range(0, 6)),
        IdStyle::Uuid => rng.uuid(),
        IdStyle::Slug => format!(
            "{}-{}",
            rng.pick(&SLUG_WORDS),
            rng.pick(&["corp", "labs", "inc", "io", "group", "systems", "hq", "co"])
        ),
    }
}

fn policy(rng: &mut Rng, kind: ClientKind, integration: &str) -> RetryPolicy {
    match kind {
        // A person reloads the page now and then; a script does not.
        ClientKind::Browser => RetryPolicy {
            attempts: 2,
            base_delay_ms: rng.uniform(2000.0, 10_000.0),
            factor: 1.0,
            jitter: true,
            on_429: false,
            timeout_ms: 0,
        },
        ClientKind::Sdk => match integration {
            // urllib3's Retry(total=3, backoff_factor=0.5, status_forcelist=[502, 503, 504]).
            "python-requests" => RetryPolicy {
                attempts: 4,
                base_delay_ms: 500.0,
                factor: 2.0,
                jitter: false,
                on_429: false,
                timeout_ms: 0,
            },
            // okhttp re-sends once on a failed connection.
            "okhttp" => RetryPolicy {
                attempts: 2,
                base_delay_ms: 0.0,
                factor: 1.0,
                jitter: false,
                on_429: false,
                timeout_ms: 10_000,
            },
            "axios" => RetryPolicy {
                attempts: 3,
                base_delay_ms: 1000.0,
                factor: 2.0,
                jitter: true,
                on_429: true,
                timeout_ms: 0,
            },
            _ => RetryPolicy::NONE,
        },
        ClientKind::Integration => RetryPolicy {
            attempts: rng.range(3, 6) as u32,
            base_delay_ms: rng.uniform(500.0, 3000.0),
            factor: 2.0,
            jitter: rng.chance(0.5),
            on_429: true,
            timeout_ms: if rng.chance(0.5) { rng.range(20, 60) * 1000 } else { 0 },
        },
    }
}

/// A public-looking client address (never a private range: those are the fleet's).
pub fn public_ip(rng: &mut Rng) -> String {
    const FIRST: [i64; 14] = [23, 34, 37, 52, 62, 81, 89, 91, 104, 151, 176, 185, 195, 213];
    format!(
        "{}.{}.{}.{}",
        rng.pick(&FIRST),
        rng.range(0, 255),
        rng.range(0, 255),
        rng.range(1, 254)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tenant_ids_are_unique_and_weights_skewed() {
        for seed in 0..20 {
            let mut rng = Rng::new(seed);
            let p = People::draw(&mut rng, 500);
            let ids: std::collections::HashSet<_> = p.tenants.iter().map(|t| &t.id).collect();
            assert_eq!(ids.len(), 500);
            let top = p.weights[p.by_rank(0)];
            let median = p.weights[p.by_rank(250)];
            assert!(top > 5.0 * median, "seed {seed}: {top} vs {median}");
        }
    }
}
