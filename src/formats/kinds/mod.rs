//! Format kinds that a regex or a JSON field mapping cannot express (CSV
//! with a header, Prometheus API documents, ...): one small module each,
//! registered in [`extractor`]. Each turns a line or a JSON document (or,
//! for a syntax read whole such as YAML, the input's text, line by line)
//! into the same [`Fields`] the data-driven kinds give, so parsing
//! downstream is one path for every format.
//!
//! Adding a kind: a variant in `DefinitionKind` (definition.rs), a module
//! here implementing [`Extractor`], one arm in [`extractor`], and a data file
//! under `parsers/` that uses it, with samples.

mod argocd;
mod azure_monitor;
mod capture;
mod cloudwatch;
mod columns;
pub(crate) mod csv_rows;
mod datadog;
mod ecs;
mod elb;
mod gcp_monitoring;
mod graphite;
mod heroku;
mod influx;
mod k8s_pod;
mod logfmt;
mod metrics_csv;
mod mysql_slow;
mod otlp_logs;
mod pg_activity;
mod pgbouncer_show;
mod postgres_csvlog;
mod postgres_log;
mod prometheus;
mod prometheus_text;
mod victoria;

use serde_json::Value;
use std::borrow::Cow;

use super::compile::{Fields, Format};
use super::definition::DefinitionKind;
use super::role::Role;

pub use columns::ColumnsSpec;

/// Why a line or document gave no record.
pub type Skip = &'static str;

/// The reason a blank line is skipped, for kinds whose syntax has none.
pub const BLANK: Skip = "blank line";

/// What one line gives: its records, none (`Ok(vec![])`), or why it was skipped.
pub type Read = Result<Vec<Fields<'static>>, Skip>;

/// What each line of a text gives, one entry per line.
pub type Lines = Vec<Read>;

/// Reads one input of a code kind. A fresh extractor is made per input, so
/// it may keep state (a CSV header, the current metric family).
pub trait Extractor: Send {
    /// Records in one physical line. `Ok(vec![])` means the line was
    /// understood but holds no record (a header, a comment). Blank lines are
    /// passed too (a quoted CSV field may hold one): return `Err(BLANK)` for
    /// those the syntax has no use for.
    fn line<'a>(&mut self, line: &'a str) -> Result<Vec<Fields<'a>>, Skip>;

    /// Whether the kind's syntax is read whole (YAML, whose documents span
    /// lines and only parse as a whole): the driver then hands the whole
    /// input to [`Extractor::text`] instead of each line to [`Extractor::line`].
    fn whole_text(&self) -> bool {
        false
    }

    /// What each line of `text` (the input's lines joined by `\n`) gives, as
    /// [`Extractor::line`] would, a record on the line it is placed on: one
    /// entry per line, in order. By default, each line read in turn.
    fn text(&mut self, text: &str) -> Lines {
        text.split('\n')
            .map(|l| {
                self.line(l)
                    .map(|recs| recs.into_iter().map(Fields::into_owned).collect())
            })
            .collect()
    }

    /// Records in one whole JSON document (pretty-printed inputs).
    fn document<'a>(&mut self, doc: &'a Value) -> Result<Vec<Fields<'a>>, Skip> {
        let _ = doc;
        Err("this format does not read JSON documents")
    }

    /// For inputs whose records span lines: how well the head's text looks
    /// like this kind (0..=1). Line-oriented kinds are scored by [`Extractor::line`].
    fn sniff(&self, head: &str) -> f64 {
        let _ = head;
        0.0
    }

    /// Asked right after [`Extractor::line`] or [`Extractor::document`] gave
    /// no record: `Some(reason)` when the line held data that cannot be put
    /// on the timeline (a sample without a timestamp), `None` for a header
    /// or a comment. Such lines are parsed, and counted under the reason.
    fn unplaced(&mut self) -> Option<Skip> {
        None
    }

    /// Records still held at the end of the input (the last capture of a
    /// snapshot that is summed over rows). They count like the records of
    /// the input's last line.
    fn finish(&mut self) -> Vec<Fields<'static>> {
        Vec::new()
    }

    /// Lines of a record still open at the end of the input (a quoted CSV
    /// field never closed: the input was cut inside it). They were counted
    /// as read while they waited; the end makes them skipped.
    fn open_lines(&self) -> u64 {
        0
    }
}

/// The extractor of a code kind, or `None` for the data-driven kinds
/// (`regex`, `json`), which the format reads itself.
pub fn extractor(format: &Format) -> Option<Box<dyn Extractor>> {
    let def = &format.def;
    Some(match def.kind {
        DefinitionKind::Regex
        | DefinitionKind::Json
        | DefinitionKind::Envelope
        | DefinitionKind::Generic => return None,
        DefinitionKind::PrometheusMatrix => Box::new(prometheus::Matrix),
        DefinitionKind::PrometheusText => Box::<prometheus_text::Text>::default(),
        DefinitionKind::Logfmt => Box::new(logfmt::Logfmt::new(def)),
        DefinitionKind::HerokuMetrics => Box::<heroku::Heroku>::default(),
        DefinitionKind::PostgresCsvlog => Box::<postgres_csvlog::Csvlog>::default(),
        DefinitionKind::MetricsCsv => Box::<metrics_csv::MetricsCsv>::default(),
        DefinitionKind::PgStatActivity => Box::<pg_activity::PgActivity>::default(),
        DefinitionKind::PgbouncerShow => Box::<pgbouncer_show::Show>::default(),
        DefinitionKind::CloudwatchMetrics => Box::new(cloudwatch::Metrics),
        DefinitionKind::DatadogQuery => Box::new(datadog::Query),
        DefinitionKind::EcsEvents => Box::new(ecs::Events),
        DefinitionKind::ElbTargetHealth => Box::<elb::TargetHealth>::default(),
        DefinitionKind::K8sPodStatus => Box::<k8s_pod::PodStatus>::default(),
        DefinitionKind::ArgocdHistory => Box::new(argocd::History),
        DefinitionKind::Columns => Box::new(columns::Columns::new(def)),
        DefinitionKind::MysqlSlow => Box::<mysql_slow::SlowLog>::default(),
        DefinitionKind::OtlpLogs => Box::new(otlp_logs::Otlp::new(def)),
        DefinitionKind::PostgresLog => Box::new(postgres_log::PostgresLog::new(format)),
        DefinitionKind::GraphiteRender => Box::new(graphite::Render::new(def)),
        DefinitionKind::InfluxLine => Box::<influx::LineProtocol>::default(),
        DefinitionKind::VictoriametricsExport => Box::new(victoria::Export),
        DefinitionKind::GcpTimeSeries => Box::new(gcp_monitoring::TimeSeries),
        DefinitionKind::AzureMetrics => Box::new(azure_monitor::Metrics),
    })
}

/// A series' identity: the name and its labels sorted by key, in PromQL
/// spelling (`up{instance="a",job="b"}`), so one series from any kind has
/// one key.
pub fn series_key<'l>(name: &str, labels: impl IntoIterator<Item = (&'l str, &'l str)>) -> String {
    let mut labels: Vec<(&str, &str)> = labels.into_iter().collect();
    if labels.is_empty() {
        return name.to_string();
    }
    labels.sort();
    let body: Vec<String> = labels
        .iter()
        .map(|(k, v)| format!("{k}=\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\"")))
        .collect();
    format!("{name}{{{}}}", body.join(","))
}

/// One metric sample's fields: ts, metric, value, series (from `labels`) and
/// each label.
pub fn metric_record<'a>(
    ts: Cow<'a, str>,
    name: Cow<'a, str>,
    value: Cow<'a, str>,
    labels: &[(Cow<'a, str>, Cow<'a, str>)],
) -> Fields<'a> {
    let mut f = Fields::default();
    f.set(
        Role::Series,
        Cow::Owned(series_key(
            &name,
            labels.iter().map(|(k, v)| (k.as_ref(), v.as_ref())),
        )),
    );
    f.set(Role::Ts, ts);
    f.set(Role::Metric, name);
    f.set(Role::Value, value);
    for (k, v) in labels {
        f.set_label(k.clone(), v.clone());
    }
    f
}

/// JSON number or numeric string -> its text; `null` and anything else -> `None`.
pub fn number_text(v: &Value) -> Option<Cow<'_, str>> {
    match v {
        Value::Number(n) => Some(Cow::Owned(n.to_string())),
        Value::String(s) => Some(Cow::Borrowed(s.as_str())),
        _ => None,
    }
}

/// `Extractor::line` for kinds whose records come from a JSON document that
/// may sit on one line: parse it, take its records, and own their text (the
/// line's value does not outlive the call).
pub(crate) fn json_document_line(
    line: &str,
    records: impl for<'v> Fn(&'v Value) -> Result<Vec<Fields<'v>>, Skip>,
) -> Result<Vec<Fields<'static>>, Skip> {
    if line.trim().is_empty() {
        return Err(BLANK);
    }
    let doc: Value = serde_json::from_str(line).map_err(|_| "not valid JSON")?;
    Ok(records(&doc)?.into_iter().map(Fields::into_owned).collect())
}

/// Each metric record as `ts series value`, for the kinds' tests.
#[cfg(test)]
pub(crate) fn point_summary(recs: &[Fields<'_>]) -> Vec<String> {
    recs.iter()
        .map(|r| {
            format!(
                "{} {} {}",
                r.get(Role::Ts).unwrap_or(""),
                r.get(Role::Series).unwrap_or(""),
                r.get(Role::Value).unwrap_or("")
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_keys_sort_and_escape_labels() {
        type Case = (
            &'static str,
            Vec<(&'static str, &'static str)>,
            &'static str,
        );
        let cases: [Case; 3] = [
            ("bare", vec![], "up"),
            (
                "sorted",
                vec![("job", "b"), ("instance", "a")],
                "up{instance=\"a\",job=\"b\"}",
            ),
            (
                "escaped",
                vec![("p", "C:\\x \"y\"")],
                "up{p=\"C:\\\\x \\\"y\\\"\"}",
            ),
        ];
        for (name, labels, want) in cases {
            assert_eq!(series_key("up", labels), want, "{name}");
        }
    }
}
