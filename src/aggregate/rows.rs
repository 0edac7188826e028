//! One dimension's cells, second by second: for each second, the cells of
//! the values seen in it, sorted by value id.
//!
//! Seconds arrive nearly in order and each is written once, whole, when the
//! staging in `recent.rs` moves on. Settled seconds live in two flat
//! vectors (each second's start, then every cell one after the other): a
//! second with one cell, as in a week of sparse traffic, costs that cell
//! and 16 bytes, not an allocation and a map node of its own. A cell for an
//! earlier second (a slow request's start, a chunk parsed out of order) is
//! kept aside by second and folded in by one linear merge in [`Rows::settle`],
//! before anything reads the rows.
//!
//! In: rows of (value id, cell) per second. Out: the cell of a (value,
//! second), every cell of a span, or all of them.

use std::collections::BTreeMap;

use super::cell::Cell;

/// One second's cells, sorted by value id.
type Row = Vec<(u32, Cell)>;

#[derive(Debug, Default)]
pub struct Rows {
    /// Each settled second and where its cells start in `cells`, in order.
    secs: Vec<(i64, usize)>,
    /// The settled seconds' cells, row after row.
    cells: Vec<(u32, Cell)>,
    /// Cells for seconds before the last settled one, until `settle`.
    late: BTreeMap<i64, Row>,
}

impl Rows {
    /// The last settled second.
    fn last_sec(&self) -> Option<i64> {
        self.secs.last().map(|(s, _)| *s)
    }

    /// Where settled row `i` lies in `cells`.
    fn bounds(&self, i: usize) -> std::ops::Range<usize> {
        let start = self.secs.get(i).map_or(self.cells.len(), |(_, at)| *at);
        let end = self.secs.get(i + 1).map_or(self.cells.len(), |(_, at)| *at);
        start..end
    }

    /// The cells of settled row `i`.
    fn row(&self, i: usize) -> &[(u32, Cell)] {
        self.cells.get(self.bounds(i)).unwrap_or_default()
    }

    /// The cell of value `id` in second `sec`, made if missing.
    pub fn cell(&mut self, id: u32, sec: i64) -> &mut Cell {
        match self.last_sec() {
            Some(last) if sec == last => {
                // The last row ends the vector: an insert moves only its tail.
                let start = self.secs.last().map_or(0, |(_, at)| *at);
                slot(&mut self.cells, start, id)
            }
            Some(last) if sec < last => slot(self.late.entry(sec).or_default(), 0, id),
            _ => {
                // A new last row: the cell is made at its start.
                let start = self.cells.len();
                self.secs.push((sec, start));
                slot(&mut self.cells, start, id)
            }
        }
    }

    /// Merge a row of cells (any order, each id once) into second `sec`.
    pub fn put_row(&mut self, sec: i64, mut cells: Row) {
        if cells.is_empty() {
            return;
        }
        cells.sort_unstable_by_key(|(id, _)| *id);
        match self.last_sec() {
            Some(last) if sec <= last => {
                for (id, c) in cells {
                    self.cell(id, sec).merge(&c);
                }
            }
            _ => {
                self.secs.push((sec, self.cells.len()));
                self.cells.append(&mut cells);
            }
        }
    }

    /// Fold the cells kept aside into the settled rows: one pass over both.
    pub fn settle(&mut self) {
        if self.late.is_empty() {
            return;
        }
        let mut late = Rows::default();
        for (s, mut row) in std::mem::take(&mut self.late) {
            late.secs.push((s, late.cells.len()));
            late.cells.append(&mut row);
        }
        let mine = std::mem::take(self);
        *self = Rows::merged(&mine, &late);
    }

    /// Two settled sets of rows merged into one, in one pass.
    fn merged(mine: &Rows, other: &Rows) -> Rows {
        let mut out = Rows {
            secs: Vec::with_capacity(mine.secs.len() + other.secs.len()),
            cells: Vec::with_capacity(mine.cells.len() + other.cells.len()),
            late: BTreeMap::new(),
        };
        let (mut i, mut j) = (0, 0);
        loop {
            let a = mine.secs.get(i).map(|(s, _)| *s);
            let b = other.secs.get(j).map(|(s, _)| *s);
            let (sec, take_mine, take_other) = match (a, b) {
                (None, None) => break,
                (Some(a), None) => (a, true, false),
                (None, Some(b)) => (b, false, true),
                (Some(a), Some(b)) => (a.min(b), a <= b, b <= a),
            };
            out.secs.push((sec, out.cells.len()));
            match (take_mine, take_other) {
                (true, true) => merge_row(mine.row(i), other.row(j), &mut out.cells),
                (true, false) => out.cells.extend_from_slice(mine.row(i)),
                _ => out.cells.extend_from_slice(other.row(j)),
            }
            i += usize::from(take_mine);
            j += usize::from(take_other);
        }
        out
    }

    #[cfg(test)]
    pub fn get(&self, id: u32, sec: i64) -> Option<&Cell> {
        let settled = match self.secs.binary_search_by_key(&sec, |(s, _)| *s) {
            Ok(i) => Rows::find(self.row(i), id),
            Err(_) => None,
        };
        settled.or_else(|| Rows::find(self.late.get(&sec)?, id))
    }

    /// Each second's row in `[start, end)`.
    pub fn for_each_row(&self, start: i64, end: i64, mut f: impl FnMut(i64, &[(u32, Cell)])) {
        let from = self.secs.partition_point(|(s, _)| *s < start);
        let settled = self
            .secs
            .get(from..)
            .unwrap_or_default()
            .iter()
            .take_while(|(s, _)| *s < end)
            .enumerate();
        if self.late.is_empty() {
            for (k, (s, _)) in settled {
                f(*s, self.row(from + k));
            }
            return;
        }
        // Not settled yet (read before `settle`): merged second by second.
        let mut late = self.late.range(start..end).peekable();
        let mut merged = Vec::new();
        for (k, (s, _)) in settled {
            while let Some((ls, row)) = late.next_if(|(ls, _)| *ls < s) {
                f(*ls, row);
            }
            match late.next_if(|(ls, _)| *ls == s) {
                Some((_, row)) => {
                    merged.clear();
                    merge_row(self.row(from + k), row, &mut merged);
                    f(*s, &merged);
                }
                None => f(*s, self.row(from + k)),
            }
        }
        for (ls, row) in late {
            f(*ls, row);
        }
    }

    /// Value `id`'s cell in one row.
    pub fn find(row: &[(u32, Cell)], id: u32) -> Option<&Cell> {
        row.binary_search_by_key(&id, |(v, _)| *v)
            .ok()
            .and_then(|i| row.get(i))
            .map(|(_, c)| c)
    }

    /// How many cells there are.
    pub fn len(&self) -> usize {
        self.cells.len() + self.late.values().map(Vec::len).sum::<usize>()
    }

    /// Every (value id, second, cell), in second then id order once settled
    /// (before, the cells kept aside come last, a (value, second) perhaps
    /// twice).
    pub fn iter(&self) -> impl Iterator<Item = (u32, i64, &Cell)> {
        (0..self.secs.len())
            .flat_map(move |i| {
                let s = self.secs.get(i).map_or(0, |(s, _)| *s);
                self.row(i).iter().map(move |(id, c)| (*id, s, c))
            })
            .chain(
                self.late
                    .iter()
                    .flat_map(|(s, row)| row.iter().map(move |(id, c)| (*id, *s, c))),
            )
    }

    /// Fold in another dimension's rows, whose value ids `id` maps to ours.
    pub fn merge(&mut self, mut other: Rows, id: impl Fn(u32) -> u32) {
        other.settle();
        self.settle();
        for (v, _) in &mut other.cells {
            *v = id(*v);
        }
        // The new ids may sort otherwise: each row sorted again, in place.
        for i in 0..other.secs.len() {
            let bounds = other.bounds(i);
            if let Some(row) = other.cells.get_mut(bounds) {
                row.sort_unstable_by_key(|(v, _)| *v);
            }
        }
        match (self.last_sec(), other.secs.first()) {
            (_, None) => {}
            (None, _) => *self = other,
            (Some(last), Some((first, _))) if *first > last => {
                // A later chunk or input: appended.
                let base = self.cells.len();
                self.secs
                    .extend(other.secs.iter().map(|(s, at)| (*s, at + base)));
                self.cells.append(&mut other.cells);
            }
            _ => *self = Rows::merged(self, &other),
        }
    }
}

/// The cell of value `id` in the row that runs from `start` to the end of
/// `cells` (sorted by id), made if missing.
// why: `i` is where the binary search found `id` or just inserted it, so it
// is inside `cells`; a `get_mut` would need a cell to fall back on.
#[allow(clippy::indexing_slicing)]
fn slot(cells: &mut Vec<(u32, Cell)>, start: usize, id: u32) -> &mut Cell {
    let found = cells
        .get(start..)
        .unwrap_or_default()
        .binary_search_by_key(&id, |(v, _)| *v);
    let i = match found {
        Ok(i) => start + i,
        Err(i) => {
            cells.insert(start + i, (id, Cell::default()));
            start + i
        }
    };
    &mut cells[i].1
}

/// Two rows sorted by id merged into `out`, a value on both sides once.
fn merge_row(mine: &[(u32, Cell)], theirs: &[(u32, Cell)], out: &mut Vec<(u32, Cell)>) {
    let mut theirs = theirs.iter().copied().peekable();
    for &(id, c) in mine {
        while let Some(t) = theirs.next_if(|(t, _)| *t < id) {
            out.push(t);
        }
        let mut c = c;
        if let Some((_, t)) = theirs.next_if(|(t, _)| *t == id) {
            c.merge(&t);
        }
        out.push((id, c));
    }
    out.extend(theirs);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Origin;

    fn cell(requests: u32, line: u64) -> Cell {
        Cell {
            requests,
            first: Origin { input: 0, line },
            ..Cell::default()
        }
    }

    #[test]
    fn rows_merge_by_value_and_second() {
        let mut a = Rows::default();
        a.put_row(10, vec![(3, cell(1, 5)), (1, cell(2, 7))]);
        a.cell(2, 10).merge(&cell(4, 9));
        let mut b = Rows::default();
        b.put_row(10, vec![(1, cell(5, 3))]);
        b.put_row(11, vec![(1, cell(1, 8))]);
        // b's id 1 is a's id 3.
        a.merge(b, |v| if v == 1 { 3 } else { v });
        assert_eq!(
            a.get(3, 10).map(|c| (c.requests, c.first.line)),
            Some((6, 3))
        );
        assert_eq!(a.get(1, 10).map(|c| c.requests), Some(2));
        assert_eq!(a.get(2, 10).map(|c| c.requests), Some(4));
        assert_eq!(a.get(3, 11).map(|c| c.requests), Some(1));
        assert_eq!(a.get(1, 11), None);
        let mut series: Vec<(i64, u32)> = Vec::new();
        a.for_each_row(0, 100, |s, row| {
            if let Some(c) = Rows::find(row, 3) {
                series.push((s, c.requests));
            }
        });
        let mut rows_seen = Vec::new();
        a.for_each_row(0, 100, |s, row| rows_seen.push((s, row.len())));
        assert_eq!(rows_seen, vec![(10, 3), (11, 1)]);
        assert_eq!(series, vec![(10, 6), (11, 1)]);
        assert_eq!(a.iter().count(), 4);
    }

    /// Every (id, second, requests, first line) of `rows`, read both ways.
    fn listed(rows: &Rows) -> Vec<(u32, i64, u32, u64)> {
        let mut v = Vec::new();
        rows.for_each_row(i64::MIN, i64::MAX, |s, row| {
            for (id, c) in row {
                v.push((*id, s, c.requests, c.first.line));
            }
        });
        v
    }

    proptest::proptest! {
        /// Cells added in any order of seconds, in rows or one by one, and
        /// rows merged in from another set: the same cells as a plain map
        /// of (second, id), whether read before or after `settle`.
        #[test]
        fn rows_hold_what_a_map_holds(
            adds in proptest::collection::vec((0u32..6, 0i64..40, 1u32..4, 0u64..1000, proptest::bool::ANY), 0..200),
            others in proptest::collection::vec((0u32..6, 0i64..60, 1u32..4, 0u64..1000), 0..100),
        ) {
            let mut model: BTreeMap<(i64, u32), Cell> = BTreeMap::new();
            let mut rows = Rows::default();
            for (id, sec, n, line, whole) in adds {
                model.entry((sec, id)).or_default().merge(&cell(n, line));
                if whole {
                    rows.put_row(sec, vec![(id, cell(n, line))]);
                } else {
                    rows.cell(id, sec).merge(&cell(n, line));
                }
            }
            let mut other = Rows::default();
            for (id, sec, n, line) in others {
                other.cell(id, sec).merge(&cell(n, line));
                // Their id `v` is our `5 - v`.
                model.entry((sec, 5 - id)).or_default().merge(&cell(n, line));
            }
            let want: Vec<(u32, i64, u32, u64)> = model
                .iter()
                .map(|((s, id), c)| (*id, *s, c.requests, c.first.line))
                .collect();
            rows.merge(other, |v| 5 - v);
            proptest::prop_assert_eq!(listed(&rows), want.clone());
            rows.settle();
            proptest::prop_assert_eq!(listed(&rows), want.clone());
            let all: Vec<(u32, i64, u32, u64)> =
                rows.iter().map(|(id, s, c)| (id, s, c.requests, c.first.line)).collect();
            proptest::prop_assert_eq!(all, want.clone());
            proptest::prop_assert_eq!(rows.len(), want.len());
        }

        /// Read before settling, the rows are already the map's.
        #[test]
        fn unsettled_rows_read_like_settled_ones(
            adds in proptest::collection::vec((0u32..4, 0i64..30, 1u32..3), 0..100),
        ) {
            let mut rows = Rows::default();
            for (id, sec, n) in adds {
                rows.cell(id, sec).merge(&cell(n, sec as u64));
            }
            let before = listed(&rows);
            rows.settle();
            proptest::prop_assert_eq!(before, listed(&rows));
        }
    }
}
