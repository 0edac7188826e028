//! The format families the writers know, per source kind, and the platforms they fit.
//!
//! In: nothing (tables); out: every family with its stable name (used in file names, the plan
//! and `Force`), and which families a platform or a language would realistically produce.

/// Where the service runs; it decides how instances are named (pod, ECS task, VM host) and
/// which orchestrator records exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Platform {
    Kubernetes,
    Ecs,
    Vm,
}

/// The application's language, guessed from its log lines (see `NEEDS.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    Java,
    Python,
    Go,
    Node,
    Ruby,
    Unknown,
}

macro_rules! family {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident => $s:literal,)* }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $($(#[$vm])* $v,)* }
        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$v,)*];
            pub fn name(self) -> &'static str {
                match self { $($name::$v => $s,)* }
            }
        }
    };
}

family!(
    /// The load balancer's (or the service's own) request log.
    AccessFamily {
        /// nginx `combined` + `$request_time $upstream_response_time $upstream_addr`.
        NginxTimed => "nginx-timed",
        /// nginx with a key=value tail (`rt=`, `uct=` ... or Amplify's `main_ext`).
        NginxKv => "nginx-kv",
        /// ingress-nginx default `upstreaminfo`.
        IngressNginx => "ingress-nginx",
        Alb => "aws-alb",
        /// HAProxy HTTP log behind a syslog prefix.
        Haproxy => "haproxy",
        /// Envoy's default format.
        Envoy => "envoy",
        /// Istio's default sidecar format.
        Istio => "istio",
        TraefikJson => "traefik-json",
        TraefikClf => "traefik-clf",
        /// GCP HTTP(S) load balancer entries (`httpRequest`).
        GcpLb => "gcp-lb",
        /// The service's own JSON request log (slog-style flat or pino-http nested).
        JsonAccess => "json-access",
    }
);

family!(
    /// Application log lines.
    AppFamily {
        /// ecs-logging-java (logback/log4j2 ECS layout).
        EcsJson => "ecs-json",
        /// logstash-logback-encoder.
        LogstashJson => "logstash-json",
        /// Spring Boot's default console pattern.
        SpringText => "spring-text",
        /// Python `%(asctime)s %(levelname)s %(name)s: %(message)s`.
        PythonText => "python-text",
        PythonJson => "python-json-logger",
        Structlog => "structlog",
        Logrus => "logrus-json",
        Zap => "zap",
        /// logrus' text formatter (logfmt).
        Logfmt => "logfmt",
        /// Go's standard `log` with a `[LEVEL]` prefix, as HashiCorp tools write.
        GoLog => "go-log",
        Pino => "pino",
        Bunyan => "bunyan",
        /// Ruby `Logger` as Rails writes it.
        Rails => "rails",
    }
);

family!(
    MetricsFamily {
        PromRange => "prom-range",
        PromText => "prom-text",
        CloudWatch => "cloudwatch",
        Datadog => "datadog",
        Csv => "csv",
        GrafanaCsv => "grafana-csv",
    }
);

family!(
    /// Orchestrator records and change records.
    EventsFamily {
        /// `kubectl get events -o json` (a `List`).
        K8sList => "k8s-events-list",
        /// The same events, one object per line.
        K8sLines => "k8s-events-lines",
        /// `aws ecs describe-services`.
        EcsServices => "ecs-describe-services",
        /// `journalctl` short format from the VMs.
        Journal => "journal",
        /// A plain deploy/change log.
        DeployLog => "deploy-log",
        HelmHistory => "helm-history",
        /// `gh api repos/OWNER/REPO/deployments`.
        GithubDeployments => "github-deployments",
        LaunchDarkly => "launchdarkly-audit",
        Unleash => "unleash-events",
    }
);

family!(
    /// Wrappers a log platform or runtime puts around app log lines.
    Envelope {
        DockerJson => "docker-json-file",
        Cri => "cri",
        /// `kubectl logs --timestamps`.
        KubectlTs => "kubectl-timestamps",
        /// `logcli query --output=jsonl`.
        Loki => "loki-jsonl",
        /// `aws logs filter-log-events`.
        CloudWatchLogs => "cloudwatch-logs",
    }
);

impl Platform {
    pub const ALL: [Platform; 3] = [Platform::Kubernetes, Platform::Ecs, Platform::Vm];
    pub fn name(self) -> &'static str {
        match self {
            Platform::Kubernetes => "kubernetes",
            Platform::Ecs => "ecs",
            Platform::Vm => "vm",
        }
    }
}

impl Lang {
    pub fn name(self) -> &'static str {
        match self {
            Lang::Java => "java",
            Lang::Python => "python",
            Lang::Go => "go",
            Lang::Node => "node",
            Lang::Ruby => "ruby",
            Lang::Unknown => "unknown",
        }
    }
}

impl EventsFamily {
    /// Whether its records show a failed health check: a pod's `Unhealthy`,
    /// an ECS task failing its checks. A host's journal and change logs do
    /// not.
    pub fn shows_probes(self) -> bool {
        matches!(
            self,
            EventsFamily::K8sList | EventsFamily::K8sLines | EventsFamily::EcsServices
        )
    }
}

impl AccessFamily {
    /// Families a stack on `p` would put in front of the service.
    pub fn fits(self, p: Platform) -> bool {
        use AccessFamily::*;
        match p {
            Platform::Kubernetes => !matches!(self, Haproxy),
            Platform::Ecs => matches!(self, Alb | Envoy | JsonAccess | NginxTimed | NginxKv),
            Platform::Vm => !matches!(self, IngressNginx | Istio),
        }
    }

    /// Whether the format logs the load balancer's health checks (ALB, HAProxy, Envoy,
    /// Traefik and GCP keep their own checks out of the access log; nginx proxies an outer
    /// balancer's checks and the service's own log sees the kubelet's probes).
    pub fn logs_health_checks(self) -> bool {
        matches!(
            self,
            AccessFamily::NginxTimed | AccessFamily::NginxKv | AccessFamily::JsonAccess
        )
    }

    /// Whether the format can carry request headers (for a tenant header).
    pub fn logs_headers(self) -> bool {
        matches!(self, AccessFamily::TraefikJson | AccessFamily::JsonAccess)
    }
}

impl AppFamily {
    pub fn lang(self) -> Lang {
        use AppFamily::*;
        match self {
            EcsJson | LogstashJson | SpringText => Lang::Java,
            PythonText | PythonJson | Structlog => Lang::Python,
            Logrus | Zap | Logfmt | GoLog => Lang::Go,
            Pino | Bunyan => Lang::Node,
            Rails => Lang::Ruby,
        }
    }

    /// Whether each line names its host or pod.
    pub fn has_host(self) -> bool {
        matches!(
            self,
            AppFamily::LogstashJson | AppFamily::Pino | AppFamily::Bunyan
        )
    }

    /// Whether its timestamps carry no zone (then `--input-tz` is needed for local time).
    pub fn zoneless(self) -> bool {
        use AppFamily::*;
        matches!(self, SpringText | PythonText | PythonJson | GoLog | Rails)
    }
}

impl MetricsFamily {
    pub fn fits(self, p: Platform) -> bool {
        !(p == Platform::Ecs && matches!(self, MetricsFamily::PromRange | MetricsFamily::PromText))
    }
}

impl EventsFamily {
    /// The orchestrator families for a platform (one of them carries `World::events`).
    pub fn orchestrator(p: Platform) -> &'static [EventsFamily] {
        match p {
            Platform::Kubernetes => &[EventsFamily::K8sList, EventsFamily::K8sLines],
            Platform::Ecs => &[EventsFamily::EcsServices],
            Platform::Vm => &[EventsFamily::Journal],
        }
    }
}

impl Envelope {
    pub fn fits(self, p: Platform) -> bool {
        use Envelope::*;
        match p {
            Platform::Kubernetes => matches!(self, DockerJson | Cri | KubectlTs | Loki),
            Platform::Ecs => matches!(self, CloudWatchLogs),
            Platform::Vm => matches!(self, DockerJson | Loki),
        }
    }

    /// Whether one file holds every instance (else one file per instance).
    pub fn merged(self) -> bool {
        matches!(self, Envelope::Loki | Envelope::CloudWatchLogs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_per_kind() {
        let mut names: Vec<&str> = AccessFamily::ALL.iter().map(|f| f.name()).collect();
        names.extend(AppFamily::ALL.iter().map(|f| f.name()));
        names.extend(MetricsFamily::ALL.iter().map(|f| f.name()));
        names.extend(EventsFamily::ALL.iter().map(|f| f.name()));
        names.extend(Envelope::ALL.iter().map(|f| f.name()));
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n);
    }

    #[test]
    fn every_platform_has_families_of_every_kind() {
        for p in Platform::ALL {
            assert!(
                AccessFamily::ALL.iter().filter(|f| f.fits(p)).count() >= 3,
                "{p:?}"
            );
            assert!(
                MetricsFamily::ALL.iter().filter(|f| f.fits(p)).count() >= 3,
                "{p:?}"
            );
            assert!(!EventsFamily::orchestrator(p).is_empty());
            assert!(Envelope::ALL.iter().any(|e| e.fits(p)));
        }
    }
}
