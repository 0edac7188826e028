//! The second being filled: request cells of one second, dense by value id.
//!
//! Lines arrive roughly in time order, so most requests of a second land
//! here, in small arrays that stay in cache; when a later second starts, the
//! cells are merged into the per-second hash maps, one merge per (value,
//! second) instead of one hash lookup (usually a cache miss) per request.
//! Cells merge by sums, minima and maxima, so staging changes no figure.
//!
//! In: (second, value ids, request) from `Aggregates::add_request`. Out: the
//! staged cells, handed back by [`Recent::drain`].

use super::cell::{Cell, Hit};
use crate::event::Origin;

/// Dimensions staged: tenant, integration, instance, route (`Dim as usize`).
const DIMS: usize = 4;

#[derive(Debug, Default)]
pub(super) struct Recent {
    sec: Option<i64>,
    total: Cell,
    cells: [Vec<Cell>; DIMS],
    /// Ids with a cell this second, each once.
    touched: [Vec<u32>; DIMS],
}

/// Whether a cell was never added to (a cell touched only by the outcome of
/// a 4xx has no counts, but has its first line).
fn untouched(c: &Cell) -> bool {
    c.requests == 0 && c.failed == 0 && c.ok == 0 && c.first == Origin::default()
}

impl Recent {
    /// The staged second, if any.
    pub(super) fn sec(&self) -> Option<i64> {
        self.sec
    }

    /// Start staging `sec`; the caller has drained the previous second.
    pub(super) fn start(&mut self, sec: i64) {
        self.sec = Some(sec);
    }

    /// Add a request's arrival and/or outcome to the staged second.
    pub(super) fn add(&mut self, ids: [u32; DIMS], h: &Hit, arrival: bool, outcome: bool) {
        self.total.add_hit(h, arrival, outcome);
        for ((cells, touched), id) in self.cells.iter_mut().zip(&mut self.touched).zip(ids) {
            let i = id as usize;
            if cells.len() <= i {
                cells.resize(i + 1, Cell::default());
            }
            // Resized above to hold `i`.
            let Some(cell) = cells.get_mut(i) else {
                continue;
            };
            if untouched(cell) {
                touched.push(id);
            }
            cell.add_hit(h, arrival, outcome);
        }
    }

    /// Hand the staged second's total to `total(sec, cell)` and each
    /// dimension's cells to `row(dim, sec, cells)`, and stage nothing.
    pub(super) fn drain(
        &mut self,
        mut total: impl FnMut(i64, &Cell),
        mut row: impl FnMut(usize, i64, Vec<(u32, Cell)>),
    ) {
        let Some(sec) = self.sec.take() else {
            return;
        };
        let t = std::mem::take(&mut self.total);
        if !untouched(&t) {
            total(sec, &t);
        }
        for (d, (cells, touched)) in self.cells.iter_mut().zip(&mut self.touched).enumerate() {
            let out: Vec<(u32, Cell)> = touched
                .drain(..)
                .filter_map(|id| Some((id, std::mem::take(cells.get_mut(id as usize)?))))
                .collect();
            if !out.is_empty() {
                row(d, sec, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Request;

    #[test]
    fn drained_cells_sum_what_was_added() {
        let r = |status, line| {
            Hit::of(&Request {
                status: Some(status),
                duration_ms: Some(5.0),
                origin: Origin { input: 0, line },
                ..Request::default()
            })
        };
        let mut rc = Recent::default();
        rc.start(10);
        rc.add([1, 0, 0, 2], &r(200, 7), true, true);
        rc.add([1, 0, 0, 3], &r(503, 4), true, true);
        rc.add([1, 0, 0, 3], &r(404, 9), false, true);
        let mut got = Vec::new();
        let mut totals = Vec::new();
        rc.drain(
            |s, c| totals.push((s, *c)),
            |d, s, row| got.extend(row.into_iter().map(|(id, c)| (d, id, s, c))),
        );
        assert_eq!(totals.len(), 1);
        assert_eq!((totals[0].1.requests, totals[0].1.failed), (2, 1));
        let tenant: Vec<_> = got.iter().filter(|g| g.0 == 0).collect();
        assert_eq!(tenant.len(), 1, "one cell per id, however often touched");
        assert_eq!(tenant[0].3.requests, 2);
        assert_eq!(tenant[0].3.first.line, 4);
        assert_eq!(got.iter().filter(|g| g.0 == 3).count(), 2);
        assert_eq!(rc.sec(), None);
        // Drained cells are empty again.
        rc.start(11);
        rc.add([1, 0, 0, 2], &r(200, 8), true, true);
        let mut n = 0;
        rc.drain(
            |_, _| {},
            |_, _, row| n += row.iter().map(|(_, c)| c.requests).sum::<u32>(),
        );
        assert_eq!(n, 4, "the new request, once in each dimension");
    }
}
