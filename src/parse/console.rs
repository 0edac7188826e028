//! Kibana Dev Tools console output, as users copy it: a response that is
//! JSON except that a string holding quotes is written as a triple-quoted
//! literal (`"message" : """{"level": "DEBUG"}"""`), sometimes under the
//! request line that asked for it (`GET /logs-*/_search`).
//!
//! In: the text of an input. Out: the same text as JSON, every line where
//! it was: a literal becomes a JSON string (the newlines it held follow it
//! as whitespace) and a leading request line becomes a blank line.
//!
//! ```text
//! GET /logs/_search                    ->  (blank)
//! "message" : """{"a": "b"}""",        ->  "message" : "{\"a\": \"b\"}",
//! ```

/// The text as JSON, or `None` when it holds no console literal or
/// request line (a raw `"""` cannot occur in JSON, so any is a literal).
pub(crate) fn console_to_json(text: &str) -> Option<String> {
    let request = request_line_len(text);
    if request.is_none() && !text.contains("\"\"\"") {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 64);
    let mut rest = match request {
        Some(len) => &text[len..],
        None => text,
    };
    let mut in_string = false;
    while let Some(c) = rest.chars().next() {
        if !in_string && rest.starts_with("\"\"\"") {
            let body = &rest[3..];
            let Some(end) = body.find("\"\"\"") else {
                // Unterminated: left as it is, the JSON reader reports it.
                out.push_str(rest);
                break;
            };
            let literal = &body[..end];
            out.push_str(&serde_json::Value::from(literal).to_string());
            out.extend(literal.matches('\n').map(|_| '\n'));
            rest = &body[end + 3..];
            continue;
        }
        match c {
            '"' => in_string = !in_string,
            '\\' if in_string => {
                // An escape: the next character is taken as it is.
                out.push(c);
                rest = &rest[1..];
                if let Some(next) = rest.chars().next() {
                    out.push(next);
                    rest = &rest[next.len_utf8()..];
                }
                continue;
            }
            _ => {}
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    Some(out)
}

/// The length of a console request line that opens the text (`GET
/// /index/_search`), without its line end, or `None`.
fn request_line_len(text: &str) -> Option<usize> {
    let line = text.split('\n').next()?;
    let (method, rest) = line.trim_end_matches('\r').split_once(' ')?;
    let is_method = matches!(method, "GET" | "POST" | "PUT" | "DELETE" | "HEAD");
    let is_path = !rest.is_empty() && !rest.contains(char::is_whitespace);
    (is_method && is_path).then_some(line.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn console_text_becomes_json_on_the_same_lines() {
        let cases: [(&str, &str, Option<&str>); 5] = [
            ("plain JSON", "{\"a\": \"b\"}", None),
            (
                "literal",
                "{\"m\" : \"\"\"{\"a\": \"b\"}\"\"\"}",
                Some("{\"m\" : \"{\\\"a\\\": \\\"b\\\"}\"}"),
            ),
            (
                "literal over lines",
                "{\"m\" : \"\"\"x\ny\"\"\",\n\"n\": 1}",
                Some("{\"m\" : \"x\\ny\"\n,\n\"n\": 1}"),
            ),
            (
                "request line",
                "GET /logs/_search\n{\"hits\": 1}",
                Some("\n{\"hits\": 1}"),
            ),
            (
                "escaped quotes are no literal",
                "GET /x\n{\"m\": \"say \\\"\\\"\"}",
                Some("\n{\"m\": \"say \\\"\\\"\"}"),
            ),
        ];
        for (name, text, want) in cases {
            let got = console_to_json(text);
            assert_eq!(got.as_deref(), want, "{name}");
            if let Some(json) = got {
                assert_eq!(
                    json.matches('\n').count(),
                    text.matches('\n').count(),
                    "{name}: lines kept"
                );
            }
        }
    }
}
