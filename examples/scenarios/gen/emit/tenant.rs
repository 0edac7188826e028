//! Where a request carries its tenant id and its API key, and what the user must tell
//! `postmortem` to find the tenant.
//!
//! In: a drawn [`TenantPlace`] and a request; out: the request's path and query with the id
//! (and a key, where an integration sends one in the URL), the header or JSON field holding
//! it, and the `--tenant-from` rule when no default rule reads that place. The default rules
//! are the ones the product spec lists (a field named `tenant_id`, `account_id`, ...; a path
//! segment after `accounts`, `orgs`, ...), not postmortem's code.

use serde::Serialize;

use crate::gen::facts::{ReqKind, Request, World};
use crate::gen::rng::Rng;

/// Where the tenant id sits.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "in", content = "name", rename_all = "snake_case")]
pub enum TenantPlace {
    /// A path segment after this word (`/api/v1/accounts/{id}/...`).
    Path(String),
    /// A query parameter.
    Query(String),
    /// A request header (only formats that log headers).
    Header(String),
    /// A JSON field of the service's own request log.
    Field(String),
}

/// Path words the spec's default rule reads, and some it does not.
const PATH_DEFAULT: [&str; 5] = ["accounts", "orgs", "organizations", "tenants", "workspaces"];
const PATH_OTHER: [&str; 3] = ["stores", "sites", "teams"];
const FIELD_DEFAULT: [&str; 4] = ["tenant_id", "account_id", "org_id", "customer_id"];
const FIELD_OTHER: [&str; 2] = ["team", "shop_id"];
const QUERY: [&str; 4] = ["tenant", "account_id", "org", "customer"];
const HEADERS: [&str; 3] = ["X-Tenant-ID", "X-Org-Id", "X-Account-Id"];
const KEY_PARAMS: [&str; 3] = ["api_key", "apikey", "access_token"];

#[derive(Clone, Debug, Serialize)]
pub struct TenantPlan {
    pub place: TenantPlace,
    /// The query parameter integrations with a key send it in, when they do.
    pub key_param: Option<String>,
    /// `postmortem analyze` arguments needed to read the place, if any.
    pub args: Vec<String>,
    /// Whether the ids were already in the World's paths (then left as they are).
    pub ids_in_world_paths: bool,
}

/// What one request carries, after placing the tenant.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Placed {
    pub path: String,
    /// Without `?`; may be empty.
    pub query: String,
    pub header: Option<(String, String)>,
    pub field: Option<(String, String)>,
    /// The API key, when the client sends it in a header (formats logging headers show it).
    pub key_header: Option<String>,
}

impl Placed {
    /// `path?query` as a request line shows it.
    pub fn target(&self) -> String {
        if self.query.is_empty() {
            self.path.clone()
        } else {
            format!("{}?{}", self.path, self.query)
        }
    }
}

impl TenantPlan {
    /// Draws a place the access family can show (`headers`: it logs request headers;
    /// `fields`: it is a JSON log of the service itself).
    pub fn draw(
        world: &World,
        rng: &mut Rng,
        headers: bool,
        fields: bool,
        forced: Option<TenantPlace>,
    ) -> TenantPlan {
        // Whether the simulation's paths already carry the id, from its first requests.
        let ids_in_world_paths = world
            .requests
            .iter()
            .filter_map(|r| r.tenant.map(|t| (r, t)))
            .take(50)
            .any(|(r, t)| {
                world
                    .tenants
                    .get(t)
                    .is_some_and(|tn| !tn.id.is_empty() && r.path.contains(&tn.id))
            });
        let place = match forced {
            Some(p) => p,
            // Already in the path: the segment before the id.
            None if ids_in_world_paths => {
                TenantPlace::Path(path_word(world).unwrap_or_else(|| "accounts".into()))
            }
            // Elsewhere: where the family can show it (a path segment only when pinned).
            None => {
                let weights = [
                    1.5,
                    if headers { 2.0 } else { 0.0 },
                    if fields { 3.0 } else { 0.0 },
                ];
                match rng.weighted(&weights) {
                    0 => TenantPlace::Query(rng.pick(&QUERY).into()),
                    1 => TenantPlace::Header(rng.pick(&HEADERS).into()),
                    _ if rng.chance(0.8) => TenantPlace::Field(rng.pick(&FIELD_DEFAULT).into()),
                    _ => TenantPlace::Field(rng.pick(&FIELD_OTHER).into()),
                }
            }
        };
        let key_param = rng.chance(0.5).then(|| rng.pick(&KEY_PARAMS).to_string());
        let args = match &place {
            TenantPlace::Path(w) if !PATH_DEFAULT.contains(&w.as_str()) => {
                vec![
                    "--tenant-from".into(),
                    format!("path:/{w}/(?P<tenant>[^/?]+)"),
                ]
            }
            TenantPlace::Query(q) => vec!["--tenant-from".into(), format!("query:{q}")],
            TenantPlace::Header(h) => vec!["--tenant-from".into(), format!("header:{h}")],
            TenantPlace::Field(f) if !FIELD_DEFAULT.contains(&f.as_str()) => {
                vec!["--tenant-from".into(), format!("field:{f}")]
            }
            _ => vec![],
        };
        TenantPlan {
            place,
            key_param,
            args,
            ids_in_world_paths,
        }
    }

    /// The request as it reaches the load balancer, tenant and key in place.
    pub fn place(&self, world: &World, r: &Request) -> Placed {
        let mut p = Placed {
            path: r.path.clone(),
            query: r.query.clone(),
            ..Placed::default()
        };
        let tenant = r.tenant.and_then(|t| world.tenants.get(t));
        let Some(tn) = tenant else { return p };
        if r.kind == ReqKind::HealthCheck {
            return p;
        }
        if !self.ids_in_world_paths {
            match &self.place {
                TenantPlace::Path(word) => p.path = insert_segment(&r.path, word, &tn.id),
                TenantPlace::Query(q) => push_param(&mut p.query, q, &tn.id),
                TenantPlace::Header(h) => p.header = Some((h.clone(), tn.id.clone())),
                TenantPlace::Field(f) => p.field = Some((f.clone(), tn.id.clone())),
            }
        }
        if let Some(key) = &tn.api_key {
            match &self.key_param {
                Some(param) => push_param(&mut p.query, param, key),
                None => p.key_header = Some(key.clone()),
            }
        }
        p
    }
}

/// The path word before the tenant id in the World's paths (`accounts`, `orgs` ...).
fn path_word(world: &World) -> Option<String> {
    world.requests.iter().take(2000).find_map(|r| {
        let id = &world.tenants.get(r.tenant?)?.id;
        let segs: Vec<&str> = r.path.split('/').collect();
        let k = segs.iter().position(|s| s == id)?;
        k.checked_sub(1)
            .map(|j| segs[j].to_string())
            .filter(|w| !w.is_empty())
    })
}

/// `/api/v1/reports/9` -> `/api/v1/{word}/{id}/reports/9`; paths without a version prefix get
/// the segment in front.
fn insert_segment(path: &str, word: &str, id: &str) -> String {
    let parts: Vec<&str> = path.trim_start_matches('/').splitn(3, '/').collect();
    let versioned = parts.len() >= 2 && parts[0] == "api" && parts[1].starts_with('v');
    if versioned {
        let rest = parts.get(2).map(|r| format!("/{r}")).unwrap_or_default();
        format!("/{}/{}/{word}/{id}{rest}", parts[0], parts[1])
    } else {
        format!("/{word}/{id}{}", if path == "/" { "" } else { path })
    }
}

fn push_param(query: &mut String, name: &str, value: &str) {
    if !query.is_empty() {
        query.push('&');
    }
    query.push_str(name);
    query.push('=');
    query.push_str(value);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_go_after_the_version() {
        let cases = [
            (
                "/api/v1/reports/9",
                "accounts",
                "/api/v1/accounts/acct-1/reports/9",
            ),
            ("/api/v2", "orgs", "/api/v2/orgs/acct-1"),
            ("/export", "stores", "/stores/acct-1/export"),
            ("/", "teams", "/teams/acct-1"),
        ];
        for (path, word, want) in cases {
            assert_eq!(insert_segment(path, word, "acct-1"), want, "{path}");
        }
    }

    #[test]
    fn only_non_default_places_need_an_argument() {
        let w = World::default();
        let cases = [
            (TenantPlace::Path("accounts".into()), 0),
            (TenantPlace::Path("stores".into()), 2),
            (TenantPlace::Query("tenant".into()), 2),
            (TenantPlace::Header("X-Tenant-ID".into()), 2),
            (TenantPlace::Field("tenant_id".into()), 0),
            (TenantPlace::Field("team".into()), 2),
        ];
        for (place, n) in cases {
            let plan = TenantPlan::draw(&w, &mut Rng::new(1), true, true, Some(place.clone()));
            assert_eq!(plan.args.len(), n, "{place:?}");
        }
    }
}
