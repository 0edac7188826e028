//! `analyze --assets DIR`: the report's charts in, one SVG file per chart
//! written into DIR out, with the path by which the Markdown links them
//! (relative to the report file when there is one, so the pair can be
//! moved together).
//!
//! ```text
//! --assets out/charts -o out/report.md -> out/charts/chart-1-requests.svg, ...; link "charts"
//! ```

use std::fs;
use std::path::{Component, Path};

use super::svg;
use crate::cli::CliError;
use crate::report::Charts;

/// Write every chart; the link prefix for the Markdown comes back.
pub fn write(charts: &Charts, dir: &Path, report: Option<&Path>) -> Result<String, CliError> {
    let fail = |path: &Path, e: std::io::Error| CliError::Output {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    fs::create_dir_all(dir).map_err(|e| fail(dir, e))?;
    if let Some(axis) = &charts.axis {
        for (i, c) in charts.charts.iter().enumerate() {
            let path = dir.join(svg::file_name(i, c));
            fs::write(&path, svg::chart(c, axis)).map_err(|e| fail(&path, e))?;
        }
    }
    Ok(link(dir, report))
}

/// `dir` as seen from the report's folder; as given when there is no report
/// file (standard output) or either path cannot be resolved.
fn link(dir: &Path, report: Option<&Path>) -> String {
    let as_given = || slashed(dir.components());
    let Some(report) = report else {
        return as_given();
    };
    let base = report
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    match (fs::canonicalize(dir), fs::canonicalize(base)) {
        (Ok(d), Ok(b)) => relative(&d, &b),
        _ => as_given(),
    }
}

/// `target` relative to `base`, both absolute and resolved.
fn relative(target: &Path, base: &Path) -> String {
    let t: Vec<Component> = target.components().collect();
    let b: Vec<Component> = base.components().collect();
    let common = t.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".to_string(); b.len() - common];
    parts.extend(
        t.iter()
            .skip(common)
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

/// Components joined with `/`, the separator Markdown links use everywhere.
fn slashed<'a>(components: impl Iterator<Item = Component<'a>>) -> String {
    let parts: Vec<String> = components
        .filter(|c| !matches!(c, Component::CurDir))
        .map(|c| match c {
            Component::RootDir => String::new(),
            c => c.as_os_str().to_string_lossy().into_owned(),
        })
        .collect();
    match parts.as_slice() {
        [] => ".".to_string(),
        [root] if root.is_empty() => "/".to_string(),
        _ => parts.join("/"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_relative_to_the_report() {
        let cases = [
            ("/a/b/assets", "/a/b", "assets"),
            ("/a/assets", "/a/b", "../assets"),
            ("/a/b", "/a/b", "."),
            ("/x/y", "/a/b", "../../x/y"),
        ];
        for (target, base, want) in cases {
            assert_eq!(relative(Path::new(target), Path::new(base)), want);
        }
    }

    #[test]
    fn without_a_report_file_the_folder_is_linked_as_given() {
        assert_eq!(link(Path::new("./out/charts/"), None), "out/charts");
        assert_eq!(link(Path::new("/tmp/c"), None), "/tmp/c");
    }

    #[test]
    fn the_files_are_written_and_the_link_found() {
        let scratch = tempfile::tempdir().expect("a scratch directory");
        let root = scratch.path();
        let dir = root.join("charts");
        let report = root.join("report.md");
        let charts = Charts::default();
        assert_eq!(
            write(&charts, &dir, Some(&report)).ok().as_deref(),
            Some("charts")
        );
        assert!(dir.is_dir());
    }
}
