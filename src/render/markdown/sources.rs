//! Sources as footnotes. A source is a file and line or a file and a
//! metric series; written out in a table, three Prometheus selectors made
//! most of a timeline row, and paths and label sets were up to half the
//! draft. The main sections cite a short footnote; the appendix lists each
//! source once, whole.
//!
//! In: the source strings of timeline entries and evidence. Out: `[^3]`
//! references, and at the end the definitions in order of first citation.
//!
//! ```text
//! cite("samples/bulk-export/access.log.gz:36108") -> "[^1]"
//! cite("samples/bulk-export/access.log.gz:36108") -> "[^1]"   (the same source, the same note)
//! definitions("samples/bulk-export/") -> "[^1]: `access.log.gz:36108`\n"
//! ```

use std::fmt::Write;

#[derive(Debug, Default)]
pub(crate) struct Sources {
    cited: Vec<String>,
}

impl Sources {
    /// The footnote reference of `source`; nothing for an empty one.
    pub fn cite(&mut self, source: &str) -> String {
        if source.trim().is_empty() {
            return String::new();
        }
        let at = match self.cited.iter().position(|s| s == source) {
            Some(i) => i,
            None => {
                self.cited.push(source.to_string());
                self.cited.len() - 1
            }
        };
        format!("[^{}]", at + 1)
    }

    /// The references of several sources, side by side.
    pub fn cite_all(&mut self, sources: &[String]) -> String {
        sources.iter().map(|s| self.cite(s)).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.cited.is_empty()
    }

    /// Every cited source, whole but for the inputs' folder (`root`, said
    /// once in the header), as a footnote definition.
    pub fn definitions(&self, root: &str) -> String {
        let mut out = String::new();
        for (i, s) in self.cited.iter().enumerate() {
            let s = super::below(root, s);
            let _ = writeln!(out, "[^{}]: `{}`", i + 1, s.replace('`', "'"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_source_is_one_note() {
        let mut s = Sources::default();
        assert_eq!(s.cite("in/a.log:1"), "[^1]");
        assert_eq!(s.cite("in/b.json (up{job=\"api\"})"), "[^2]");
        assert_eq!(s.cite("in/a.log:1"), "[^1]");
        assert_eq!(s.cite(""), "");
        assert_eq!(
            s.definitions("in/"),
            "[^1]: `a.log:1`\n[^2]: `b.json (up{job=\"api\"})`\n"
        );
        assert_eq!(
            s.definitions(""),
            "[^1]: `in/a.log:1`\n[^2]: `in/b.json (up{job=\"api\"})`\n"
        );
    }
}
