//! The set of known formats: the built-in definitions embedded from
//! `parsers/` at build time, plus any `--formats-dir` adds, and the rule files.

use miette::NamedSource;
use std::fs;
use std::path::Path;

use super::compile::Format;
use super::definition::Definition;
use super::error::{offset_of, FormatError};
use super::rules::{RuleError, Rules};

include!(concat!(env!("OUT_DIR"), "/builtin_parsers.rs"));

/// Data files beside the definitions that are not definitions themselves.
const RULE_FILES: [&str; 7] = [
    "signals.json",
    "metric-roles.json",
    "tenants.json",
    "log-format-variables.json",
    "versions.json",
    "input-names.json",
    // Read by `crate::templates`.
    "templates.json",
];

/// Every format the run knows, specific ones first, and the rules.
#[derive(Debug)]
pub struct Catalogue {
    pub formats: Vec<Format>,
    pub rules: Rules,
}

fn builtin_text(name: &str) -> &'static str {
    BUILTIN
        .iter()
        .find(|(p, _)| *p == name)
        .map(|(_, t)| *t)
        .unwrap_or("")
}

/// Parse and compile one definition file's text.
pub fn load_definition(file: &str, text: &str) -> Result<Format, FormatError> {
    let def: Definition = serde_json::from_str(text).map_err(|e| FormatError::Invalid {
        file: file.to_string(),
        message: e.to_string(),
        src: NamedSource::new(file, text.to_string()),
        span: (offset_of(text, e.line(), e.column()), 1).into(),
    })?;
    Format::compile(def, file, text)
}

impl Catalogue {
    /// The built-in formats and rules.
    pub fn builtin() -> Result<Catalogue, CatalogueError> {
        // Compiling the regexes is most of start-up: the rules on one thread
        // and the definitions on another, while the second core is idle.
        let (rules, formats) = std::thread::scope(|scope| {
            let rules = scope.spawn(|| {
                Rules::from_texts(
                    builtin_text(RULE_FILES[0]),
                    builtin_text(RULE_FILES[1]),
                    builtin_text(RULE_FILES[2]),
                    builtin_text(RULE_FILES[4]),
                    builtin_text(RULE_FILES[5]),
                )
            });
            let formats: Result<Vec<_>, FormatError> = Catalogue::builtin_sources()
                .map(|(file, text)| load_definition(file, text))
                .collect();
            (rules.join(), formats)
        });
        let rules = rules.map_err(|_| CatalogueError::Worker)??;
        let formats = formats?;
        let mut cat = Catalogue { formats, rules };
        cat.order();
        Ok(cat)
    }

    /// Add every `*.json` definition under `dir`; each must pass its samples.
    pub fn load_dir(&mut self, dir: &Path) -> Result<(), FormatError> {
        let mut files = Vec::new();
        collect_json(dir, &mut files).map_err(|e| FormatError::Dir {
            path: dir.display().to_string(),
            message: e.to_string(),
        })?;
        files.sort();
        for path in files {
            let file = path.display().to_string();
            let text = fs::read_to_string(&path).map_err(|e| FormatError::Dir {
                path: file.clone(),
                message: e.to_string(),
            })?;
            let format = load_definition(&file, &text)?;
            format.check_samples(&text)?;
            if let Some(old) = self.formats.iter().find(|f| f.name() == format.name()) {
                return Err(FormatError::Duplicate {
                    name: format.name().to_string(),
                    first: old.file.clone(),
                    second: file,
                });
            }
            self.formats.push(format);
        }
        self.order();
        Ok(())
    }

    /// Specific formats before generic ones; name breaks ties so the order
    /// never depends on how files were listed.
    fn order(&mut self) {
        self.formats.sort_by(|a, b| {
            b.def
                .priority
                .cmp(&a.def.priority)
                .then_with(|| a.name().cmp(b.name()))
        });
    }

    /// The generic reader (of the first `generic` definition): its
    /// continuation shapes serve every format.
    pub fn generic(&self) -> Option<&super::generic::Generic> {
        self.formats.iter().find_map(|f| f.generic.as_deref())
    }

    pub fn find(&self, name: &str) -> Option<usize> {
        self.formats.iter().position(|f| f.name() == name)
    }

    /// The built-in definition texts, for tests and `formats check`.
    pub fn builtin_sources() -> impl Iterator<Item = (&'static str, &'static str)> {
        BUILTIN
            .iter()
            .filter(|(p, _)| !RULE_FILES.contains(p) && !p.starts_with("schema/"))
            .copied()
    }
}

fn collect_json(dir: &Path, out: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_json(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
    Ok(())
}

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum CatalogueError {
    #[error(transparent)]
    #[diagnostic(transparent)]
    Format(#[from] FormatError),
    #[error(transparent)]
    #[diagnostic(transparent)]
    Rules(#[from] RuleError),
    #[error("compiling the built-in rules stopped without a result")]
    #[diagnostic(
        code(postmortem::formats::catalogue),
        help("this is a bug in postmortem; please report it with the command line")
    )]
    Worker,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_definition_compiles_and_passes_its_samples() {
        let cat = Catalogue::builtin().expect("built-in catalogue loads");
        assert!(cat.formats.len() >= 5);
        for (file, text) in Catalogue::builtin_sources() {
            let f = load_definition(file, text).expect("compiles");
            assert!(!f.def.samples.is_empty(), "{file} has no samples");
            if let Err(e) = f.check_samples(text) {
                panic!("{file}: {e}");
            }
        }
    }

    /// The complete example in parsers/README.md must stay a working definition.
    #[test]
    fn the_documented_example_loads_and_passes_its_samples() {
        let doc = include_str!("../../parsers/README.md");
        let start = doc.find("```json").expect("example block") + "```json".len();
        let end = start + doc[start..].find("```").expect("block end");
        let text = &doc[start..end];
        let f = load_definition("parsers/README.md", text).expect("example compiles");
        f.check_samples(text).expect("example samples parse");
    }

    #[test]
    fn a_broken_definition_points_into_the_file() {
        let text = r#"{"name": "x", "description": "d", "kind": "regex", "produces": "log",
            "patterns": ["^(?P<nonsense>.*)$"], "samples": []}"#;
        match load_definition("x.json", text) {
            Err(FormatError::UnknownRole { role, span, .. }) => {
                assert_eq!(role, "nonsense");
                assert!(span.offset() > 0);
            }
            other => panic!("expected an unknown-role error, got {other:?}"),
        }
        let bad_json = "{\"name\": \"x\",\n  \"kind\": 3}";
        match load_definition("y.json", bad_json) {
            Err(FormatError::Invalid { span, .. }) => assert!(span.offset() > 0),
            other => panic!("expected invalid, got {other:?}"),
        }
    }
}
