//! Which routes are connects: websocket upgrades, logins, OAuth callbacks
//! (`reconnect_routes` in `parsers/signals.json`).
//!
//! In: a route's interned id and text, per request. Out: whether it is a
//! connect, decided once per distinct route (a fragment search per request
//! would cost the hot path more than the rest of the request).
//!
//! A client that connects again after its connection failed is one of a
//! herd (`thundering_herd` counts it), not a retry of failed work: counted
//! as both, a herd of 66,000 reconnects read as 69,408 "retries" beside the
//! 2,700 that were (review of a thundering-herd draft).

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

#[derive(Debug, Default)]
pub struct Connects {
    fragments: Arc<[String]>,
    by_route: HashMap<u32, bool>,
}

impl Connects {
    pub fn new(fragments: Vec<String>) -> Connects {
        Connects {
            fragments: fragments.into(),
            by_route: HashMap::default(),
        }
    }

    /// The same fragments, with a cache of its own (for a worker thread).
    pub fn fork(&self) -> Connects {
        Connects {
            fragments: Arc::clone(&self.fragments),
            by_route: HashMap::default(),
        }
    }

    /// Whether `route` (interned as `id`) is a connect.
    pub fn is(&mut self, id: u32, route: &str) -> bool {
        if self.fragments.is_empty() {
            return false;
        }
        let fragments = &self.fragments;
        *self
            .by_route
            .entry(id)
            .or_insert_with(|| fragments.iter().any(|f| route.contains(f.as_str())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_route_is_a_connect_when_a_fragment_is_in_it() {
        let mut c = Connects::new(vec!["/ws".into(), "/oauth".into()]);
        assert!(c.is(1, "/ws"));
        assert!(c.is(2, "/oauth/callback"));
        assert!(!c.is(3, "/api/v1/orders/{id}"));
        // Decided once per id; a fork shares the fragments.
        assert!(c.is(1, "/ws"));
        assert!(c.fork().is(4, "/api/ws"));
        assert!(!Connects::default().is(1, "/ws"));
    }
}
