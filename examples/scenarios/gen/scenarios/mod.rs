//! The scenarios: each draws a service and an incident modelled on one seed postmortem (or a
//! negative control) from a seed. In: a name, a seed, `small`. Out: a [`Draw`]: the
//! simulation's configuration, what the scenario meant to happen ([`Intent`], the causes the
//! truth may rely on), and the drawn parameters.
//!
//! | name | seed | what happens |
//! |---|---|---|
//! | `bulk-export` | 000 | one integration's bulk export exhausts the pools; coupled probes restart the fleet |
//! | `crash-loop` | 001 | a service with little headroom crash-loops under a growing backlog until scaled out |
//! | `stuck-instances` | 002 | one or two instances hang; requests to them time out; responders restart them |
//! | `slow-integration` | 003 | one integration's slow requests hold the pool; a rollback is a red herring; a rate limit ends it |
//! | `thundering-herd` | 004 | DB pressure opens a breaker; websocket clients reconnect at once; the OAuth provider rate-limits |
//! | `quiet-day` | control | ordinary traffic, a routine deploy, scattered errors, harmless blips |
//! | `organic-growth` | control | every tenant's load grows until the pools saturate; a scale-out ends it |
//! | `deploy-leak` | control | a deploy leaks connections; its rollback ends it |
//! | `canary` | control | two canary pods fail a share of requests; aborting the canary ends it |
//! | `flag-flip` | control | a feature flag sends a route to a slow dependency; turning it off ends it |

pub mod base;
pub mod blips;

mod bulk_export;
mod canary;
mod crash_loop;
mod deploy_leak;
mod flag_flip;
mod organic_growth;
mod quiet_day;
mod slow_integration;
mod stuck_instances;
mod thundering_herd;

use serde_json::{Map, Value};

use super::facts::Ms;
use super::sim::Config;
pub use blips::Blip;

pub const NAMES: [&str; 10] = [
    "bulk-export",
    "crash-loop",
    "stuck-instances",
    "slow-integration",
    "thundering-herd",
    "quiet-day",
    "organic-growth",
    "deploy-leak",
    "canary",
    "flag-flip",
];

/// The change that caused the incident, when one did.
#[derive(Clone, Debug, PartialEq)]
pub enum CausalChange {
    /// A deploy (or canary) of this version.
    Version(String),
    /// This feature flag turned on.
    Flag(String),
}

/// What the scenario meant to happen: the causes, which only the simulation knows.
#[derive(Clone, Debug, Default)]
pub struct Intent {
    pub incident: bool,
    /// When the cause began (the client's change, the stuck moment, the deploy, the ramp).
    pub fault: Ms,
    /// The cause is a client's behaviour change (a surge, slow requests): the onset is the
    /// change when it ran into the first symptom within 180 s.
    pub client_change: bool,
    /// The tenant the scenario made misbehave.
    pub culprit: Option<usize>,
    pub causal_change: Option<CausalChange>,
    /// A deploy placed near the onset that did not cause it.
    pub red_herring: bool,
    pub gradual: bool,
    pub blips: Vec<Blip>,
}

pub struct Draw {
    pub name: String,
    pub seed: u64,
    pub small: bool,
    pub cfg: Config,
    pub intent: Intent,
    pub params: Map<String, Value>,
}

/// Draws scenario `name` from `seed` (`None` for an unknown name).
pub fn draw(name: &str, seed: u64, small: bool) -> Option<Draw> {
    let (cfg, intent, params) = match name {
        "bulk-export" => bulk_export::draw(seed, small),
        "crash-loop" => crash_loop::draw(seed, small),
        "stuck-instances" => stuck_instances::draw(seed, small),
        "slow-integration" => slow_integration::draw(seed, small),
        "thundering-herd" => thundering_herd::draw(seed, small),
        "quiet-day" => quiet_day::draw(seed, small),
        "organic-growth" => organic_growth::draw(seed, small),
        "deploy-leak" => deploy_leak::draw(seed, small),
        "canary" => canary::draw(seed, small),
        "flag-flip" => flag_flip::draw(seed, small),
        _ => return None,
    };
    Some(Draw {
        name: name.to_string(),
        seed,
        small,
        cfg,
        intent,
        params,
    })
}

/// The scenario's parts handed back to [`draw`].
pub(crate) type Parts = (Config, Intent, Map<String, Value>);

/// Finishes a scenario: blips before the fault (at least 12 minutes before it), responders
/// armed at the fault, the parameters recorded.
pub(crate) fn finish(mut b: base::Base, mut intent: Intent) -> Parts {
    let count = b.rng.range(0, 3) as usize;
    let from = b.cfg.start + 3 * base::MIN;
    let to = intent.fault - 12 * base::MIN;
    intent.blips = blips::add(&mut b, count, from, to);
    b.cfg.responders.armed_at = intent.fault;
    b.p.set("blips", intent.blips.len());
    b.p.set("requests_budget", b.budget.round());
    b.cfg.script.sort_by_key(|x| x.0);
    (b.cfg, intent, b.p.0)
}
