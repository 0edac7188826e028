//! One instance's database connection pool: a request takes a connection or waits in line
//! (first come first served) until one is returned or its acquire timeout passes. In: acquire
//! and release calls. Out: who got a connection, and the spans during which anyone waited
//! (ground truth for the truth's "pool had waiters").

use std::collections::VecDeque;

use super::super::facts::Ms;

pub struct Pool {
    pub size: u32,
    pub in_use: u32,
    /// Connections never returned (a leak): gone until the process restarts.
    pub leaked: u32,
    /// Waiting flights in arrival order; ones that gave up are skipped when reached.
    line: VecDeque<u32>,
    /// Flights still waiting.
    pub waiting: u32,
    wait_since: Option<Ms>,
    /// Closed spans with at least one waiter.
    pub wait_spans: Vec<(Ms, Ms)>,
}

impl Pool {
    pub fn new(size: u32) -> Pool {
        Pool {
            size,
            in_use: 0,
            leaked: 0,
            line: VecDeque::new(),
            waiting: 0,
            wait_since: None,
            wait_spans: Vec::new(),
        }
    }

    pub fn free(&self) -> u32 {
        self.size.saturating_sub(self.in_use + self.leaked)
    }

    /// True when a connection was taken at once; otherwise the flight waits in line.
    pub fn acquire(&mut self, now: Ms, id: u32) -> bool {
        if self.free() > 0 && self.waiting == 0 {
            self.in_use += 1;
            return true;
        }
        self.line.push_back(id);
        self.set_waiting(now, self.waiting + 1);
        false
    }

    /// A waiter gave up (its acquire timeout passed); it stays in the line, skipped later.
    pub fn give_up(&mut self, now: Ms) {
        self.set_waiting(now, self.waiting.saturating_sub(1));
    }

    /// A connection comes back (or, `leak`, never does). Returns the waiters to try, in order:
    /// the caller hands the connection to the first one still waiting via [`Pool::hand_over`].
    pub fn release(&mut self, leak: bool) {
        self.in_use = self.in_use.saturating_sub(1);
        if leak {
            self.leaked += 1;
        }
    }

    /// The next flight in line, if any (it may have given up: the caller checks).
    pub fn next_in_line(&mut self) -> Option<u32> {
        if self.free() == 0 {
            return None;
        }
        self.line.pop_front()
    }

    /// The flight taken from the line gets the connection.
    pub fn hand_over(&mut self, now: Ms) {
        self.in_use += 1;
        self.set_waiting(now, self.waiting.saturating_sub(1));
    }

    fn set_waiting(&mut self, now: Ms, w: u32) {
        if self.waiting == 0 && w > 0 {
            self.wait_since = Some(now);
        } else if self.waiting > 0 && w == 0 {
            if let Some(s) = self.wait_since.take() {
                self.wait_spans.push((s, now));
            }
        }
        self.waiting = w;
        if w == 0 {
            self.line.clear();
        }
    }

    /// The process died: every connection and waiter is gone.
    pub fn reset(&mut self, now: Ms) {
        self.set_waiting(now, 0);
        self.in_use = 0;
        self.leaked = 0;
    }

    /// Closes an open waiting span at the end of the simulation.
    pub fn finish(&mut self, now: Ms) {
        if let Some(s) = self.wait_since.take() {
            self.wait_spans.push((s, now));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiters_are_served_in_order_and_spans_recorded() {
        let mut p = Pool::new(1);
        assert!(p.acquire(0, 1));
        assert!(!p.acquire(5, 2));
        assert!(!p.acquire(6, 3));
        assert_eq!(p.waiting, 2);
        p.release(false);
        assert_eq!(p.next_in_line(), Some(2));
        p.hand_over(10);
        assert_eq!(p.waiting, 1);
        p.give_up(40);
        assert_eq!(p.wait_spans, vec![(5, 40)]);
        // A leaked connection never comes back.
        p.release(true);
        assert_eq!(p.free(), 0);
    }
}
