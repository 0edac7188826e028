//! One dimension's cells, second by second: for each second, the cells of
//! the values seen in it, sorted by value id.
//!
//! Seconds arrive nearly in order and each is written once, whole, when the
//! staging in `recent.rs` moves on: a sorted row appended to an ordered map,
//! with no hashing and no table to grow and rehash as the input grows.
//! Late requests (a slow request's start, a chunk parsed out of order) find
//! their row and cell by binary search.
//!
//! In: rows of (value id, cell) per second. Out: the cell of a (value,
//! second), every cell of a span, or all of them.

use std::collections::BTreeMap;

use super::cell::Cell;

#[derive(Debug, Default)]
pub struct Rows {
    rows: BTreeMap<i64, Vec<(u32, Cell)>>,
}

impl Rows {
    /// The cell of value `id` in second `sec`, made if missing.
    // why: `i` is where the binary search found `id` or just inserted it,
    // so it is inside `row`; a `get_mut` would need a cell to fall back on.
    #[allow(clippy::indexing_slicing)]
    pub fn cell(&mut self, id: u32, sec: i64) -> &mut Cell {
        let row = self.rows.entry(sec).or_default();
        let i = match row.binary_search_by_key(&id, |(v, _)| *v) {
            Ok(i) => i,
            Err(i) => {
                row.insert(i, (id, Cell::default()));
                i
            }
        };
        &mut row[i].1
    }

    /// Merge a row of cells (any order, each id once) into second `sec`.
    pub fn put_row(&mut self, sec: i64, mut cells: Vec<(u32, Cell)>) {
        cells.sort_unstable_by_key(|(id, _)| *id);
        match self.rows.get_mut(&sec) {
            None => {
                self.rows.insert(sec, cells);
            }
            Some(row) if row.is_empty() => *row = cells,
            Some(_) => {
                for (id, c) in cells {
                    self.cell(id, sec).merge(&c);
                }
            }
        }
    }

    #[cfg(test)]
    pub fn get(&self, id: u32, sec: i64) -> Option<&Cell> {
        Rows::find(self.rows.get(&sec)?, id)
    }

    /// Each second's row in `[start, end)`.
    pub fn for_each_row(&self, start: i64, end: i64, mut f: impl FnMut(i64, &[(u32, Cell)])) {
        for (s, row) in self.rows.range(start..end) {
            f(*s, row);
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
        self.rows.values().map(Vec::len).sum()
    }

    /// Every (value id, second, cell).
    pub fn iter(&self) -> impl Iterator<Item = (u32, i64, &Cell)> {
        self.rows
            .iter()
            .flat_map(|(s, row)| row.iter().map(move |(id, c)| (*id, *s, c)))
    }

    /// Fold in another dimension's rows, whose value ids `id` maps to ours.
    pub fn merge(&mut self, other: Rows, id: impl Fn(u32) -> u32) {
        for (sec, row) in other.rows {
            let row: Vec<(u32, Cell)> = row.into_iter().map(|(v, c)| (id(v), c)).collect();
            self.put_row(sec, row);
        }
    }
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
}
