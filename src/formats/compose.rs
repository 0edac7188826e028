//! `compose`: a role's value written from several keys of a JSON record,
//! for sources whose meaning is spread over fields (a GitHub deployment's
//! `ref`, `sha` and `creator.login`; a Helm revision's description, app
//! version and revision number).
//!
//! A template is text with `{key}` placeholders (keys as in `fields`: a
//! literal key first, then a dotted path; numbers index arrays) and
//! optional `[...]` sections, dropped when a placeholder inside has no
//! value (missing, `null`, empty, or not a scalar). A placeholder outside a
//! section without a value leaves the role unset.
//!
//! ```text
//! "{ref} at {sha}[ by {creator.login}]"  +  {"ref": "v4.18.3", "sha": "3f9a1c2", "creator": null}
//!   -> "v4.18.3 at 3f9a1c2"
//! ```

use serde_json::Value;

use super::compile::lookup;

/// One piece of a template.
#[derive(Clone, Debug, PartialEq)]
enum Part {
    Text(String),
    Key(String),
    Optional(Vec<Part>),
}

/// A compiled template.
#[derive(Clone, Debug, PartialEq)]
pub struct Compose {
    parts: Vec<Part>,
}

impl Compose {
    /// Compile a template; the error says what is wrong with it.
    pub fn compile(template: &str) -> Result<Compose, String> {
        let mut stack: Vec<Vec<Part>> = vec![Vec::new()];
        let mut text = String::new();
        let mut chars = template.chars();
        let flush = |text: &mut String, stack: &mut Vec<Vec<Part>>| {
            if !text.is_empty() {
                if let Some(top) = stack.last_mut() {
                    top.push(Part::Text(std::mem::take(text)));
                }
            }
        };
        while let Some(c) = chars.next() {
            match c {
                '{' => {
                    flush(&mut text, &mut stack);
                    let mut key = String::new();
                    let mut closed = false;
                    for k in chars.by_ref() {
                        if k == '}' {
                            closed = true;
                            break;
                        }
                        key.push(k);
                    }
                    if !closed || key.is_empty() || key.contains(['{', '[', ']']) {
                        return Err(format!("`{{{key}` is not a placeholder"));
                    }
                    if let Some(top) = stack.last_mut() {
                        top.push(Part::Key(key));
                    }
                }
                '[' => {
                    flush(&mut text, &mut stack);
                    stack.push(Vec::new());
                }
                ']' => {
                    flush(&mut text, &mut stack);
                    if stack.len() < 2 {
                        return Err("`]` without `[`".to_string());
                    }
                    let inner = stack.pop().unwrap_or_default();
                    if let Some(top) = stack.last_mut() {
                        top.push(Part::Optional(inner));
                    }
                }
                '}' => return Err("`}` without `{`".to_string()),
                c => text.push(c),
            }
        }
        flush(&mut text, &mut stack);
        if stack.len() != 1 {
            return Err("`[` without `]`".to_string());
        }
        Ok(Compose {
            parts: stack.pop().unwrap_or_default(),
        })
    }

    /// The text for one record, or `None` when a required placeholder has no value.
    pub fn render(&self, record: &Value) -> Option<String> {
        let mut out = String::new();
        render_parts(&self.parts, record, &mut out)?;
        Some(out)
    }
}

fn render_parts(parts: &[Part], record: &Value, out: &mut String) -> Option<()> {
    for p in parts {
        match p {
            Part::Text(t) => out.push_str(t),
            Part::Key(k) => out.push_str(&value_text(lookup(record, k)?)?),
            Part::Optional(inner) => {
                let mut section = String::new();
                if render_parts(inner, record, &mut section).is_some() {
                    out.push_str(&section);
                }
            }
        }
    }
    Some(())
}

fn value_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn templates_render_with_optional_sections() {
        let rec = json!({"ref": "v4.18.3", "sha": "3f9a1c2", "creator": {"login": "octocat"}, "env": null, "n": 7,
                         "resources": ["proj/default:env/production:flag/checkout"]});
        // (name, template, expected)
        let cases = [
            ("plain", "{ref} at {sha}", Some("v4.18.3 at 3f9a1c2")),
            (
                "optional kept",
                "{ref}[ by {creator.login}]",
                Some("v4.18.3 by octocat"),
            ),
            (
                "optional dropped on null",
                "{ref}[ in {env}]",
                Some("v4.18.3"),
            ),
            (
                "optional dropped on missing",
                "{ref}[ in {nope}]",
                Some("v4.18.3"),
            ),
            ("required missing", "{ref} in {env}", None),
            ("number", "revision {n}", Some("revision 7")),
            (
                "array index",
                "{resources.0}",
                Some("proj/default:env/production:flag/checkout"),
            ),
            (
                "nested optional",
                "{ref}[ ({sha}[, {nope}])]",
                Some("v4.18.3 (3f9a1c2)"),
            ),
        ];
        for (name, template, want) in cases {
            let c = Compose::compile(template).expect(name);
            assert_eq!(c.render(&rec).as_deref(), want, "{name}");
        }
    }

    #[test]
    fn broken_templates_are_errors() {
        for bad in ["{ref", "[{ref}", "{ref}]", "}", "{}", "{a[b}"] {
            assert!(Compose::compile(bad).is_err(), "{bad}");
        }
    }
}
