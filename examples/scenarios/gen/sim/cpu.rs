//! One instance's processor: work (ms of CPU) in, completion times out. Threaded runtimes
//! share the cores among everything runnable (processor sharing: n tasks on c cores each run
//! at min(1, c/n)); event-loop runtimes run callbacks one at a time, first come first served
//! (a health check waits behind every queued callback).

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, VecDeque};

use super::super::facts::Ms;

#[derive(Clone, Copy, PartialEq)]
struct Key(f64, u32);
impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Key {
    fn cmp(&self, o: &Self) -> Ordering {
        self.0.total_cmp(&o.0).then(self.1.cmp(&o.1))
    }
}

pub struct Cpu {
    cores: f64,
    fifo: bool,
    /// Processor sharing: virtual time (work each task has received) and finish keys.
    v: f64,
    last: Ms,
    ps: BinaryHeap<Reverse<Key>>,
    /// First come first served: tasks on the loop (finish times) and the queue.
    running: BinaryHeap<Reverse<Key>>,
    queue: VecDeque<(u32, f64)>,
    /// Bumped at every change, so a stale completion check is recognised.
    pub ver: u32,
    /// Core-milliseconds used, for the utilisation metric.
    pub busy: f64,
}

impl Cpu {
    pub fn new(cores: f64, fifo: bool, now: Ms) -> Cpu {
        Cpu {
            // An event loop runs one callback at a time whatever the core count.
            cores: if fifo { 1.0 } else { cores },
            fifo,
            v: 0.0,
            last: now,
            ps: BinaryHeap::new(),
            running: BinaryHeap::new(),
            queue: VecDeque::new(),
            ver: 0,
            busy: 0.0,
        }
    }

    pub fn cores(&self) -> f64 {
        self.cores
    }

    /// Tasks holding or waiting for the processor.
    pub fn n(&self) -> usize {
        self.ps.len() + self.running.len() + self.queue.len()
    }

    fn rate(&self) -> f64 {
        let n = self.ps.len() as f64;
        if n <= self.cores {
            1.0
        } else {
            self.cores / n
        }
    }

    fn advance(&mut self, now: Ms) {
        let dt = (now - self.last).max(0) as f64;
        if self.fifo {
            self.busy += dt * (self.running.len() as f64).min(self.cores);
        } else if !self.ps.is_empty() {
            self.v += dt * self.rate();
            self.busy += dt * (self.ps.len() as f64).min(self.cores);
        }
        self.last = now;
    }

    /// Brings the busy-time count up to `now` (completion times are unchanged).
    pub fn sync(&mut self, now: Ms) {
        self.advance(now);
    }

    pub fn add(&mut self, now: Ms, id: u32, work: f64) {
        self.advance(now);
        self.ver += 1;
        let work = work.max(0.01);
        if !self.fifo {
            self.ps.push(Reverse(Key(self.v + work, id)));
        } else if (self.running.len() as f64) < self.cores {
            self.running.push(Reverse(Key(now as f64 + work, id)));
        } else {
            self.queue.push_back((id, work));
        }
    }

    /// When the next task finishes, if any.
    pub fn next_done(&self) -> Option<Ms> {
        if self.fifo {
            return self.running.peek().map(|Reverse(k)| k.0.ceil() as Ms);
        }
        let Reverse(k) = self.ps.peek()?;
        let dt = (k.0 - self.v).max(0.0) / self.rate();
        Some(self.last + dt.ceil() as Ms)
    }

    /// The tasks finished by `now`, in finishing order.
    pub fn pop_done(&mut self, now: Ms, out: &mut Vec<u32>) {
        self.advance(now);
        if self.fifo {
            while let Some(Reverse(k)) = self.running.peek().copied() {
                if k.0 > now as f64 + 1e-9 {
                    break;
                }
                self.running.pop();
                out.push(k.1);
                if let Some((id, w)) = self.queue.pop_front() {
                    self.running.push(Reverse(Key(k.0.max(now as f64) + w, id)));
                }
            }
        } else {
            while let Some(Reverse(k)) = self.ps.peek().copied() {
                if k.0 > self.v + 1e-6 {
                    break;
                }
                self.ps.pop();
                out.push(k.1);
            }
        }
        if !out.is_empty() {
            self.ver += 1;
        }
    }

    /// Everything dropped (the process died).
    pub fn clear(&mut self, now: Ms) {
        self.advance(now);
        self.ps.clear();
        self.running.clear();
        self.queue.clear();
        self.v = 0.0;
        self.ver += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(cpu: &mut Cpu) -> Vec<(Ms, u32)> {
        let mut out = Vec::new();
        while let Some(t) = cpu.next_done() {
            let mut done = Vec::new();
            cpu.pop_done(t, &mut done);
            out.extend(done.into_iter().map(|id| (t, id)));
        }
        out
    }

    #[test]
    fn sharing_slows_everyone_and_fifo_makes_the_last_wait() {
        // Two 100 ms tasks on one shared core both finish at 200 ms.
        let mut ps = Cpu::new(1.0, false, 0);
        ps.add(0, 1, 100.0);
        ps.add(0, 2, 100.0);
        assert_eq!(drain(&mut ps), vec![(200, 1), (200, 2)]);
        // A 1 ms probe behind ten 100 ms callbacks on an event loop waits a second.
        let mut fifo = Cpu::new(4.0, true, 0);
        for i in 0..10 {
            fifo.add(0, i, 100.0);
        }
        fifo.add(0, 99, 1.0);
        let done = drain(&mut fifo);
        assert_eq!(done.last(), Some(&(1001, 99)));
        // Shared, the same probe is done in about 11 ms.
        let mut ps = Cpu::new(1.0, false, 0);
        for i in 0..10 {
            ps.add(0, i, 100.0);
        }
        ps.add(0, 99, 1.0);
        let done = drain(&mut ps);
        assert_eq!(done.first(), Some(&(11, 99)));
    }

    #[test]
    fn busy_time_counts_cores_in_use() {
        let mut ps = Cpu::new(2.0, false, 0);
        ps.add(0, 1, 100.0);
        drain(&mut ps);
        assert!((ps.busy - 100.0).abs() < 1.0, "{}", ps.busy);
    }
}
