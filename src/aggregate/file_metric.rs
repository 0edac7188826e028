//! A metric named by its file: a dashboard's export (a Grafana panel's
//! series joined by time) is one file per metric, named for it, with one
//! column per instance. Its columns name no metric, so the file does.
//!
//! In: a metric sample and the metric its input's file is named for (with
//! that metric's role). Out: the sample renamed, its column its instance.
//!
//! ```text
//! grafana/pgbouncer_pools_client_waiting_connections.csv
//! "Time","10.42.9.25:8000"          -> pgbouncer_pools_client_waiting_connections{instance="10.42.9.25:8000"}
//! 1763374803511,14                     (db_connections_waiting)
//! ```

use std::sync::Arc;

use crate::event::{MetricRole, MetricSample};

/// Rename a sample of input `file.0` whose column names neither a metric
/// (no role) nor an instance: its name is the column, an instance.
pub(super) fn name_by_file(m: &mut MetricSample, file: &(u32, Arc<str>, MetricRole)) {
    let (input, metric, role) = file;
    if *input != m.origin.input || m.role.is_some() || m.instance.is_some() {
        return;
    }
    let instance = std::mem::take(&mut m.name);
    m.series = format!("{metric}{{instance=\"{instance}\"}}");
    m.name = metric.to_string();
    m.role = Some(*role);
    m.instance = Some(instance);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Origin;

    fn sample(input: u32, name: &str, role: Option<MetricRole>) -> MetricSample {
        MetricSample {
            ts: 0,
            origin: Origin { input, line: 2 },
            name: name.to_string(),
            role,
            value: 14.0,
            instance: None,
            series: name.to_string(),
            period_start: false,
        }
    }

    #[test]
    fn a_column_of_a_file_named_for_a_metric_is_its_instance() {
        let file = (
            3,
            Arc::from("pgbouncer_pools_client_waiting_connections"),
            MetricRole::DbConnectionsWaiting,
        );
        let mut m = sample(3, "10.42.9.25:8000", None);
        name_by_file(&mut m, &file);
        assert_eq!(m.name, "pgbouncer_pools_client_waiting_connections");
        assert_eq!(m.instance.as_deref(), Some("10.42.9.25:8000"));
        assert_eq!(m.role, Some(MetricRole::DbConnectionsWaiting));
        assert_eq!(
            m.series,
            "pgbouncer_pools_client_waiting_connections{instance=\"10.42.9.25:8000\"}"
        );
        // A column that names its own metric keeps it; another input's
        // samples are not this file's.
        let mut own = sample(
            3,
            "pg_stat_database_numbackends",
            Some(MetricRole::DbConnectionsInUse),
        );
        name_by_file(&mut own, &file);
        assert_eq!(own.name, "pg_stat_database_numbackends");
        let mut other = sample(4, "web-0", None);
        name_by_file(&mut other, &file);
        assert_eq!((other.name.as_str(), other.instance), ("web-0", None));
    }
}
