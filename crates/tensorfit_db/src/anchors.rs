//! Position-free summaries: typing that only moves a function's text does
//! not change its summary, so its callers are not re-solved.
//!
//! A summary points into its function (where each fact is stated, where
//! each side of it came from). Those offsets move whenever the user types
//! in the body before them. So the summary callers see has, instead of each
//! such offset, an anchor: the offset's rank among the distinct offsets of
//! the function that the summary uses, put in the anchor space at the
//! function's place (see [`Layout`]). Ranks only change when the summary's
//! structure does. The offsets themselves, in rank order, are the function's
//! anchor table, kept beside the summary and not compared with it.
//!
//! Results that reached a caller through a summary hold anchors; they are
//! put back to placed offsets ([`decode`]) before results are assembled,
//! with the anchor tables of the current revision.
//!
//! Offsets outside the function (other functions' signatures, the script,
//! imported files) and anchors of the function's own callees are left as
//! they are. Holes are not anchored: a hole's unknown is named after its
//! offset, so a function with a hole is still re-summarised when it moves.

use std::collections::HashMap;
use std::sync::Arc;

use tensorfit_base::TextRange;
use tensorfit_semantics::{MapRanges, RangeMap, Summary};

use crate::layout::{Places, SCRIPT_SPACE};

/// Offsets at or above this are anchors. Placed offsets end below it.
pub const ANCHOR_SPACE: u32 = 1 << 31;

/// A summary with its own offsets anchored, and their table.
#[derive(Clone, Debug, PartialEq)]
pub struct Anchored {
    pub summary: Option<Arc<Summary>>,
    /// The placed offset of each rank.
    pub offsets: Arc<[u32]>,
}

/// Anchors the offsets of `summary` that lie in `own`, the placed range of
/// the summarised function. A function that has no place of its own (the
/// layout fell back to text offsets) keeps its offsets.
pub fn anchor(summary: Option<Arc<Summary>>, own: TextRange) -> Anchored {
    let unanchored = |summary| Anchored {
        summary,
        offsets: Arc::from([]),
    };
    let Some(summary) = summary else {
        return unanchored(None);
    };
    if (own.start as usize) < SCRIPT_SPACE {
        return unanchored(Some(summary));
    }
    let is_own = |offset: u32| own.start <= offset && offset <= own.end;
    let mut anchored = Summary::clone(&summary);
    let mut offsets = Vec::new();
    anchored.map_ranges(&mut RangeMap::within(own, &mut |range| {
        offsets.extend([range.start, range.end].into_iter().filter(|&o| is_own(o)));
        range
    }));
    offsets.sort_unstable();
    offsets.dedup();
    // Ranks are below the function's length, so anchors stay inside the
    // anchor space's copy of the function's place.
    let base = ANCHOR_SPACE + (own.start - SCRIPT_SPACE as u32);
    let to_anchor = |offset: u32| match offsets.binary_search(&offset) {
        Ok(rank) if is_own(offset) => base + rank as u32,
        _ => offset,
    };
    anchored.map_ranges(&mut RangeMap::within(own, &mut |range| TextRange {
        start: to_anchor(range.start),
        end: to_anchor(range.end),
    }));
    Anchored {
        summary: Some(Arc::new(anchored)),
        offsets: offsets.into(),
    }
}

/// Puts the anchors in `result` back to placed offsets. `table` gives the
/// anchor table of the function placed at a key.
pub fn decode(result: &mut impl MapRanges, places: &Places, table: &dyn Fn(&str) -> Arc<[u32]>) {
    // Most anchors of a result point into the same few callees.
    let mut tables: HashMap<usize, Arc<[u32]>> = HashMap::new();
    let mut decode_offset = |offset: u32| {
        if offset < ANCHOR_SPACE {
            return offset;
        }
        let mirrored = (offset - ANCHOR_SPACE) as usize + SCRIPT_SPACE;
        let Some((key, base)) = places.item_at(mirrored) else {
            debug_assert!(false, "an anchor outside every function: {offset}");
            return offset;
        };
        let table = tables.entry(base).or_insert_with(|| table(key));
        let decoded = table.get(mirrored - base).copied();
        debug_assert!(decoded.is_some(), "an anchor past {key}'s table");
        decoded.unwrap_or(offset)
    };
    result.map_ranges(&mut RangeMap::new(&mut |range| TextRange {
        start: decode_offset(range.start),
        end: decode_offset(range.end),
    }));
}
