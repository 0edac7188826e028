//! The writers: a simulated [`World`] -> the files an engineer would export after the
//! incident, in real formats, with the user's `postmortem analyze` arguments and a plan of
//! every choice.
//!
//! In: the World, the PRNG (every random choice comes from it), the output directory and
//! [`Force`] (choices pinned by a test); out: the files on disk and [`Written`]. One way:
//! `choose` draws the platform, families, envelope, layout, zones and links; then each source
//! writer (`access`, `app`, `metrics`, `events`) turns the World into file bodies; `files`
//! compresses some and writes them. Same World and seed, same bytes.
//!
//! ```ignore
//! let written = emit::write(&world, &mut Rng::new(7), Path::new("out"), &Force::default())?;
//! // written.analyze_args: e.g. ["--input-tz", "Asia/Kolkata"]
//! ```

pub mod access;
pub mod app;
mod choose;
pub mod ctx;
pub mod envelope;
pub mod events;
pub mod family;
mod files;
pub mod fixture;
pub mod json;
pub mod metrics;
pub mod plan;
pub mod tenant;
#[cfg(test)]
mod tests;

use std::path::Path;

use ctx::{Clock, Ctx, Scheme};
use family::{AccessFamily, AppFamily, Envelope, EventsFamily, MetricsFamily, Platform};
use plan::{ArgPlan, LinkPlan, Plan, SourceOut};
use tenant::{TenantPlace, TenantPlan};

use crate::gen::facts::World;
use crate::gen::rng::Rng;
use crate::gen::time::{self, ZONES};

/// Choices a caller pins; `None` fields are drawn.
#[derive(Clone, Debug, Default)]
pub struct Force {
    pub access: Option<AccessFamily>,
    pub app: Option<AppFamily>,
    pub metrics: Option<MetricsFamily>,
    /// The exact events families to write (orchestrator and change records).
    pub events: Option<Vec<EventsFamily>>,
    /// `Some(None)`: no envelope; `Some(Some(e))`: that envelope.
    pub envelope: Option<Option<Envelope>>,
    /// The naming: Kubernetes pods, ECS tasks or VM hosts (with their platform's records).
    pub naming: Option<Platform>,
    /// `Some(true)`: gzip every file; `Some(false)`: none (ALB logs stay gzipped, as AWS
    /// delivers them).
    pub compression: Option<bool>,
    pub tenant: Option<TenantPlace>,
    /// The servers' zone, by IANA name from `time::ZONES`.
    pub zone: Option<&'static str>,
    /// `Some(false)`: every source's clock is exact.
    pub skew: Option<bool>,
}

/// Every family per source kind, for tests that iterate over them.
pub struct Families {
    pub access: &'static [AccessFamily],
    pub app: &'static [AppFamily],
    pub metrics: &'static [MetricsFamily],
    pub events: &'static [EventsFamily],
    pub envelopes: &'static [Envelope],
    pub naming: [Platform; 3],
}

impl Force {
    pub fn families() -> Families {
        Families {
            access: AccessFamily::ALL,
            app: AppFamily::ALL,
            metrics: MetricsFamily::ALL,
            events: EventsFamily::ALL,
            envelopes: Envelope::ALL,
            naming: Platform::ALL,
        }
    }
}

/// What was written.
#[derive(Debug)]
pub struct Written {
    /// (file name relative to the output directory, family name).
    pub files: Vec<(String, String)>,
    /// What a user would pass to `postmortem analyze` besides the inputs.
    pub analyze_args: Vec<String>,
    pub plan: Plan,
    /// Per instance, the names the writers drew beside the world's (an ECS
    /// task's host name, the EC2 instance id): the exports may name it so.
    pub aliases: Vec<Vec<String>>,
}

pub fn write(
    world: &World,
    rng: &mut Rng,
    out: &Path,
    force: &Force,
) -> Result<Written, Box<dyn std::error::Error>> {
    let mut top = rng.fork(0xE417);
    let platform = choose::platform(force, &mut top);
    let lang = app::infer_lang(world);
    let ch = choose::families(world, force, platform, lang, &mut top);
    let tenant = TenantPlan::draw(
        world,
        &mut top,
        ch.access.logs_headers(),
        ch.access == AccessFamily::JsonAccess,
        force.tenant.clone(),
    );
    let zone = match force.zone {
        Some(name) => ZONES
            .iter()
            .copied()
            .find(|z| z.name == name)
            .ok_or_else(|| format!("unknown zone {name}"))?,
        None if top.chance(0.35) => time::UTC,
        None => top.pick(&ZONES[1..]),
    };
    let zoneless = match platform {
        Platform::Vm if top.chance(0.8) => zone,
        Platform::Vm => time::UTC,
        _ if top.chance(0.85) => time::UTC,
        _ => zone,
    };
    let mut ctx = Ctx::new(world, platform, lang, zone, tenant, &mut top);
    ctx.zoneless = zoneless;
    let clock = |r: &mut Rng| Clock {
        zone: zoneless,
        skew_ms: if force.skew == Some(false) {
            0
        } else {
            r.range(-3_000, 3_000)
        },
    };

    let mut plan = Plan {
        platform: platform.name().into(),
        language: lang.name().into(),
        server_zone: zone.name.into(),
        zoneless_zone: zoneless.name.into(),
        tenant: Some(ctx.tenant.clone()),
        unlinked: ch.unlinked.clone(),
        ..Plan::default()
    };
    for (a, b, via, k) in &ch.natural {
        plan.links.push(LinkPlan::new(*a, *b, via.clone(), *k));
    }
    if ch.listen {
        plan.links.push(LinkPlan::new(
            Scheme::IpPort,
            ctx.self_scheme(),
            "app start-up lines naming the listen address",
            world.instances.len(),
        ));
    }
    // Each source is written to disk before the next is made.
    let mut disk = files::Writer::new(out, force.compression, rng.fork(5));
    let done = |s: SourceOut,
                plan: &mut Plan,
                disk: &mut files::Writer|
     -> Result<(), Box<dyn std::error::Error>> {
        // Links measured on what a writer wrote (e.g. series that carry both labels).
        let measured: Vec<LinkPlan> = s
            .links
            .into_iter()
            .filter(|l| !plan.links.iter().any(|p| p.via == l.via))
            .collect();
        plan.links.extend(measured);
        plan.sources.push(s.plan);
        disk.write(s.files, plan)
    };
    let mut r = rng.fork(1);
    let c = clock(&mut r);
    done(
        access::write(&ctx, ch.access, ch.variant, c, &mut r),
        &mut plan,
        &mut disk,
    )?;
    if !world.logs.is_empty() {
        let mut r = rng.fork(2);
        let c = clock(&mut r);
        let choice = app::AppChoice {
            fam: ch.app,
            envelope: ch.envelope,
            layout: ch.layout,
            listen: ch.listen,
        };
        done(app::write(&ctx, &choice, c, &mut r), &mut plan, &mut disk)?;
    }
    if !world.series.is_empty() {
        let mut r = rng.fork(3);
        let c = clock(&mut r);
        done(
            metrics::write(&ctx, ch.metrics, c, &mut r),
            &mut plan,
            &mut disk,
        )?;
    }
    let mut r = rng.fork(4);
    let clocks: Vec<Clock> = ch.events.iter().map(|_| clock(&mut r)).collect();
    let (event_sources, change_plans) = events::write(&ctx, &ch.events, &clocks, &mut r);
    plan.changes = change_plans;
    for s in event_sources {
        done(s, &mut plan, &mut disk)?;
    }
    let mut analyze_args = vec![];
    if !ctx.tenant.args.is_empty() {
        plan.args.push(ArgPlan {
            arg: ctx.tenant.args.clone(),
            why: format!(
                "the tenant id is in {:?}, which no default rule reads",
                ctx.tenant.place
            ),
        });
        analyze_args.extend(ctx.tenant.args.clone());
    }
    let zoneless_sources: Vec<String> = plan
        .sources
        .iter()
        .filter(|s| s.zoneless)
        .map(|s| s.family.clone())
        .collect();
    if !zoneless_sources.is_empty() && !zoneless.is_utc() {
        let arg = vec!["--input-tz".to_string(), zoneless.name.to_string()];
        plan.args.push(ArgPlan {
            arg: arg.clone(),
            why: format!(
                "{} write local time without a zone",
                zoneless_sources.join(", ")
            ),
        });
        analyze_args.extend(arg);
    }
    let aliases = ctx
        .ids
        .iter()
        .map(|i| vec![i.ecs_host.clone(), i.ec2_id.clone()])
        .collect();
    Ok(Written {
        files: disk.written,
        analyze_args,
        plan,
        aliases,
    })
}
