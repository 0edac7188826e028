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

pub fn change_text(reason: &str, object: &str, message: &str) -> String {
    let message = crate::redact::redact_text(message.trim());
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
        None => (message.to_string(), None),
    };
    // A `-` stands for an empty field (no version on a config change).
    let rest = rest
        .split_whitespace()
        .skip_while(|w| *w == "-")
        .collect::<Vec<_>>()
        .join(" ");
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

    /// A person's address never reaches the timeline.
    #[test]
    fn authors_are_redacted() {
        let t = change_text("rollback", "api", "6.20.7 by ann@example.com");
        assert!(!t.contains("ann@"), "{t}");
    }
}
