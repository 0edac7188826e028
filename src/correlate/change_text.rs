//! A change log's record told as a sentence for the timeline: the verb and
//! the object first, a version read as what was deployed or rolled back to,
//! and a stated reason set apart instead of a raw `reason="..."`.
//!
//! In: a change's reason (the log's verb), object and message. Out: text.
//!
//! ```text
//! rollback, api, `6.20.7 by ops reason="pool exhaustion after 6.21.0"`
//!   -> rollback of `api` to 6.20.7 by ops (reason given: "pool exhaustion after 6.21.0")
//! deploy, api, `6.21.0 by argocd` -> deploy of `api` 6.21.0 by argocd
//! flag, fraud-check, `on by sam`  -> flag `fraud-check`: on by sam
//! ```

use std::sync::LazyLock;

use regex::Regex;

/// `reason="..."`, `reason='...'` or `reason=word`, anywhere in the message.
static STATED_REASON: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"(?i)\s*\breason[=:]\s*(?:"([^"]*)"|'([^']*)'|(\S+))"#).ok());

/// A version at the start of what follows the object: `v4.18.3`, `6.21.0-rc1`.
static VERSION: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^v?\d+(?:\.\d+)+[\w.+-]*(?:\s|$)").ok());

/// A whole token that reads as a release: `v2.20.0`, `6.21.0-rc1`,
/// `2026.09.18-1085c05`, or an image tag's version (`api:6.21.0`).
static RELEASE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^v?\d+(?:\.\d+)+(?:[-+_][\w.+-]*)?$").ok());

/// The version a change's message names first, if any: what a reader
/// calls the deploy ("the deploy of v2.20.0"), where the object may be only
/// an environment. An address (`10.0.3.7`) is not a version.
pub fn version_in(message: &str) -> Option<&str> {
    let re = RELEASE.as_ref()?;
    message
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| "()[]{},;\"'`".contains(c)))
        .map(|w| w.trim_end_matches([':', '.']))
        .map(|w| w.rsplit([':', '@', '=']).next().unwrap_or(w))
        .filter(|w| re.is_match(w))
        .find(|w| {
            let parts: Vec<&str> = w.split('.').collect();
            let address = parts.len() == 4
                && parts
                    .iter()
                    .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
            !address
        })
}

/// `by <email:…>`: an author the redaction hid says nothing to a reader.
static HIDDEN_AUTHOR: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\s*\bby\s+<email:[0-9a-f]+>").ok());

/// A change log's free text made fit for prose: personal data redacted, an
/// author the redaction hid left out, a leading `-` (an empty field)
/// dropped, and a stated reason taken apart from the rest.
pub fn told(message: &str) -> (String, Option<String>) {
    let message = crate::redact::redact_text(message.trim()).to_string();
    let message = match HIDDEN_AUTHOR.as_ref() {
        Some(re) => re.replace_all(&message, "").into_owned(),
        None => message,
    };
    let (rest, why) = match STATED_REASON.as_ref().and_then(|re| re.captures(&message)) {
        Some(c) => {
            let why = c
                .get(1)
                .or_else(|| c.get(2))
                .or_else(|| c.get(3))
                .map(|m| m.as_str().trim().to_string());
            let whole = c.get(0).map_or(0..0, |m| m.range());
            let mut rest = String::with_capacity(message.len());
            rest.push_str(message.get(..whole.start).unwrap_or(""));
            rest.push_str(message.get(whole.end..).unwrap_or(""));
            (rest, why.filter(|w| !w.is_empty()))
        }
        None => (message.clone(), None),
    };
    // A `-` stands for an empty field (no version on a config change).
    let rest = rest
        .split_whitespace()
        .skip_while(|w| *w == "-")
        .collect::<Vec<_>>()
        .join(" ");
    (rest, why)
}

pub fn change_text(reason: &str, object: &str, message: &str) -> String {
    let (rest, why) = told(message);
    let verb = reason.to_ascii_lowercase();
    let is = |words: &[&str]| words.contains(&verb.as_str());
    let versioned = VERSION.as_ref().is_some_and(|re| re.is_match(&rest));
    let mut text = if is(&["deploy", "deployed", "release", "released", "rollout"]) {
        format!("deploy of `{object}`")
    } else if is(&["rollback", "rolled-back", "rolledback"]) {
        format!("rollback of `{object}`")
    } else {
        format!("{reason} `{object}`")
    };
    if !rest.is_empty() {
        let to = rest.starts_with("to ");
        match (versioned, verb.starts_with("roll")) {
            (true, true) => text.push_str(&format!(" to {rest}")),
            (true, false) => text.push_str(&format!(" {rest}")),
            _ if to => text.push_str(&format!(" {rest}")),
            _ => text.push_str(&format!(": {rest}")),
        }
    }
    if let Some(why) = why {
        text.push_str(&format!(" (reason given: \"{why}\")"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::change_text;

    #[test]
    fn change_logs_read_as_sentences() {
        let cases = [
            (
                "rollback",
                "api",
                r#"6.20.7 by ops reason="connection pool exhaustion after 6.21.0""#,
                r#"rollback of `api` to 6.20.7 by ops (reason given: "connection pool exhaustion after 6.21.0")"#,
            ),
            (
                "deploy",
                "api",
                " 6.21.0 by argocd",
                "deploy of `api` 6.21.0 by argocd",
            ),
            (
                "rollback",
                "api",
                "to v4.18.2",
                "rollback of `api` to v4.18.2",
            ),
            (
                "restart",
                "checkout",
                "by oncall reason=stuck",
                r#"restart `checkout`: by oncall (reason given: "stuck")"#,
            ),
            (
                "flag",
                "fraud-check-sync",
                "on by sam",
                "flag `fraud-check-sync`: on by sam",
            ),
            (
                "github deployment",
                "production",
                "",
                "github deployment `production`",
            ),
            ("config", "gateway", "reason=''", "config `gateway`"),
            (
                "config",
                "app",
                r#"- by ops reason="reads moved to the replica""#,
                r#"config `app`: by ops (reason given: "reads moved to the replica")"#,
            ),
        ];
        for (reason, object, message, want) in cases {
            assert_eq!(change_text(reason, object, message), want, "{message}");
        }
    }

    #[test]
    fn a_change_names_its_version() {
        let cases = [
            (
                "deploy of v2.20.0 (71bd5064) by github-actions[bot]: Deploy v2.20.0",
                Some("v2.20.0"),
            ),
            ("2026.09.18-1085c05 by ci", Some("2026.09.18-1085c05")),
            (
                "image registry.example/api:6.21.0 by argocd",
                Some("6.21.0"),
            ),
            ("to 10.0.3.7 by ops", None),
            ("on by sam", None),
            ("release 4.2", Some("4.2")),
        ];
        for (message, want) in cases {
            assert_eq!(super::version_in(message), want, "{message}");
        }
    }

    #[test]
    fn a_hidden_author_is_left_out_and_the_reason_set_apart() {
        let (rest, why) =
            super::told(r#"3->8 by jane.doe@tracker.example.net reason="instances crash-looping""#);
        assert_eq!(rest, "3->8");
        assert_eq!(why.as_deref(), Some("instances crash-looping"));
    }

    /// A person's address never reaches the timeline.
    #[test]
    fn authors_are_redacted() {
        let t = change_text("rollback", "api", "6.20.7 by ann@example.com");
        assert!(!t.contains("ann@"), "{t}");
    }
}
