//! `quiet-day` (control): 6-72 hours of ordinary traffic with its diurnal and weekly shape (a
//! three-day export has quiet nights), one routine rolling deploy, scattered errors and a few
//! harmless blips. There is no incident to find and nobody to blame.

use super::super::sim::{Action, Version};
use super::base::{base, Spec, MIN};
use super::{finish, Intent, Parts};

pub fn draw(seed: u64, small: bool) -> Parts {
    let spec = Spec {
        span_h: (6.0, 72.0),
        d_max_min: 0.0,
        ordinary_share: 0.9,
        ..Spec::default()
    };
    let mut b = base("quiet-day", seed, small, &spec);
    let span = b.cfg.end - b.cfg.start;
    let v1 = b.next_version();
    b.cfg.versions.push(Version { name: v1.clone(), ..Version::default() });
    let at = b.cfg.start + span / 10 + b.rng.range(0, span * 8 / 10 - 30 * MIN);
    let actor = b.bot();
    b.cfg.script.push((at, Action::Deploy { version: 1, rollback: false, reason: None, actor }));
    b.p.set("deploy_version", v1);
    b.p.set("deploy_at", super::super::time::iso_ms(at));
    let intent = Intent {
        incident: false,
        fault: b.cfg.end + 12 * MIN,
        ..Intent::default()
    };
    finish(b, intent)
}
