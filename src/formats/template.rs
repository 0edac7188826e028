//! Log-format templates compiled to literal splits: the fast path for
//! access logs. A definition may give the `log_format` line that wrote the
//! log (nginx `$remote_addr - $remote_user [$time_local] "$request" ...`,
//! Apache `%h %l %u %t "%r" %>s %b`); each variable becomes a field cut at
//! the literal that follows it, which is several times faster than a regex
//! with captures. Users can paste their own `log_format` into a definition.
//!
//! In: a template string and the variable table (`parsers/log-format-variables.json`).
//! Out: a [`Template`] whose [`Template::match_line`] gives [`Fields`].

use serde::Deserialize;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::compile::Fields;
use super::role::Role;
use crate::scan::find_byte;

#[derive(Debug, Deserialize)]
struct VariableFile {
    #[serde(rename = "$comment", default)]
    _comment: Option<String>,
    nginx: BTreeMap<String, Role>,
    apache: BTreeMap<String, Role>,
}

fn variables() -> &'static Option<VariableFile> {
    static V: OnceLock<Option<VariableFile>> = OnceLock::new();
    V.get_or_init(|| {
        serde_json::from_str(include_str!("../../parsers/log-format-variables.json")).ok()
    })
}

#[derive(Debug, Clone, PartialEq)]
enum Part {
    Lit(String),
    /// A variable and its role (`None`: read and ignored); `quoted` when it
    /// sits between double quotes, where an escaped quote does not end it.
    Var {
        role: Option<Role>,
        quoted: bool,
    },
}

/// A compiled template.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    parts: Vec<Part>,
}

impl Template {
    /// Compile a template; the error says what is wrong with it.
    pub fn compile(template: &str) -> Result<Template, String> {
        let vars = variables()
            .as_ref()
            .ok_or("the built-in variable table does not load")?;
        let mut parts: Vec<Part> = Vec::new();
        let mut lit = String::new();
        let mut chars = template.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            let var = match c {
                '$' => {
                    let rest = &template[i + 1..];
                    let (name, len) = if let Some(inner) = rest.strip_prefix('{') {
                        let end = inner.find('}').ok_or("unclosed ${")?;
                        (&inner[..end], end + 2)
                    } else {
                        let len = rest
                            .bytes()
                            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                            .count();
                        (&rest[..len], len)
                    };
                    if name.is_empty() {
                        lit.push(c);
                        continue;
                    }
                    for _ in 0..len {
                        chars.next();
                    }
                    Some(vars.nginx.get(name).copied())
                }
                '%' => {
                    let rest = &template[i + 1..];
                    if rest.starts_with('%') {
                        chars.next();
                        lit.push('%');
                        continue;
                    }
                    // %>s, %<s, %{Name}i, %h ...
                    let mut len = rest
                        .bytes()
                        .take_while(|b| *b == b'>' || *b == b'<')
                        .count();
                    if rest[len..].starts_with('{') {
                        len += rest[len..].find('}').ok_or("unclosed %{")? + 1;
                    }
                    let letter = rest[len..].chars().next().ok_or("a % at the end")?;
                    len += letter.len_utf8();
                    let name = &rest[..len];
                    for _ in 0..len {
                        chars.next();
                    }
                    Some(vars.apache.get(name).copied())
                }
                _ => None,
            };
            match var {
                Some(role) => {
                    if !lit.is_empty() {
                        parts.push(Part::Lit(std::mem::take(&mut lit)));
                    }
                    if matches!(parts.last(), Some(Part::Var { .. })) {
                        return Err(
                            "two variables with nothing between them cannot be told apart".into(),
                        );
                    }
                    let quoted = matches!(parts.last(), Some(Part::Lit(l)) if l.ends_with('"'));
                    parts.push(Part::Var { role, quoted });
                }
                None => lit.push(c),
            }
        }
        if !lit.is_empty() {
            parts.push(Part::Lit(lit));
        }
        if !parts.iter().any(|p| {
            matches!(
                p,
                Part::Var {
                    role: Some(Role::Ts),
                    ..
                }
            )
        }) {
            return Err(
                "the template has no time variable ($time_local, $time_iso8601, %t)".into(),
            );
        }
        Ok(Template { parts })
    }

    /// Cut one line into fields, or `None` if it does not have this shape.
    pub fn match_line<'a>(&self, line: &'a str) -> Option<Fields<'a>> {
        let mut fields = Fields::default();
        self.match_into(line, 0, 0, &mut fields, None)
            .ok()
            .map(|_| fields)
    }

    /// The part from which this template can go on from `prev`'s state: the
    /// parts before it are the same in both, so they cut any line the same
    /// way. A variable's cut depends on the literal after it, so a shared
    /// variable is cut again unless that literal is shared too.
    pub fn resume_after(&self, prev: &Template) -> usize {
        let common = self
            .parts
            .iter()
            .zip(&prev.parts)
            .take_while(|(a, b)| a == b)
            .count();
        // Two equal templates: nothing to share that matters.
        let common = common.min(self.parts.len().saturating_sub(1));
        match common.checked_sub(1).and_then(|i| self.parts.get(i)) {
            Some(Part::Var { .. }) => common - 1,
            _ => common,
        }
    }

    /// The roles the parts from `part` on set: what to clear before another
    /// template goes on from there.
    pub fn roles_from(&self, part: usize) -> impl Iterator<Item = Role> + '_ {
        self.parts.iter().skip(part).filter_map(|p| match p {
            Part::Var { role, .. } => *role,
            Part::Lit(_) => None,
        })
    }

    /// Cut a line into `fields`, starting at part `from` at byte `pos` (the
    /// parts before it already cut). On failure, gives the byte position
    /// before part `mark` if the cut got that far, for the next template to
    /// go on from (see [`Template::resume_after`]); `fields` then holds
    /// what was cut, which the caller clears from `mark` on.
    pub fn match_into<'a>(
        &self,
        line: &'a str,
        from: usize,
        mut pos: usize,
        fields: &mut Fields<'a>,
        mark: Option<usize>,
    ) -> Result<(), Option<usize>> {
        let mut marked = None;
        for (i, part) in self.parts.iter().enumerate().skip(from) {
            if mark == Some(i) {
                marked = Some(pos);
            }
            match part {
                Part::Lit(l) => {
                    if !has_prefix(line.as_bytes().get(pos..).unwrap_or_default(), l.as_bytes()) {
                        return Err(marked);
                    }
                    pos += l.len();
                }
                Part::Var { role, quoted } => {
                    let rest = line.get(pos..).unwrap_or_default();
                    let found = match self.parts.get(i + 1) {
                        None => Some(rest.len()),
                        Some(Part::Lit(next)) if *quoted && next.starts_with('"') => {
                            find_unescaped_quote(rest, &next[1..])
                        }
                        Some(Part::Lit(next)) => find_literal(rest, next),
                        Some(Part::Var { .. }) => None,
                    };
                    let Some(len) = found else {
                        return Err(marked);
                    };
                    let value = &rest[..len];
                    if let Some(role) = role {
                        if !plausible(*role, value) {
                            return Err(marked);
                        }
                        fields.set(*role, Cow::Borrowed(value));
                    }
                    pos += len;
                }
            }
        }
        if pos == line.len() {
            Ok(())
        } else {
            Err(marked)
        }
    }
}

/// `starts_with` for the one- to three-byte literals of templates, as a
/// loop: the library call costs more than the compare.
fn has_prefix(hay: &[u8], lit: &[u8]) -> bool {
    hay.len() >= lit.len() && hay.iter().zip(lit).all(|(a, b)| a == b)
}

/// The first occurrence of a short literal: memchr for its first byte, then
/// a compare (std's substring search sets up a searcher per call, which
/// costs more than the search itself for these one- to three-byte literals).
fn find_literal(hay: &str, lit: &str) -> Option<usize> {
    let (first, rest) = lit.as_bytes().split_first()?;
    let bytes = hay.as_bytes();
    let mut from = 0;
    // `from` is at most one past a byte found, so inside `bytes`.
    while let Some(off) = bytes.get(from..).and_then(|tail| find_byte(*first, tail)) {
        let at = from + off;
        if has_prefix(bytes.get(at + 1..).unwrap_or_default(), rest) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// The offset of the first `"` not escaped by a backslash and followed by `rest`.
fn find_unescaped_quote(s: &str, rest: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut from = 0;
    while let Some(off) = bytes.get(from..).and_then(|tail| find_byte(b'"', tail)) {
        let at = from + off;
        let before = |k: usize| at.checked_sub(k).and_then(|i| bytes.get(i));
        let escaped = before(1) == Some(&b'\\') && before(2) != Some(&b'\\');
        if !escaped && s[at + 1..].starts_with(rest) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// Lists (`a, b`, `a : b`) are fine; a bare space means the cut went wrong.
fn spaces_only_in_lists(v: &str) -> bool {
    let b = v.as_bytes();
    b.first() != Some(&b' ')
        && b.windows(2).all(|w| match w {
            [before, b' '] => matches!(before, b',' | b':'),
            _ => true,
        })
}

/// Cheap shape checks, so a template does not read lines of another format.
fn plausible(role: Role, v: &str) -> bool {
    match role {
        Role::Status => v == "-" || (v.len() == 3 && v.bytes().all(|b| b.is_ascii_digit())),
        Role::Bytes => v == "-" || (!v.is_empty() && v.bytes().all(|b| b.is_ascii_digit())),
        Role::Duration => {
            v == "-" || (!v.is_empty() && v.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
        }
        Role::Ts => !v.is_empty() && v.bytes().any(|b| b.is_ascii_digit()),
        // A user name is one word: a space means a prefix the template lacks.
        Role::User => !v.is_empty() && !v.as_bytes().contains(&b' '),
        // An address may be an X-Forwarded-For list (`10.0.0.2, 1.2.3.4`).
        Role::Client => !v.is_empty() && (!v.as_bytes().contains(&b' ') || spaces_only_in_lists(v)),
        Role::Instance => spaces_only_in_lists(v),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMBINED_TIMED: &str = r#"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $request_time"#;

    #[test]
    fn nginx_template_cuts_fields() {
        let t = Template::compile(COMBINED_TIMED).expect("compiles");
        let line = r#"192.0.2.1 - - [01/Oct/2026:13:26:55 +0530] "GET /a?b=\"c\" HTTP/1.1" 200 512 "-" "curl/8.5 (x; \"y\")" 0.120"#;
        let f = t.match_line(line).expect("matches");
        assert_eq!(f.get(Role::Client), Some("192.0.2.1"));
        assert_eq!(f.get(Role::Ts), Some("01/Oct/2026:13:26:55 +0530"));
        assert_eq!(f.get(Role::Request), Some(r#"GET /a?b=\"c\" HTTP/1.1"#));
        assert_eq!(f.get(Role::UserAgent), Some(r#"curl/8.5 (x; \"y\")"#));
        assert_eq!(f.get(Role::Duration), Some("0.120"));
    }

    #[test]
    fn wrong_shapes_do_not_match() {
        let t = Template::compile(COMBINED_TIMED).expect("compiles");
        let cases = [
            (
                "status not a number",
                r#"192.0.2.1 - - [01/Oct/2026:13:26:55 +0530] "GET / HTTP/1.1" abc 512 "-" "x" 0.1"#,
            ),
            (
                "missing duration",
                r#"192.0.2.1 - - [01/Oct/2026:13:26:55 +0530] "GET / HTTP/1.1" 200 512 "-" "x""#,
            ),
            (
                "trailing text",
                r#"192.0.2.1 - - [01/Oct/2026:13:26:55 +0530] "GET / HTTP/1.1" 200 512 "-" "x" 0.1 extra"#,
            ),
            ("json", r#"{"a": 1}"#),
        ];
        for (name, line) in cases {
            assert!(t.match_line(line).is_none(), "{name}");
        }
    }

    /// Templates tried in order give the same fields whether or not the
    /// next one goes on from where the last one failed.
    #[test]
    fn a_template_goes_on_from_the_shared_parts_of_the_one_before() {
        let long = Template::compile(&format!(
            "{COMBINED_TIMED} $upstream_response_time $upstream_addr"
        ))
        .expect("compiles");
        let short =
            Template::compile(&format!("{COMBINED_TIMED} $upstream_addr")).expect("compiles");
        let r = short.resume_after(&long);
        assert!(r > 0, "the combined prefix is shared");
        let line = r#"192.0.2.1 - - [01/Oct/2026:13:26:55 +0530] "GET /a HTTP/1.1" 200 512 "-" "curl/8" 0.120 10.0.0.7:8080"#;
        let mut fields = Fields::default();
        let pos = long
            .match_into(line, 0, 0, &mut fields, Some(r))
            .expect_err("no upstream time")
            .expect("got that far");
        for role in long.roles_from(r).collect::<Vec<_>>() {
            fields.clear(role);
        }
        short
            .match_into(line, r, pos, &mut fields, None)
            .expect("the short one reads it");
        let fresh = short.match_line(line).expect("matches");
        for role in [
            Role::Client,
            Role::Ts,
            Role::Request,
            Role::Duration,
            Role::Instance,
        ] {
            assert_eq!(fields.get(role), fresh.get(role), "{role:?}");
        }
        assert_eq!(fresh.get(Role::Instance), Some("10.0.0.7:8080"));
    }

    #[test]
    fn apache_template_and_bad_templates() {
        let t = Template::compile(r#"%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i" %D"#)
            .expect("compiles");
        let f = t
            .match_line(r#"192.0.2.9 - bob [10/Oct/2026:13:55:36 -0700] "GET /x HTTP/1.0" 200 2326 "-" "Mozilla/5.0" 1532"#)
            .expect("matches");
        assert_eq!(f.get(Role::Status), Some("200"));
        assert_eq!(f.get(Role::User), Some("bob"));
        assert_eq!(f.get(Role::Duration), Some("1532"));
        assert!(Template::compile("$remote_addr$status [$time_local]").is_err());
        assert!(
            Template::compile("$remote_addr $status").is_err(),
            "no time variable"
        );
    }
}
