//! The unit of every aggregate: what one second of one dimension value saw.

use crate::event::{Origin, Request};

/// Requests in one bucket. Mergeable by addition.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cell {
    pub requests: u32,
    /// 5xx and 408.
    pub failed: u32,
    /// Successes (status < 400) — a full outage is a run with none.
    pub ok: u32,
    /// Requests that ended in this bucket, whatever their outcome: the
    /// total that `failed` and `ok` are parts of (`requests` counts
    /// arrivals, so a bucket can hold more failures than arrivals).
    pub done: u32,
    /// Requests that logged a duration.
    pub timed: u32,
    /// Sum of durations (busy time), microseconds: integers, so partial
    /// aggregates merge to the same total in any order.
    pub busy_us: u64,
    /// The longest duration, microseconds.
    pub max_us: u64,
    /// Timed requests that were served (status < 400): only those surely
    /// held a connection or worker for their work; a request that timed
    /// out waiting for one held nothing.
    pub ok_timed: u32,
    /// The shortest of their durations, microseconds (saturating).
    pub ok_floor_us: u32,
    /// The sum of their durations, microseconds.
    pub ok_busy_us: u64,
    /// Timed requests that ended unanswered after a while: the client gave
    /// up (499), the upstream dropped them (502) or the proxy stopped
    /// waiting (504). Each may have held a connection until then (a slow
    /// query runs on, or ran until its worker was killed) or only waited
    /// for one; [`super::held`] tells the two apart.
    pub cut_timed: u32,
    /// The sum of their durations, microseconds.
    pub cut_busy_us: u64,
    /// The earliest line that fell in this bucket.
    pub first: Origin,
}

/// What a cell counts of one request, worked out once for the five cells
/// (the total and four dimensions) it goes into.
#[derive(Clone, Copy, Debug)]
pub struct Hit {
    pub origin: Origin,
    pub failed: bool,
    pub ok: bool,
    /// Its work ran on the server (see [`Cell::ok_timed`]).
    pub worked: bool,
    /// The client gave up on it (see [`Cell::cut_timed`]).
    pub cut: bool,
    /// The duration in microseconds, if logged.
    pub us: Option<u64>,
}

impl Hit {
    pub fn of(r: &Request<'_>) -> Hit {
        Hit {
            origin: r.origin,
            failed: r.failed(),
            ok: matches!(r.status, Some(s) if s < 400),
            worked: matches!(r.status, Some(s) if s < 400),
            // A slow integration's requests reset after 9 s of work held
            // the pool as much as its served ones (slow-integration draw
            // 2631806: 1,161 such 502s, 54 served, and no culprit named).
            cut: matches!(r.status, Some(499 | 502 | 504)),
            us: r.duration_ms.map(|d| (d * 1000.0).round().max(0.0) as u64),
        }
    }
}

impl Cell {
    /// Count a request: its arrival (rate, busy time) and, when `outcome`,
    /// its result (failed or served). A request whose start and end fall in
    /// different buckets is added twice, once for each.
    pub fn add(&mut self, r: &Request, arrival: bool, outcome: bool) {
        self.add_hit(&Hit::of(r), arrival, outcome);
    }

    /// [`Cell::add`] with the request's figures worked out.
    pub fn add_hit(&mut self, h: &Hit, arrival: bool, outcome: bool) {
        if self.is_empty() || h.origin < self.first {
            self.first = h.origin;
        }
        if outcome {
            self.done += 1;
            self.failed += u32::from(h.failed);
            self.ok += u32::from(h.ok);
        }
        if !arrival {
            return;
        }
        self.requests += 1;
        if let Some(us) = h.us {
            self.timed += 1;
            self.busy_us += us;
            self.max_us = self.max_us.max(us);
            if h.worked {
                let short = u32::try_from(us).unwrap_or(u32::MAX);
                self.ok_floor_us = if self.ok_timed == 0 {
                    short
                } else {
                    self.ok_floor_us.min(short)
                };
                self.ok_timed += 1;
                self.ok_busy_us += us;
            } else if h.cut {
                self.cut_timed += 1;
                self.cut_busy_us += us;
            }
        }
    }

    fn is_empty(&self) -> bool {
        self.requests == 0 && self.failed == 0 && self.ok == 0 && self.done == 0
    }

    pub fn merge(&mut self, o: &Cell) {
        if o.is_empty() {
            return;
        }
        if self.is_empty() || o.first < self.first {
            self.first = o.first;
        }
        self.requests += o.requests;
        self.failed += o.failed;
        self.ok += o.ok;
        self.done += o.done;
        self.timed += o.timed;
        self.busy_us += o.busy_us;
        self.max_us = self.max_us.max(o.max_us);
        if o.ok_timed > 0 {
            self.ok_floor_us = if self.ok_timed == 0 {
                o.ok_floor_us
            } else {
                self.ok_floor_us.min(o.ok_floor_us)
            };
        }
        self.ok_timed += o.ok_timed;
        self.ok_busy_us += o.ok_busy_us;
        self.cut_timed += o.cut_timed;
        self.cut_busy_us += o.cut_busy_us;
    }

    /// Busy time in milliseconds.
    pub fn busy_ms(&self) -> f64 {
        self.busy_us as f64 / 1000.0
    }

    /// The longest duration in milliseconds.
    pub fn max_ms(&self) -> f64 {
        self.max_us as f64 / 1000.0
    }

    /// Mean duration in milliseconds, if any request was timed.
    pub fn mean_ms(&self) -> Option<f64> {
        (self.timed > 0).then(|| self.busy_ms() / f64::from(self.timed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_add_and_merge_alike() {
        let r = |status, d: f64, line| Request {
            status: Some(status),
            duration_ms: Some(d),
            origin: Origin { input: 0, line },
            ..Request::default()
        };
        let mut a = Cell::default();
        a.add(&r(200, 10.0, 5), true, true);
        a.add(&r(503, 30.0, 3), true, true);
        let mut b = Cell::default();
        b.add(&r(200, 10.0, 5), true, true);
        let mut c = Cell::default();
        c.add(&r(503, 30.0, 3), true, false);
        c.add(&r(503, 30.0, 3), false, true);
        b.merge(&c);
        assert_eq!(a, b);
        assert_eq!(a.failed, 1);
        assert_eq!(a.ok, 1);
        assert_eq!(a.done, 2);
        assert_eq!(a.first.line, 3);
        assert_eq!(a.mean_ms(), Some(20.0));
    }

    /// Only served requests count surely as work held: one that failed
    /// after waiting for a connection (500 after the acquire timeout) held
    /// none, and one that ended unanswered may have been waiting too.
    #[test]
    fn only_served_requests_count_as_work_held() {
        let r = |status, d: f64| Request {
            status: Some(status),
            duration_ms: Some(d),
            ..Request::default()
        };
        let mut c = Cell::default();
        c.add(&r(499, 10_000.0), true, true);
        c.add(&r(500, 15_000.0), true, true);
        c.add(&r(200, 40.0), true, true);
        assert_eq!(c.ok_timed, 1);
        assert_eq!(c.ok_floor_us, 40_000);
        assert_eq!(c.ok, 1);
        // Ended unanswered: given up (499), dropped by the upstream (502),
        // timed out at the proxy (504); each may have held or only waited.
        // A 500 or 503 is the application's own answer, after waiting.
        c.add(&r(502, 9_000.0), true, true);
        c.add(&r(504, 30_000.0), true, true);
        c.add(&r(503, 30_000.0), true, true);
        assert_eq!(c.cut_timed, 3);
        assert_eq!(c.cut_busy_us, 49_000_000);
    }

    #[test]
    fn a_slow_failure_is_done_where_it_failed_not_where_it_arrived() {
        let slow = Request {
            status: Some(504),
            duration_ms: Some(30_000.0),
            ..Request::default()
        };
        let (mut arrived, mut ended) = (Cell::default(), Cell::default());
        arrived.add(&slow, true, false);
        ended.add(&slow, false, true);
        assert_eq!((arrived.requests, arrived.done, arrived.failed), (1, 0, 0));
        assert_eq!((ended.requests, ended.done, ended.failed), (0, 1, 1));
        let client_error = Request {
            status: Some(404),
            ..Request::default()
        };
        ended.add(&client_error, false, true);
        assert_eq!((ended.done, ended.failed, ended.ok), (2, 1, 0));
    }
}
