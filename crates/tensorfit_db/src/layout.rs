//! Where each piece of a file lives in the analysis's offsets.
//!
//! Summaries and reports hold byte ranges. If they were the text's own
//! offsets, typing in one function would move every function after it, so
//! their summaries would all differ and every caller would be re-solved.
//! Instead each item (top-level item or method) is lowered at a place of its
//! own, chosen from its key (`f`, `S.forward`) and its size class only, and
//! ranges are moved back to text offsets when results leave the database.
//!
//! The script body (top-level statements, spread between the items) is
//! placed below [`SCRIPT_SPACE`], its statements one after the other, each
//! in a place of a power-of-two length with room to grow: typing in an
//! item, or between items, moves no statement, and typing in a statement
//! moves the statements after it only when it outgrows its place (or
//! shrinks to half of it). Items get slots above it. The items' layout depends only on
//! the set of keys and size classes, so an edit that changes neither moves
//! nothing. When the slots would be more than half taken (over 15,000
//! items) or the file is too large, every piece keeps its text offsets:
//! still correct, only less incremental.

use std::collections::{BTreeMap, HashMap};

use tensorfit_base::TextRange;

/// Offsets below this are the script body's.
pub const SCRIPT_SPACE: usize = 1 << 27;
/// The smallest place of a script statement.
const MIN_STATEMENT_PLACE: usize = 64;
/// The granularity of item places.
const SLOT: usize = 1 << 16;
/// Places end below 2^31: hole variables use the offsets above.
const SLOTS: usize = ((1 << 31) - SCRIPT_SPACE) / SLOT;

/// One item of the text: its key and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemSpan {
    pub key: String,
    pub range: TextRange,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Region {
    key: String,
    /// Where the item starts in the analysis's offsets.
    placed: usize,
    /// The length of its place (whole slots).
    extent: usize,
    /// Where it starts in the text.
    actual: usize,
    len: usize,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    /// Keyed by the text offset of the piece's start.
    by_actual: HashMap<usize, usize>,
    /// The items, sorted by `placed`.
    regions: Vec<Region>,
    /// The script's statements (with empty keys), sorted by `placed`.
    script: Vec<Region>,
}

impl Layout {
    /// Places `items` (keys are unique; callers number repeated names) and
    /// the statements of the script, given in source order.
    pub fn new(items: &[ItemSpan], script: &[TextRange], text_len: usize) -> Layout {
        let identity = || Layout::default();
        if text_len >= SCRIPT_SPACE {
            return identity();
        }
        let size_class = |item: &ItemSpan| {
            (item.range.as_usize().len() + 1)
                .div_ceil(SLOT)
                .next_power_of_two()
        };
        // At most half full, so that probing stays short.
        if items.iter().map(size_class).sum::<usize>() > SLOTS / 2 {
            return identity();
        }
        let mut sorted: Vec<&ItemSpan> = items.iter().collect();
        sorted.sort_by(|a, b| a.key.cmp(&b.key));
        let mut taken: BTreeMap<usize, usize> = BTreeMap::new(); // first slot -> slots
        let mut regions = Vec::with_capacity(items.len());
        for item in sorted {
            let len = item.range.as_usize().len();
            let slots = size_class(item);
            let Some(slot) = free_slot(&taken, slots, hash(&item.key)) else {
                return identity();
            };
            taken.insert(slot, slots);
            regions.push(Region {
                key: item.key.clone(),
                placed: SCRIPT_SPACE + slot * SLOT,
                extent: slots * SLOT,
                actual: item.range.start as usize,
                len,
            });
        }
        regions.sort_by_key(|r| r.placed);
        let roomy = |len: usize| (len + 1).next_power_of_two().max(MIN_STATEMENT_PLACE);
        let total: usize = script.iter().map(|r| roomy(r.as_usize().len())).sum();
        // Statements too many to have room each are packed tight.
        let extent_of = |len: usize| match total < SCRIPT_SPACE {
            true => roomy(len),
            false => len + 1,
        };
        let mut next = 0;
        let script = script
            .iter()
            .map(|range| {
                let len = range.as_usize().len();
                let region = Region {
                    key: String::new(),
                    placed: next,
                    extent: extent_of(len),
                    actual: range.start as usize,
                    len,
                };
                next += region.extent;
                region
            })
            .collect::<Vec<_>>();
        let by_actual = regions
            .iter()
            .chain(&script)
            .map(|r| (r.actual, r.placed))
            .collect::<HashMap<_, _>>();
        Layout {
            by_actual,
            regions,
            script,
        }
    }

    /// Where the piece starting at text offset `actual` is placed (`None`:
    /// at `actual`).
    pub fn place(&self, actual: usize) -> Option<usize> {
        self.by_actual.get(&actual).copied()
    }

    /// The text offset of an analysis offset.
    pub fn to_text(&self, offset: u32) -> u32 {
        match self.region_at(offset as usize) {
            Some(region) => (region.actual + (offset as usize - region.placed)) as u32,
            // Not from this layout's lowering.
            None => offset,
        }
    }

    /// Which item is placed where, without where it is in the text.
    pub fn places(&self) -> Places {
        Places {
            items: self
                .regions
                .iter()
                .map(|r| (r.placed, r.extent, r.key.clone()))
                .collect(),
        }
    }

    fn region_at(&self, offset: usize) -> Option<&Region> {
        let regions = if offset < SCRIPT_SPACE {
            &self.script
        } else {
            &self.regions
        };
        let index = regions.partition_point(|r| r.placed <= offset);
        let region = &regions[index.checked_sub(1)?];
        (offset <= region.placed + region.len).then_some(region)
    }

    pub fn range_to_text(&self, range: TextRange) -> TextRange {
        TextRange::new(
            self.to_text(range.start) as usize,
            self.to_text(range.end) as usize,
        )
    }
}

/// Where each item is placed (start, length of its place, key), sorted by
/// start: what stays the same while typing moves text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Places {
    items: Vec<(usize, usize, String)>,
}

impl Places {
    /// The key of the item whose place holds `offset`, and where it starts.
    pub fn item_at(&self, offset: usize) -> Option<(&str, usize)> {
        let index = self
            .items
            .partition_point(|(placed, _, _)| *placed <= offset);
        let (placed, extent, key) = &self.items[index.checked_sub(1)?];
        (offset < placed + extent).then_some((key.as_str(), *placed))
    }
}

/// The first free run of `slots` slots (aligned to `slots`), probing from
/// the key's hash.
fn free_slot(taken: &BTreeMap<usize, usize>, slots: usize, hash: u64) -> Option<usize> {
    let positions = SLOTS / slots;
    if positions == 0 {
        return None;
    }
    let start = (hash % positions as u64) as usize;
    (0..positions)
        .map(|i| ((start + i) % positions) * slots)
        .find(|&slot| {
            // Free when the run before it ends before it and none starts in it.
            let before_ends = taken
                .range(..=slot)
                .next_back()
                .is_none_or(|(s, n)| s + n <= slot);
            before_ends && taken.range(slot..slot + slots).next().is_none()
        })
}

/// FNV-1a: stable across runs and platforms, unlike the std hasher.
fn hash(key: &str) -> u64 {
    key.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(key: &str, start: usize, end: usize) -> ItemSpan {
        ItemSpan {
            key: key.to_owned(),
            range: TextRange::new(start, end),
        }
    }

    #[test]
    fn places_depend_on_keys_not_on_positions() {
        let before = Layout::new(&[span("f", 0, 100), span("g", 100, 300)], &[], 300);
        // `f` grew by 50 bytes: `g` moved in the text, not in the layout.
        let after = Layout::new(&[span("f", 0, 150), span("g", 150, 350)], &[], 350);
        assert_eq!(before.place(100), after.place(150));
        assert_eq!(before.place(0), after.place(0));
        let g = after.place(150).unwrap();
        assert!(g >= SCRIPT_SPACE);
        assert_eq!(after.to_text(g as u32 + 7), 157);
        assert_eq!(before.to_text(g as u32 + 7), 107);
    }

    #[test]
    fn script_offsets_and_colliding_keys() {
        let items: Vec<ItemSpan> = (0..2000)
            .map(|i| span(&format!("f{i}"), i * 10, i * 10 + 10))
            .collect();
        let layout = Layout::new(&items, &[], 20_000);
        let mut places: Vec<usize> = items
            .iter()
            .map(|i| layout.place(i.range.start as usize).unwrap())
            .collect();
        places.sort();
        places.dedup();
        assert_eq!(places.len(), 2000, "every item has a place of its own");
        assert_eq!(layout.to_text(42), 42);
    }

    #[test]
    fn the_script_is_placed_apart_from_the_items_between_its_statements() {
        let statements = [TextRange::new(10, 20), TextRange::new(200, 205)];
        let before = Layout::new(&[span("f", 30, 190)], &statements, 300);
        // `f` grew by 40 bytes: the second statement moved in the text only.
        let moved = [TextRange::new(10, 20), TextRange::new(240, 245)];
        let after = Layout::new(&[span("f", 30, 230)], &moved, 340);
        assert_eq!(before.place(10), Some(0));
        assert_eq!(before.place(200), Some(64));
        assert_eq!(after.place(240), Some(64));
        assert_eq!(after.to_text(66), 242);
        assert_eq!(before.to_text(66), 202);
        assert_eq!(after.to_text(5), 15);
    }

    #[test]
    fn a_statement_that_grows_within_its_place_moves_no_later_one() {
        let before = [TextRange::new(0, 40), TextRange::new(50, 60)];
        // The first statement grew by 20 bytes: still under 64.
        let grown = [TextRange::new(0, 60), TextRange::new(70, 80)];
        // And then past 64: the second moves to the next free place.
        let outgrown = [TextRange::new(0, 70), TextRange::new(80, 90)];
        let place =
            |script: &[TextRange]| Layout::new(&[], script, 100).place(script[1].start as usize);
        assert_eq!(place(&before), Some(64));
        assert_eq!(place(&grown), Some(64));
        assert_eq!(place(&outgrown), Some(128));
    }

    #[test]
    fn large_items_take_several_slots_and_overflow_falls_back() {
        let layout = Layout::new(
            &[span("big", 0, 3 * SLOT), span("small", 10, 20)],
            &[],
            400_000,
        );
        let big = layout.place(0).unwrap();
        let small = layout.place(10).unwrap();
        assert!(small >= big + 4 * SLOT || small + SLOT <= big);
        let too_many: Vec<ItemSpan> = (0..SLOTS / 2 + 1)
            .map(|i| span(&format!("f{i}"), i, i + 1))
            .collect();
        let layout = Layout::new(&too_many, &[], SLOTS + 1);
        assert_eq!(layout.place(5), None, "text offsets when places run out");
        assert_eq!(layout.to_text(5), 5);
    }
}
