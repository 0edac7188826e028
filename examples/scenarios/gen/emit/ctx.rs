//! What every writer shares: the world, the platform, the servers' zone, each source's clock,
//! and the ids an instance goes by in different tools.
//!
//! In: the `World` and the drawn platform; out: [`Ctx`] (read-only for writers) with one
//! [`Ids`] per instance (pod, IP:port, host, ECS task and host, container id ...) and
//! [`Scheme`], the ways a source can name an instance.

use super::family::{Lang, Platform};
use super::tenant::TenantPlan;
use crate::gen::facts::{Ms, World};
use crate::gen::rng::Rng;
use crate::gen::time::Zone;

/// A source's clock: the zone it writes local times in and its skew against true time.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    pub zone: Zone,
    pub skew_ms: Ms,
}

impl Clock {
    /// The time this source's clock shows at true time `t`.
    pub fn at(&self, t: Ms) -> Ms {
        t + self.skew_ms
    }
    /// The zone offset for a stamp taken at true time `t`.
    pub fn off(&self, t: Ms) -> Ms {
        self.zone.offset_ms(self.at(t))
    }
}

/// How a source names an instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scheme {
    /// `api-7c9d8b6f5-k2xqp`
    Pod,
    /// `10.42.1.11:8080`
    IpPort,
    /// `10.42.1.11`
    Ip,
    /// The VM's host name (`web-3`).
    Host,
    /// An ECS task's host name (`ip-10-0-1-21.us-east-1.compute.internal`).
    EcsHost,
    /// An ECS task id (32 hex).
    TaskId,
    /// An EC2 instance id (`i-0abc...`).
    Ec2Id,
}

impl Scheme {
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Pod => "pod",
            Scheme::IpPort => "ip:port",
            Scheme::Ip => "ip",
            Scheme::Host => "host",
            Scheme::EcsHost => "ecs-host",
            Scheme::TaskId => "task-id",
            Scheme::Ec2Id => "ec2-instance-id",
        }
    }

    /// Schemes naming the same thing in another spelling (an IP with or without its port)
    /// need no record to link them.
    pub fn class(self) -> Scheme {
        match self {
            Scheme::IpPort | Scheme::Ip => Scheme::Ip,
            s => s,
        }
    }
}

/// The ids one instance goes by, drawn once so every writer agrees.
#[derive(Clone, Debug)]
pub struct Ids {
    /// Docker/containerd container id (64 hex).
    pub container_id: String,
    pub pod_uid: String,
    /// `ip-10-0-1-21.us-east-1.compute.internal`
    pub ecs_host: String,
    /// EC2 instance id of the VM (`i-0` + 16 hex).
    pub ec2_id: String,
    /// The main process id when the World gives none.
    pub pid: u32,
}

pub struct Ctx<'a> {
    pub w: &'a World,
    pub platform: Platform,
    pub lang: Lang,
    /// The servers' local zone.
    pub zone: Zone,
    /// The zone of every zone-less timestamp any writer prints (one zone for all of them, so
    /// one `--input-tz` reads them all): the servers' zone on VMs, often UTC in containers.
    pub zoneless: Zone,
    pub ids: Vec<Ids>,
    pub tenant: TenantPlan,
    /// AWS region / account used in ARNs and host names.
    pub region: &'static str,
    pub account: String,
    /// Cluster name (Kubernetes, ECS).
    pub cluster: String,
}

impl<'a> Ctx<'a> {
    pub fn new(
        w: &'a World,
        platform: Platform,
        lang: Lang,
        zone: Zone,
        tenant: TenantPlan,
        rng: &mut Rng,
    ) -> Ctx<'a> {
        let region = rng.pick(&["us-east-1", "us-west-2", "eu-west-1", "ap-south-1"]);
        let ids = w
            .instances
            .iter()
            .map(|inst| Ids {
                container_id: rng.hex(64),
                pod_uid: rng.uuid(),
                ecs_host: format!(
                    "ip-{}.{}.compute.internal",
                    inst.ip.replace('.', "-"),
                    region
                ),
                ec2_id: format!("i-0{}", rng.hex(16)),
                pid: rng.range(7, 4000) as u32,
            })
            .collect();
        let account = format!("{}", rng.range(100_000_000_000, 999_999_999_999));
        let cluster = format!(
            "{}-{}",
            rng.pick(&["prod", "production", "main", "live"]),
            rng.pick(&["eks", "cluster", "1", "blue"])
        );
        Ctx {
            w,
            platform,
            lang,
            zone,
            zoneless: zone,
            ids,
            tenant,
            region,
            account,
            cluster,
        }
    }

    /// Instance `i` as `scheme` spells it.
    pub fn name(&self, i: usize, scheme: Scheme) -> String {
        let inst = &self.w.instances[i];
        match scheme {
            Scheme::Pod => inst.pod.clone(),
            Scheme::IpPort => format!("{}:{}", inst.ip, inst.port),
            Scheme::Ip => inst.ip.clone(),
            Scheme::Host => inst.host.clone(),
            Scheme::EcsHost => self.ids[i].ecs_host.clone(),
            Scheme::TaskId => inst.task_id.clone(),
            Scheme::Ec2Id => self.ids[i].ec2_id.clone(),
        }
    }

    /// How the app's own processes call themselves (`$HOSTNAME`): the pod on Kubernetes,
    /// the task's host name on ECS, the VM's name on VMs.
    pub fn self_scheme(&self) -> Scheme {
        match self.platform {
            Platform::Kubernetes => Scheme::Pod,
            Platform::Ecs => Scheme::EcsHost,
            Platform::Vm => Scheme::Host,
        }
    }

    /// The main process id of instance `i` in log line `pid` (the World's when it has one).
    pub fn pid(&self, i: usize, world_pid: u32) -> u32 {
        if world_pid != 0 {
            world_pid
        } else if self.platform == Platform::Kubernetes {
            // PID 1 in its own container.
            1
        } else {
            self.ids[i].pid
        }
    }

    /// The container name of the service (`api`).
    pub fn container(&self) -> &str {
        &self.w.service
    }
}
