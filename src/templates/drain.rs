//! Message keys -> templates: Drain's fixed-depth prefix tree, run once over
//! the distinct keys of the whole input after the workers' miners merged.
//!
//! In: keys (already masked, `mask.rs`) with their record counts. Out:
//! clusters, each a template (tokens, `<*>` where its keys differ) and the
//! keys it holds.
//!
//! Drain is online and order-dependent: the clusters it finds depend on which
//! line came first. Running it over the keys in a fixed order (most records
//! first, then by text) makes the templates a function of the input alone,
//! whatever the thread count or the order of lines.
//!
//! ```text
//! "Invalid user admin from <ip>" (40) + "Invalid user test from <ip>" (12) -> "Invalid user <*> from <ip>"
//! ```

use rustc_hash::FxHashMap as HashMap;

/// The wildcard of a template position where its keys differ.
pub const WILDCARD: &str = "<*>";

/// Tokens below the length node that route a key down the tree (Drain3's
/// default depth of 4: root, length, two tokens).
const PREFIX: usize = 2;
/// Children of a tree node before new tokens share a wildcard child (Drain3, Loki).
const MAX_CHILDREN: usize = 100;
/// Share of informative positions that must agree for a key to join a
/// cluster: Elastic's `categorize_text` default of 50%, on words only.
const SIM: f64 = 0.5;
/// Share for clusters one token apart, in a position the tree routes by.
const SIM_ONE_APART: f64 = 0.8;

/// One template and the keys (indices into the input) it holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Cluster {
    pub tokens: Vec<String>,
    pub keys: Vec<usize>,
}

impl Cluster {
    pub fn template(&self) -> String {
        self.tokens.join(" ")
    }
}

/// A token that says what a message is: it has a letter and no placeholder.
/// Punctuation and placeholders agree between unrelated messages all the
/// time (`HikariPool-<num> - Start completed.` and `... - Shutdown
/// initiated...` share half their tokens), so similarity is over words.
fn informative(t: &str) -> bool {
    !t.contains('<') && t.bytes().any(|b| b.is_ascii_alphabetic())
}

/// (agreeing, compared) positions of a template and a key of one length.
fn agreement(template: &[String], key: &[&str]) -> (usize, usize) {
    let (mut eq, mut pos) = (0, 0);
    for (t, k) in template.iter().zip(key) {
        if informative(t) || informative(k) || t == WILDCARD {
            pos += 1;
            eq += usize::from(t == k);
        }
    }
    if pos == 0 {
        // Nothing but numbers and punctuation: compare every position.
        pos = key.len();
        eq = template.iter().zip(key).filter(|(t, k)| t == *k).count();
    }
    (eq, pos)
}

fn similarity(template: &[String], key: &[&str]) -> f64 {
    let (eq, pos) = agreement(template, key);
    if pos == 0 {
        1.0
    } else {
        eq as f64 / pos as f64
    }
}

#[derive(Default)]
struct Node {
    children: HashMap<String, Node>,
    clusters: Vec<usize>,
}

/// The leaf a key routes to, made as needed.
fn leaf<'n>(root: &'n mut HashMap<usize, Node>, key: &[&str]) -> &'n mut Node {
    let mut node = root.entry(key.len()).or_default();
    for t in key.iter().take(PREFIX) {
        let t = if t.contains('<') { WILDCARD } else { t };
        let next = if node.children.contains_key(t) || node.children.len() + 1 < MAX_CHILDREN {
            t
        } else {
            WILDCARD
        };
        node = node.children.entry(next.to_string()).or_default();
    }
    node
}

/// Cluster `keys` (text, records); see the module doc.
pub fn cluster(keys: &[(&str, u64)]) -> Vec<Cluster> {
    let mut order: Vec<(usize, &(&str, u64))> = keys.iter().enumerate().collect();
    order.sort_by(|(_, a), (_, b)| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let mut root: HashMap<usize, Node> = HashMap::default();
    let mut clusters: Vec<Cluster> = Vec::new();
    for (i, &(text, _)) in order {
        let tokens: Vec<&str> = if text.is_empty() {
            Vec::new()
        } else {
            text.split(' ').collect()
        };
        let node = leaf(&mut root, &tokens);
        let best = node
            .clusters
            .iter()
            .filter_map(|&c| Some((similarity(&clusters.get(c)?.tokens, &tokens), c)))
            // Most similar; the older cluster on a tie.
            .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
        // A leaf holds indices of `clusters` only.
        match best
            .filter(|(sim, _)| *sim >= SIM)
            .and_then(|(_, c)| clusters.get_mut(c))
        {
            Some(cluster) => join(cluster, &tokens, i),
            None => {
                node.clusters.push(clusters.len());
                clusters.push(Cluster {
                    tokens: tokens.iter().map(|t| t.to_string()).collect(),
                    keys: vec![i],
                });
            }
        }
    }
    merge_one_apart(clusters)
}

fn join(c: &mut Cluster, key: &[&str], i: usize) {
    for (t, k) in c.tokens.iter_mut().zip(key) {
        if t != k {
            *t = WILDCARD.to_string();
        }
    }
    c.keys.push(i);
}

/// The tree routes by the first tokens exactly, so messages that differ
/// only there (a pool or a component name written first) never meet in a
/// leaf. Clusters of one length that differ in one such position, and
/// agree on nearly every word, are one template.
fn merge_one_apart(clusters: Vec<Cluster>) -> Vec<Cluster> {
    let mut merged: Vec<Option<Cluster>> = clusters.into_iter().map(Some).collect();
    for pos in 0..PREFIX {
        // Clusters by their tokens with `pos` left out; the first of each group absorbs the rest.
        let mut first: HashMap<Vec<&str>, usize> = HashMap::default();
        let mut joins: Vec<(usize, usize)> = Vec::new();
        for (i, c) in merged.iter().enumerate() {
            let Some(c) = c else { continue };
            if c.tokens.len() <= pos {
                continue;
            }
            let mut rest: Vec<&str> = c.tokens.iter().map(String::as_str).collect();
            if let Some(token) = rest.get_mut(pos) {
                *token = "";
            }
            match first.get(&rest) {
                Some(&into) => joins.push((into, i)),
                None => {
                    first.insert(rest, i);
                }
            }
        }
        for (into, from) in joins {
            let (Some(a), Some(b)) = (
                merged.get(into).and_then(Option::as_ref),
                merged.get(from).and_then(Option::as_ref),
            ) else {
                continue;
            };
            let key: Vec<&str> = b.tokens.iter().map(String::as_str).collect();
            if similarity(&a.tokens, &key) < SIM_ONE_APART {
                continue;
            }
            if let Some(b) = merged.get_mut(from).and_then(Option::take) {
                if let Some(a) = merged.get_mut(into).and_then(Option::as_mut) {
                    let key: Vec<&str> = b.tokens.iter().map(String::as_str).collect();
                    for (t, k) in a.tokens.iter_mut().zip(&key) {
                        if t != k {
                            *t = WILDCARD.to_string();
                        }
                    }
                    a.keys.extend(b.keys);
                }
            }
        }
    }
    merged.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn templates(keys: &[(&str, u64)]) -> Vec<String> {
        let mut t: Vec<String> = cluster(keys).iter().map(Cluster::template).collect();
        t.sort();
        t
    }

    /// A case: its name, the messages with their counts, the templates.
    type Case<'a> = (&'a str, Vec<(&'a str, u64)>, Vec<&'a str>);

    #[test]
    fn clustering_cases() {
        let cases: [Case; 5] = [
            (
                "a variable word",
                vec![
                    ("Invalid user admin from <ip>", 40),
                    ("Invalid user test from <ip>", 12),
                ],
                vec!["Invalid user <*> from <ip>"],
            ),
            (
                "different events stay apart",
                vec![
                    ("HikariPool-<num> - Start completed.", 3),
                    ("HikariPool-<num> - Shutdown initiated...", 3),
                    ("HikariPool-<num> - Shutdown completed.", 3),
                ],
                vec![
                    "HikariPool-<num> - Shutdown <*>",
                    "HikariPool-<num> - Start completed.",
                ],
            ),
            (
                "a pool named without digits",
                vec![
                    (
                        "HikariPool-<num> - Connection is not available, request timed out after <duration>.",
                        1626,
                    ),
                    (
                        "primary - Connection is not available, request timed out after <duration>.",
                        5,
                    ),
                ],
                vec!["<*> - Connection is not available, request timed out after <duration>."],
            ),
            (
                "lengths never mix",
                vec![("a b c", 1), ("a b", 1)],
                vec!["a b", "a b c"],
            ),
            (
                "first words differ: two messages",
                vec![
                    ("Starting ApiApplication <num> using Java <num>", 3),
                    ("Stopping ApiApplication <num> using Java <num>", 3),
                ],
                vec![
                    "Starting ApiApplication <num> using Java <num>",
                    "Stopping ApiApplication <num> using Java <num>",
                ],
            ),
        ];
        for (name, keys, want) in cases {
            assert_eq!(templates(&keys), want, "{name}");
        }
    }

    #[test]
    fn every_key_lands_in_exactly_one_cluster() {
        let keys = [
            ("a <num> x", 5),
            ("b <num> x", 4),
            ("a <num> y", 3),
            ("", 2),
            ("<num>", 1),
        ];
        let mut seen: Vec<usize> = cluster(&keys).into_iter().flat_map(|c| c.keys).collect();
        seen.sort();
        assert_eq!(seen, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn key_order_does_not_matter() {
        let mut keys = vec![
            ("session opened for user root", 9),
            ("session opened for user test", 9),
            ("session closed for user root", 4),
            ("check pass; user unknown", 2),
        ];
        let a = templates(&keys);
        keys.reverse();
        assert_eq!(templates(&keys), a);
    }
}
