//! The JSON report (`report-json.md`): serde of [`Report`], pretty-printed,
//! with a trailing newline.

use crate::report::Report;

pub fn render(report: &Report) -> String {
    let mut s =
        serde_json::to_string_pretty(report).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}
