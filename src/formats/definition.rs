//! A format definition as written in `parsers/**/*.json`: the data that says
//! how to read one kind of line or document. Loaded with serde; compiled into
//! a [`crate::formats::Format`] by `compile.rs`.

use serde::Deserialize;
use std::collections::BTreeMap;

use super::role::Role;

/// How records are found in an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DefinitionKind {
    /// One record per line, matched by one of `patterns` (named captures are roles).
    Regex,
    /// JSON records (one per line, or documents, optionally under `envelope`),
    /// with `fields` mapping roles to candidate keys.
    Json,
    /// A Prometheus HTTP API `query_range`/`query` response (code: `kinds/prometheus.rs`).
    PrometheusMatrix,
    /// A platform's wrapper around log lines (Docker json-file, CRI,
    /// `kubectl logs --timestamps`, Loki, CloudWatch Logs): `patterns` or
    /// `fields` give `ts`, the inner line as `message`, labels as
    /// `instance`, and CRI's `partial` tag; the inner line is detected and
    /// parsed like any other input (`parse/envelope.rs`).
    Envelope,
    /// The generic reader (`generic/`): any line with a time of a common
    /// shape near its start; the last resort below every specific
    /// definition, its vocabulary under `generic`.
    Generic,
    /// Code kinds, one module each under `kinds/`; `fields` is used by `logfmt` only.
    PrometheusText,
    Logfmt,
    HerokuMetrics,
    PostgresCsvlog,
    MetricsCsv,
    PgStatActivity,
    PgbouncerShow,
    CloudwatchMetrics,
    DatadogQuery,
    EcsEvents,
    ElbTargetHealth,
    K8sPodStatus,
    ArgocdHistory,
    /// A table whose header names the columns (W3C `#Fields:`, `helm
    /// history`): each row read as the object its header names (`kinds/columns.rs`).
    Columns,
    /// MySQL's slow query log: header lines, then the statement (`kinds/mysql_slow.rs`).
    MysqlSlow,
    /// OpenTelemetry OTLP/JSON logs: `resourceLogs` -> `scopeLogs` ->
    /// `logRecords`, attributes by dotted name for `fields` (`kinds/otlp_logs.rs`).
    OtlpLogs,
    /// PostgreSQL's stderr log: `log_line_prefixes` and `patterns`, and a
    /// prefix inferred from the lines when neither reads them (`kinds/postgres_log.rs`).
    PostgresLog,
    /// Graphite render API JSON: `[{target, datapoints: [[value, time]]}]`
    /// (`kinds/graphite.rs`).
    GraphiteRender,
    /// InfluxDB line protocol, one point per line (`kinds/influx.rs`).
    InfluxLine,
    /// VictoriaMetrics `/api/v1/export` JSON lines (`kinds/victoria.rs`).
    VictoriametricsExport,
    /// Google Cloud Monitoring `timeSeries.list` responses (`kinds/gcp_monitoring.rs`).
    GcpTimeSeries,
    /// Azure Monitor metrics list responses (`kinds/azure_monitor.rs`).
    AzureMetrics,
}

impl DefinitionKind {
    pub fn name(self) -> &'static str {
        match self {
            DefinitionKind::Regex => "regex",
            DefinitionKind::Json => "json",
            DefinitionKind::PrometheusMatrix => "prometheus_matrix",
            DefinitionKind::Envelope => "envelope",
            DefinitionKind::Generic => "generic",
            DefinitionKind::PrometheusText => "prometheus_text",
            DefinitionKind::Logfmt => "logfmt",
            DefinitionKind::HerokuMetrics => "heroku_metrics",
            DefinitionKind::PostgresCsvlog => "postgres_csvlog",
            DefinitionKind::MetricsCsv => "metrics_csv",
            DefinitionKind::PgStatActivity => "pg_stat_activity",
            DefinitionKind::PgbouncerShow => "pgbouncer_show",
            DefinitionKind::CloudwatchMetrics => "cloudwatch_metrics",
            DefinitionKind::DatadogQuery => "datadog_query",
            DefinitionKind::EcsEvents => "ecs_events",
            DefinitionKind::ElbTargetHealth => "elb_target_health",
            DefinitionKind::K8sPodStatus => "k8s_pod_status",
            DefinitionKind::ArgocdHistory => "argocd_history",
            DefinitionKind::PostgresLog => "postgres_log",
            DefinitionKind::Columns => "columns",
            DefinitionKind::MysqlSlow => "mysql_slow",
            DefinitionKind::OtlpLogs => "otlp_logs",
            DefinitionKind::GraphiteRender => "graphite_render",
            DefinitionKind::InfluxLine => "influx_line",
            DefinitionKind::VictoriametricsExport => "victoriametrics_export",
            DefinitionKind::GcpTimeSeries => "gcp_time_series",
            DefinitionKind::AzureMetrics => "azure_metrics",
        }
    }
}

/// Which event a record becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Produces {
    Request,
    Log,
    Metric,
    Infra,
}

/// Whether a logged timestamp marks the start or the end of a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimestampMarks {
    #[default]
    Start,
    /// Written when the request completed (nginx `$time_local`): the parser
    /// subtracts the duration to place the request where it began.
    End,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DurationUnit {
    #[default]
    S,
    Ms,
    Us,
    /// Traefik's JSON `Duration` is in nanoseconds.
    Ns,
}

impl DurationUnit {
    /// How a duration in this unit is written after its number (`18ms`).
    pub fn suffix(self) -> &'static str {
        match self {
            DurationUnit::S => "s",
            DurationUnit::Ms => "ms",
            DurationUnit::Us => "us",
            DurationUnit::Ns => "ns",
        }
    }

    pub fn to_ms(self, v: f64) -> f64 {
        match self {
            DurationUnit::S => v * 1000.0,
            DurationUnit::Ms => v,
            DurationUnit::Us => v / 1000.0,
            DurationUnit::Ns => v / 1_000_000.0,
        }
    }
}

/// How an envelope's `message` is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decode {
    /// Base64 of a payload (gzip inside recognised by its magic) that is
    /// read as an input of its own: a Lambda's `awslogs.data`, Firehose
    /// `records[].data`, a Pub/Sub push `message.data`.
    Base64,
}

/// Records of a definition that are recognised but hold no log line: read
/// and skipped with their own reason.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkipRule {
    /// A key whose absence means the record holds no line (`_raw`: a
    /// Splunk statistics row).
    pub missing: String,
    pub reason: String,
}

/// A sample line and the field values it must give.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sample {
    pub line: String,
    /// Role name -> expected raw value (as captured, before conversion).
    #[serde(default)]
    pub expect: BTreeMap<String, String>,
}

/// What a metric point's time stands for (see [`Definition::stamped`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stamped {
    #[default]
    Instant,
    PeriodStart,
}

/// One format definition file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Definition {
    #[serde(rename = "$schema", default)]
    pub schema: Option<String>,
    pub name: String,
    pub description: String,
    pub kind: DefinitionKind,
    pub produces: Produces,
    /// Higher wins a detection tie: specific formats above generic ones.
    #[serde(default)]
    pub priority: i32,
    /// `regex`: variants tried in order; capture names are roles.
    #[serde(default)]
    pub patterns: Vec<String>,
    /// `regex`: nginx `log_format` / Apache `LogFormat` templates, tried
    /// before `patterns` as a fast path (see `template.rs`).
    #[serde(default)]
    pub templates: Vec<String>,
    /// PostgreSQL `log_line_prefix` values, each compiled to a pattern
    /// tried before `patterns` (see `pg_prefix.rs`).
    #[serde(default)]
    pub log_line_prefixes: Vec<String>,
    /// `graphite_render`: path segments after which a dotted name carries
    /// its host (Diamond's `servers.<host>.`): that segment names the
    /// instance.
    #[serde(default)]
    pub host_parents: Vec<String>,
    /// `columns`: where the header is and how cells are separated.
    #[serde(default)]
    pub columns: Option<super::kinds::ColumnsSpec>,
    /// `json`: role -> keys to try in order (`a.b` is a literal dotted key
    /// first, then a nested path).
    #[serde(default)]
    pub fields: BTreeMap<Role, Vec<String>>,
    /// `json`: keys that must all be present for a record to be this format.
    #[serde(default)]
    pub require: Vec<String>,
    /// `json`: keys whose presence means a record is not this format (how a
    /// generic format leaves an access log's records to its own definition).
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Line kinds: a line starting with one of these continues the record
    /// before it (Java stack frames, PostgreSQL's tab-indented DETAIL lines).
    #[serde(default)]
    pub continuation_prefixes: Vec<String>,
    /// `json`: a key holding an array of records (`items` of a Kubernetes List).
    #[serde(default)]
    pub envelope: Option<String>,
    /// `envelope`: how records are written when they are not JSON or lines
    /// (`csv` with a header, `splunk_xml`); each becomes a JSON object.
    #[serde(default)]
    pub syntax: Option<super::tabular::Syntax>,
    /// `json`, `envelope`: records that match but hold no line, skipped
    /// with a reason; detection counts them for half.
    #[serde(default)]
    pub skip: Vec<SkipRule>,
    /// `envelope`: the `message` is an encoded payload, read as an input of
    /// its own (detected, and unwrapped again if it is an envelope).
    #[serde(default)]
    pub decode: Option<Decode>,
    /// strftime formats tried before the built-in forms (RFC 3339, epochs, ...).
    #[serde(default)]
    pub timestamp_formats: Vec<String>,
    #[serde(default)]
    pub timestamp_marks: TimestampMarks,
    #[serde(default)]
    pub duration_unit: DurationUnit,
    /// Why a record without a time cannot be placed, for formats whose
    /// records never carry a wall-clock time (journalctl's boot-relative
    /// seconds); counted under this reason instead of `no timestamp`.
    #[serde(default)]
    pub untimed: Option<String>,
    /// What a metric point's time stands for: the instant it was read
    /// (Prometheus), or the start of the period it sums up (a Datadog
    /// rollup, a CloudWatch period), where a change in its value happened
    /// somewhere in the period after the time written.
    #[serde(default)]
    pub stamped: Stamped,
    /// Fixed values for roles the source does not write (e.g. `level`).
    #[serde(default)]
    pub constants: BTreeMap<Role, String>,
    /// A level as the source writes it -> a level name (Redis's `#` is a
    /// warning, MongoDB's `D2` a debug line).
    #[serde(default)]
    pub levels: BTreeMap<String, String>,
    /// A unit word written after a duration -> `s`, `ms`, `us` or `ns`
    /// (uWSGI's `129 msecs`, `68 micros`).
    #[serde(default)]
    pub duration_units: BTreeMap<String, DurationUnit>,
    /// A status code of the source's own -> the standard one it means (an
    /// ALB's 460, the client closing before the response, is nginx's 499:
    /// read as a 4xx, a stuck backend's timed-out callers were no failure).
    #[serde(default)]
    pub statuses: BTreeMap<String, u16>,
    /// `json`: role -> a template written from several keys of the record
    /// (`"{ref} at {sha}[ by {creator.login}]"`, see `compose.rs`); used
    /// when `fields` gives the role no value.
    #[serde(default)]
    pub compose: BTreeMap<Role, String>,
    /// `generic`: the reader's vocabulary (timestamp shapes, level words,
    /// key names, continuation lines).
    #[serde(default)]
    pub generic: Option<super::generic::GenericSpec>,
    /// Line kinds: a record's message may be a whole line of a format that
    /// produces one of these (an access-log line inside a syslog record);
    /// when one reads it, the record is that line's, its time and instance
    /// filled from this record where the inner line has none.
    #[serde(default)]
    pub wraps: Vec<Produces>,
    #[serde(default)]
    pub samples: Vec<Sample>,
}
