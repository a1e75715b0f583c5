use serde::Serialize;

/// A half-open range of byte offsets into a source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct TextRange {
    pub start: u32,
    pub end: u32,
}

impl TextRange {
    pub fn new(start: usize, end: usize) -> TextRange {
        debug_assert!(start <= end, "range {start}..{end} is reversed");
        TextRange {
            start: clamp(start),
            end: clamp(end.max(start)),
        }
    }

    /// An empty range at `offset`, for things that are missing.
    pub fn empty(offset: usize) -> TextRange {
        TextRange::new(offset, offset)
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }

    pub fn as_usize(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// Files larger than 4 GiB are refused before parsing; this only guards the cast.
fn clamp(offset: usize) -> u32 {
    u32::try_from(offset).unwrap_or(u32::MAX)
}
