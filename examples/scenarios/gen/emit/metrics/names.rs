//! Real metric names per role, per monitoring system and per library or exporter, with the
//! unit each one reports in.
//!
//! In: a role (`MetricRole`), the monitoring system, the pool library and the platform; out:
//! the name, its constant labels or dimensions, the factor from the role's unit (a 0..1
//! utilisation, a count, a rate) to the metric's, and whether it is a cumulative counter.
//! Names from: HikariCP's Micrometer binder, pgbouncer_exporter, Go's `collectors.DBStats`,
//! statsd_exporter for SQLAlchemy pool events, prometheus_exporter (Ruby), cAdvisor,
//! kube-state-metrics, node_exporter's systemd collector, YACE (CloudWatch to Prometheus),
//! RabbitMQ, postgres_exporter, Datadog's Kubernetes/ECS/pgbouncer/SQS integrations,
//! CloudWatch Container Insights, EC2, CWAgent, SQS, RDS and ALB.

use crate::gen::emit::family::{Lang, Platform};
use crate::gen::facts::{MetricRole, World};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum System {
    Prometheus,
    Datadog,
    CloudWatch,
}

/// The connection-pool library whose metrics are exported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolLib {
    Hikari,
    Pgbouncer,
    GoSql,
    SqlAlchemy,
    ActiveRecord,
}

impl PoolLib {
    /// The pool library the World's log lines name (HikariCP, SQLAlchemy's QueuePool,
    /// ActiveRecord, pgx, knex ...), else the language's usual one. Node pools export no
    /// metrics of their own: theirs come from the PgBouncer in front of the database.
    pub fn infer(w: &World, lang: Lang) -> PoolLib {
        for l in w.logs.iter().take(5000) {
            let s = format!("{} {}", l.logger, l.msg);
            let found = [
                (["HikariPool", "hikari"], PoolLib::Hikari),
                (["QueuePool", "sqlalchemy"], PoolLib::SqlAlchemy),
                (["ActiveRecord", "activerecord"], PoolLib::ActiveRecord),
                (["pgxpool", "pgx"], PoolLib::GoSql),
                (["knex", "pg-pool"], PoolLib::Pgbouncer),
            ]
            .into_iter()
            .find(|(words, _)| words.iter().any(|k| s.contains(k)));
            if let Some((_, lib)) = found {
                return lib;
            }
        }
        PoolLib::for_lang(lang)
    }

    pub fn for_lang(lang: Lang) -> PoolLib {
        match lang {
            Lang::Java => PoolLib::Hikari,
            Lang::Python => PoolLib::SqlAlchemy,
            Lang::Go => PoolLib::GoSql,
            Lang::Ruby => PoolLib::ActiveRecord,
            Lang::Node | Lang::Unknown => PoolLib::Pgbouncer,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            PoolLib::Hikari => "hikaricp",
            PoolLib::Pgbouncer => "pgbouncer",
            PoolLib::GoSql => "go-database-sql",
            PoolLib::SqlAlchemy => "sqlalchemy-statsd",
            PoolLib::ActiveRecord => "activerecord",
        }
    }
}

/// Per-instance resource limits, for metrics that report absolute amounts.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub cpu_cores: f64,
    pub mem_bytes: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub name: String,
    /// Constant labels (Prometheus), tags (Datadog) or dimensions (CloudWatch).
    pub labels: Vec<(String, String)>,
    /// Role value * scale = the metric's value.
    pub scale: f64,
    /// A cumulative counter whose rate is the role's value (CPU seconds, requests).
    pub counter: bool,
    /// CloudWatch statistics report sums per period for counts.
    pub sum_per_period: bool,
}

fn spec(name: &str, labels: &[(&str, &str)], scale: f64, counter: bool) -> Option<Spec> {
    Some(Spec {
        name: name.into(),
        labels: labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        scale,
        counter,
        sum_per_period: false,
    })
}

/// The metric a `system` shows for `role`, or `None` when that system does not carry it
/// (a gap the export really has).
pub fn name_for(
    sys: System,
    role: MetricRole,
    lib: PoolLib,
    p: Platform,
    lang: Lang,
    lim: Limits,
    pool: &str,
) -> Option<Spec> {
    use MetricRole::*;
    match sys {
        System::Prometheus => prom(role, lib, p, lim, pool),
        System::Datadog => datadog(role, lib, p, lang, lim, pool),
        System::CloudWatch => cloudwatch(role, lib, p, lim, pool),
    }
    .filter(|_| !(sys != System::Prometheus && role == PoolIdle && lib != PoolLib::Hikari))
}

fn prom(role: MetricRole, lib: PoolLib, p: Platform, lim: Limits, pool: &str) -> Option<Spec> {
    use MetricRole::*;
    use PoolLib::*;
    let db = [("database", "app"), ("user", "app")];
    match (role, lib) {
        (PoolActive, Hikari) => spec("hikaricp_connections_active", &[("pool", pool)], 1.0, false),
        (PoolIdle, Hikari) => spec("hikaricp_connections_idle", &[("pool", pool)], 1.0, false),
        (PoolMax, Hikari) => spec("hikaricp_connections_max", &[("pool", pool)], 1.0, false),
        (PoolPending, Hikari) => spec(
            "hikaricp_connections_pending",
            &[("pool", pool)],
            1.0,
            false,
        ),
        (PoolActive, Pgbouncer) => {
            spec("pgbouncer_pools_server_active_connections", &db, 1.0, false)
        }
        (PoolIdle, Pgbouncer) => spec("pgbouncer_pools_server_idle_connections", &db, 1.0, false),
        (PoolMax, Pgbouncer) => spec(
            "pgbouncer_databases_pool_size",
            &[("name", "app")],
            1.0,
            false,
        ),
        (PoolPending, Pgbouncer) => spec(
            "pgbouncer_pools_client_waiting_connections",
            &db,
            1.0,
            false,
        ),
        (PoolActive, GoSql) => spec(
            "go_sql_in_use_connections",
            &[("db_name", "app")],
            1.0,
            false,
        ),
        (PoolIdle, GoSql) => spec("go_sql_idle_connections", &[("db_name", "app")], 1.0, false),
        (PoolMax, GoSql) => spec(
            "go_sql_max_open_connections",
            &[("db_name", "app")],
            1.0,
            false,
        ),
        // database/sql exports a count of waits, not a waiting gauge.
        (PoolPending, GoSql) => None,
        (PoolActive, SqlAlchemy) => {
            spec("sqlalchemy_pool_checkedout", &[("pool", pool)], 1.0, false)
        }
        (PoolIdle, SqlAlchemy) => spec("sqlalchemy_pool_checkedin", &[("pool", pool)], 1.0, false),
        (PoolMax, SqlAlchemy) => spec("sqlalchemy_pool_size", &[("pool", pool)], 1.0, false),
        (PoolPending, SqlAlchemy) => spec("sqlalchemy_pool_waiting", &[("pool", pool)], 1.0, false),
        (PoolActive, ActiveRecord) => spec(
            "ruby_active_record_connection_pool_busy",
            &[("pool_name", "primary")],
            1.0,
            false,
        ),
        (PoolIdle, ActiveRecord) => spec(
            "ruby_active_record_connection_pool_idle",
            &[("pool_name", "primary")],
            1.0,
            false,
        ),
        (PoolMax, ActiveRecord) => spec(
            "ruby_active_record_connection_pool_size",
            &[("pool_name", "primary")],
            1.0,
            false,
        ),
        (PoolPending, ActiveRecord) => spec(
            "ruby_active_record_connection_pool_waiting",
            &[("pool_name", "primary")],
            1.0,
            false,
        ),
        (Cpu, _) if p == Platform::Vm => {
            spec("process_cpu_seconds_total", &[], lim.cpu_cores, true)
        }
        (Cpu, _) => spec(
            "container_cpu_usage_seconds_total",
            &[],
            lim.cpu_cores,
            true,
        ),
        (Memory, _) if p == Platform::Vm => {
            spec("process_resident_memory_bytes", &[], lim.mem_bytes, false)
        }
        (Memory, _) => spec(
            "container_memory_working_set_bytes",
            &[],
            lim.mem_bytes,
            false,
        ),
        (Restarts, _) if p == Platform::Kubernetes => {
            spec("kube_pod_container_status_restarts_total", &[], 1.0, false)
        }
        (Restarts, _) if p == Platform::Vm => {
            spec("node_systemd_service_restart_total", &[], 1.0, false)
        }
        (Restarts, _) => None,
        (QueueDepth, _) if p == Platform::Vm => spec(
            "rabbitmq_queue_messages_ready",
            &[("queue", "jobs"), ("vhost", "/")],
            1.0,
            false,
        ),
        (QueueDepth, _) => spec(
            "aws_sqs_approximate_number_of_messages_visible_average",
            &[("queue_name", "jobs")],
            1.0,
            false,
        ),
        (RequestsRate, Hikari) => spec("http_server_requests_seconds_count", &[], 1.0, true),
        (RequestsRate, _) => spec("http_requests_total", &[], 1.0, true),
        (DbConnections, _) => spec(
            "pg_stat_database_numbackends",
            &[("datname", "app")],
            1.0,
            false,
        ),
        (JobsProcessed, _) => spec("jobs_processed_total", &[("queue", "jobs")], 1.0, true),
    }
}

fn datadog(
    role: MetricRole,
    lib: PoolLib,
    p: Platform,
    lang: Lang,
    lim: Limits,
    pool: &str,
) -> Option<Spec> {
    use MetricRole::*;
    let hikari = lib == PoolLib::Hikari;
    let db = [("db", "app")];
    match role {
        PoolActive if hikari => spec("hikaricp.connections.active", &[("pool", pool)], 1.0, false),
        PoolIdle if hikari => spec("hikaricp.connections.idle", &[("pool", pool)], 1.0, false),
        PoolMax if hikari => spec("hikaricp.connections.max", &[("pool", pool)], 1.0, false),
        PoolPending if hikari => spec(
            "hikaricp.connections.pending",
            &[("pool", pool)],
            1.0,
            false,
        ),
        PoolActive => spec("pgbouncer.pools.sv_active", &db, 1.0, false),
        PoolIdle => spec("pgbouncer.pools.sv_idle", &db, 1.0, false),
        PoolMax => spec("pgbouncer.databases.pool_size", &db, 1.0, false),
        PoolPending => spec("pgbouncer.pools.cl_waiting", &db, 1.0, false),
        Cpu => match p {
            Platform::Kubernetes => spec(
                "kubernetes.cpu.usage.total",
                &[],
                lim.cpu_cores * 1e9,
                false,
            ),
            Platform::Ecs => spec("ecs.fargate.cpu.percent", &[], 100.0, false),
            Platform::Vm => spec("system.cpu.user", &[], 100.0, false),
        },
        Memory => match p {
            Platform::Kubernetes => {
                spec("kubernetes.memory.working_set", &[], lim.mem_bytes, false)
            }
            Platform::Ecs => spec("ecs.fargate.mem.usage", &[], lim.mem_bytes, false),
            Platform::Vm => spec("system.mem.used", &[], lim.mem_bytes, false),
        },
        Restarts if p == Platform::Kubernetes => {
            spec("kubernetes_state.container.restarts", &[], 1.0, false)
        }
        Restarts => None,
        QueueDepth if p == Platform::Vm => spec(
            "rabbitmq.queue.messages_ready",
            &[("rabbitmq_queue", "jobs")],
            1.0,
            false,
        ),
        QueueDepth => spec(
            "aws.sqs.approximate_number_of_messages_visible",
            &[("queuename", "jobs")],
            1.0,
            false,
        ),
        RequestsRate => {
            let integration = match lang {
                Lang::Java => "servlet",
                Lang::Python => "flask",
                Lang::Node => "express",
                Lang::Ruby => "rack",
                Lang::Go | Lang::Unknown => "http",
            };
            spec(
                &format!("trace.{integration}.request.hits"),
                &[],
                1.0,
                false,
            )
        }
        DbConnections => spec("postgresql.connections", &[("db", "app")], 1.0, false),
        JobsProcessed => spec("app.jobs.processed", &[("queue", "jobs")], 1.0, false),
    }
}

fn cloudwatch(
    role: MetricRole,
    lib: PoolLib,
    p: Platform,
    lim: Limits,
    pool: &str,
) -> Option<Spec> {
    use MetricRole::*;
    let hikari = lib == PoolLib::Hikari;
    let sum = |s: Option<Spec>| {
        s.map(|s| Spec {
            sum_per_period: true,
            ..s
        })
    };
    match role {
        // Micrometer's CloudWatch registry; other pool libraries publish nothing there.
        PoolActive if hikari => spec("hikaricp.connections.active", &[("pool", pool)], 1.0, false),
        PoolMax if hikari => spec("hikaricp.connections.max", &[("pool", pool)], 1.0, false),
        PoolPending if hikari => spec(
            "hikaricp.connections.pending",
            &[("pool", pool)],
            1.0,
            false,
        ),
        PoolIdle if hikari => spec("hikaricp.connections.idle", &[("pool", pool)], 1.0, false),
        PoolActive | PoolMax | PoolPending | PoolIdle => None,
        Cpu => match p {
            Platform::Kubernetes => spec("pod_cpu_utilization", &[], 100.0, false),
            Platform::Ecs => spec("CpuUtilized", &[], lim.cpu_cores * 1024.0, false),
            Platform::Vm => spec("CPUUtilization", &[], 100.0, false),
        },
        Memory => match p {
            Platform::Kubernetes => spec("pod_memory_utilization", &[], 100.0, false),
            Platform::Ecs => spec("MemoryUtilized", &[], lim.mem_bytes / 1_048_576.0, false),
            Platform::Vm => spec("mem_used_percent", &[], 100.0, false),
        },
        Restarts if p == Platform::Kubernetes => {
            spec("pod_number_of_container_restarts", &[], 1.0, false)
        }
        Restarts => None,
        QueueDepth => spec(
            "ApproximateNumberOfMessagesVisible",
            &[("QueueName", "jobs")],
            1.0,
            false,
        ),
        RequestsRate => sum(spec("RequestCountPerTarget", &[], 1.0, false)),
        DbConnections => spec(
            "DatabaseConnections",
            &[("DBInstanceIdentifier", "app-db")],
            1.0,
            false,
        ),
        JobsProcessed => sum(spec(
            "NumberOfMessagesDeleted",
            &[("QueueName", "jobs")],
            1.0,
            false,
        )),
    }
}

/// CloudWatch namespace of a metric name.
pub fn cw_namespace(name: &str, p: Platform) -> &'static str {
    match name {
        n if n.starts_with("hikaricp.") => "Api/Micrometer",
        "pod_cpu_utilization" | "pod_memory_utilization" | "pod_number_of_container_restarts" => {
            "ContainerInsights"
        }
        "CpuUtilized" | "MemoryUtilized" => "ECS/ContainerInsights",
        "CPUUtilization" if p == Platform::Vm => "AWS/EC2",
        "mem_used_percent" => "CWAgent",
        "ApproximateNumberOfMessagesVisible" | "NumberOfMessagesDeleted" => "AWS/SQS",
        "RequestCountPerTarget" => "AWS/ApplicationELB",
        "DatabaseConnections" => "AWS/RDS",
        _ => "Custom",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIM: Limits = Limits {
        cpu_cores: 2.0,
        mem_bytes: 1_073_741_824.0,
    };

    #[test]
    fn every_role_has_a_prometheus_name_on_kubernetes_with_hikari() {
        use MetricRole::*;
        for role in [
            PoolActive,
            PoolIdle,
            PoolMax,
            PoolPending,
            Cpu,
            Memory,
            QueueDepth,
            Restarts,
            RequestsRate,
            DbConnections,
            JobsProcessed,
        ] {
            let s = name_for(
                System::Prometheus,
                role,
                PoolLib::Hikari,
                Platform::Kubernetes,
                Lang::Java,
                LIM,
                "HikariPool-1",
            );
            assert!(s.is_some(), "{role:?}");
        }
    }

    #[test]
    fn known_names() {
        let cases = [
            (
                System::Prometheus,
                MetricRole::PoolActive,
                PoolLib::Hikari,
                Platform::Kubernetes,
                "hikaricp_connections_active",
            ),
            (
                System::Prometheus,
                MetricRole::Restarts,
                PoolLib::Hikari,
                Platform::Kubernetes,
                "kube_pod_container_status_restarts_total",
            ),
            (
                System::Prometheus,
                MetricRole::PoolActive,
                PoolLib::GoSql,
                Platform::Vm,
                "go_sql_in_use_connections",
            ),
            (
                System::CloudWatch,
                MetricRole::QueueDepth,
                PoolLib::Hikari,
                Platform::Ecs,
                "ApproximateNumberOfMessagesVisible",
            ),
            (
                System::Datadog,
                MetricRole::Cpu,
                PoolLib::Pgbouncer,
                Platform::Kubernetes,
                "kubernetes.cpu.usage.total",
            ),
        ];
        for (sys, role, lib, p, want) in cases {
            let s = name_for(sys, role, lib, p, Lang::Java, LIM, "HikariPool-1").map(|s| s.name);
            assert_eq!(s.as_deref(), Some(want));
        }
        assert!(name_for(
            System::Prometheus,
            MetricRole::PoolPending,
            PoolLib::GoSql,
            Platform::Vm,
            Lang::Go,
            LIM,
            "p"
        )
        .is_none());
    }
}
