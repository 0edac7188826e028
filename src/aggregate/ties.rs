//! Records that name two identities of one instance: a start-up line that
//! says where the process listens (`Listening on 10.42.1.11:8080`) from a
//! log whose host field is the pod. Kept as (name, address) pairs; the
//! correlation ties them into one instance.
//!
//! In: log records with an instance. Out: a sorted set of pairs, merged by
//! union (the same set however the input was split).

use std::collections::BTreeSet;

/// An IP (v4, or v6 in brackets) and its port, when `name` is an address.
pub fn split_address(name: &str) -> Option<(&str, Option<&str>)> {
    let (host, port) = match name.rsplit_once(':') {
        Some((h, p)) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => (h, Some(p)),
        _ => (name, None),
    };
    let ip = host.trim_start_matches('[').trim_end_matches(']');
    let v4 = ip.split('.').count() == 4
        && ip
            .split('.')
            .all(|o| !o.is_empty() && o.len() <= 3 && o.bytes().all(|b| b.is_ascii_digit()));
    let v6 = host.starts_with('[') && ip.contains(':');
    (v4 || v6).then_some((ip, port))
}

/// The first routable IP:port a message names (`listening on
/// http://10.42.1.11:8080`, `Get "http://10.42.1.11:8080/healthz"`). A
/// wildcard or loopback address says where the process listens, not which
/// host it is: left out.
pub fn address_in(message: &str) -> Option<&str> {
    message
        .split(|c: char| {
            c.is_whitespace() || matches!(c, '"' | '\'' | '(' | ')' | ',' | '/' | '[' | ']')
        })
        .find(|w| match split_address(w) {
            Some((ip, Some(_))) => !matches!(ip, "0.0.0.0" | "127.0.0.1" | "::" | "::1"),
            _ => false,
        })
}

/// (instance name, address) pairs seen in start-up lines, (host,
/// instance) pairs that inputs' paths name (`logs/<host>/<container>-json.log`),
/// and (envelope, line) names of one record's writer.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Ties {
    pairs: BTreeSet<(String, String)>,
    hosts: BTreeSet<(String, String)>,
    writers: BTreeSet<(String, String)>,
}

impl Ties {
    /// An input whose path puts `instance` on `host`.
    pub fn add_host(&mut self, host: &str, instance: &str) {
        if host != instance {
            self.hosts.insert((host.to_string(), instance.to_string()));
        }
    }

    /// A record its envelope says `envelope` wrote and its line says
    /// `line` did (a log stream `app/web/<task>` and the host field of the
    /// line in it).
    pub fn add_writer(&mut self, envelope: &str, line: &str) {
        if envelope != line {
            self.writers
                .insert((envelope.to_string(), line.to_string()));
        }
    }

    /// The (envelope, line) names of records' writers.
    pub fn writers(&self) -> impl Iterator<Item = &(String, String)> {
        self.writers.iter()
    }

    /// The (host, instance) pairs of inputs' paths.
    pub fn hosts(&self) -> impl Iterator<Item = &(String, String)> {
        self.hosts.iter()
    }

    /// A start-up line of `instance` saying `message`.
    pub fn add(&mut self, instance: &str, message: &str) {
        if let Some(addr) = address_in(message) {
            if addr != instance
                && !self
                    .pairs
                    .contains(&(instance.to_string(), addr.to_string()))
            {
                self.pairs.insert((instance.to_string(), addr.to_string()));
            }
        }
    }

    pub fn merge(&mut self, other: Ties) {
        self.pairs.extend(other.pairs);
        self.hosts.extend(other.hosts);
        self.writers.extend(other.writers);
    }

    pub fn iter(&self) -> impl Iterator<Item = &(String, String)> {
        self.pairs.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_up_lines_name_the_address_they_listen_on() {
        let cases = [
            (
                "Tomcat started on 10.42.1.11:8080 (http)",
                Some("10.42.1.11:8080"),
            ),
            (
                r#"Liveness probe failed: Get "http://10.42.1.11:8080/healthz": timeout"#,
                Some("10.42.1.11:8080"),
            ),
            ("Listening at: http://0.0.0.0:8000 (7)", None),
            ("listening on [::]:8080", None),
            ("Started in 7.3 seconds", None),
            ("10.0.0.1 is up", None),
        ];
        for (message, want) in cases {
            assert_eq!(address_in(message), want, "{message}");
        }
    }
}
