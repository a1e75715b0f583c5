//! Where the offsets of an older version of a text are in the current one.
//!
//! The language server answers hover and inlay hints from the last
//! finished analysis while a newer version is being checked: it maps the
//! request's offset back to that analysis's text, and the answer's ranges
//! forward. An [`EditMap`] is the difference between the two versions: the
//! regions of the old text that were replaced, each with the length of what
//! replaced it. Edits are recorded one after the other, in the coordinates
//! of the text they were made in, and merged when they meet, so typing a
//! word is one region however many keys it took.

use crate::TextRange;

/// One edit as it was applied: `start..end` of the text at that moment
/// (bytes) replaced by `inserted` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteEdit {
    pub start: u32,
    pub end: u32,
    pub inserted: u32,
}

/// A region of the old text and the length of its replacement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Replaced {
    old: TextRange,
    new_len: u32,
}

impl Replaced {
    /// How much longer the text is after it.
    fn growth(&self) -> i64 {
        i64::from(self.new_len) - i64::from(self.old.end - self.old.start)
    }
}

/// The replaced regions between an old version and the current one,
/// sorted, disjoint and not touching.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EditMap {
    replaced: Vec<Replaced>,
}

fn shifted(offset: u32, by: i64) -> u32 {
    u32::try_from(i64::from(offset) + by).unwrap_or(0)
}

impl EditMap {
    /// No edit since the old version.
    pub fn is_empty(&self) -> bool {
        self.replaced.is_empty()
    }

    /// How many separate regions were edited.
    pub fn regions(&self) -> usize {
        self.replaced.len()
    }

    /// Records an edit made to the current text (in its offsets).
    pub fn record(&mut self, edit: ByteEdit) {
        let (s, e) = (edit.start, edit.end.max(edit.start));
        // Each region's place in the current text, and the growth before it.
        let mut growth_before = 0i64;
        let mut current = Vec::with_capacity(self.replaced.len());
        for r in &self.replaced {
            let start = shifted(r.old.start, growth_before);
            current.push((start, start + r.new_len, growth_before));
            growth_before += r.growth();
        }
        // The regions the edit meets or touches merge with it.
        let met: Vec<usize> = (0..current.len())
            .filter(|&i| current[i].1 >= s && current[i].0 <= e)
            .collect();
        let (first, last) = match (met.first(), met.last()) {
            (Some(&first), Some(&last)) => (first, last),
            _ => {
                let at = current.partition_point(|c| c.0 < s);
                let before = current.get(at).map_or(growth_before, |c| c.2);
                let old =
                    TextRange::new(shifted(s, -before) as usize, shifted(e, -before) as usize);
                self.replaced.insert(
                    at,
                    Replaced {
                        old,
                        new_len: edit.inserted,
                    },
                );
                return;
            }
        };
        let (first_start, _, before_first) = current[first];
        let (_, last_end, before_last) = current[last];
        let old_start = if s < first_start {
            shifted(s, -before_first)
        } else {
            self.replaced[first].old.start
        };
        let old_end = if e > last_end {
            shifted(e, -(before_last + self.replaced[last].growth()))
        } else {
            self.replaced[last].old.end
        };
        let merged_start = s.min(first_start);
        let merged_end = e.max(last_end);
        let new_len = (merged_end - merged_start) - (e - s) + edit.inserted;
        let merged = Replaced {
            old: TextRange::new(old_start as usize, old_end as usize),
            new_len,
        };
        // Typing and deleting it again leaves nothing to map.
        let no_op = merged.old.start == merged.old.end && new_len == 0;
        let merged = (!no_op).then_some(merged);
        self.replaced.splice(first..=last, merged);
    }

    /// The old offset of a current one, `None` inside new text (a boundary
    /// of an edited region maps to the same boundary of the old region).
    pub fn to_old(&self, offset: u32) -> Option<u32> {
        let mut growth = 0i64;
        for r in &self.replaced {
            let start = shifted(r.old.start, growth);
            let end = start + r.new_len;
            if offset < start {
                break;
            }
            // At a deletion both ends meet: the text after it is meant.
            if offset == end {
                return Some(r.old.end);
            }
            if offset == start {
                return Some(r.old.start);
            }
            if offset < end {
                return None;
            }
            growth += r.growth();
        }
        Some(shifted(offset, -growth))
    }

    /// Where an old range is now; `None` when an edit changed its text.
    /// Text typed right before or after the range stays outside it.
    pub fn to_current(&self, range: TextRange) -> Option<TextRange> {
        let (mut start_by, mut end_by) = (0i64, 0i64);
        for r in &self.replaced {
            let inside = r.old.start < range.end && r.old.end > range.start;
            let inserted_inside =
                r.old.start == r.old.end && range.start < r.old.start && r.old.start < range.end;
            if inside || inserted_inside {
                return None;
            }
            if r.old.end <= range.start {
                start_by += r.growth();
            }
            if r.old.end <= range.end && r.old.start < range.end {
                end_by += r.growth();
            }
        }
        Some(TextRange::new(
            shifted(range.start, start_by) as usize,
            shifted(range.end, end_by).max(shifted(range.start, start_by)) as usize,
        ))
    }

    /// Whether an edit touched the old range (its text or its ends).
    pub fn touches(&self, range: TextRange) -> bool {
        self.replaced
            .iter()
            .any(|r| r.old.start <= range.end && range.start <= r.old.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Applies edits to `text` and records them; then checks that every
    /// character of the old text outside edited regions is found at its
    /// mapped offset, both ways.
    fn check(text: &str, edits: &[(u32, u32, &str)]) -> (String, EditMap) {
        let mut current = text.to_owned();
        let mut map = EditMap::default();
        for &(start, end, inserted) in edits {
            current.replace_range(start as usize..end as usize, inserted);
            map.record(ByteEdit {
                start,
                end,
                inserted: inserted.len() as u32,
            });
        }
        for (old, ch) in text.char_indices() {
            let range = TextRange::new(old, old + 1);
            if let Some(now) = map.to_current(range) {
                assert_eq!(
                    current[now.as_usize()].chars().next(),
                    Some(ch),
                    "{old} in {current:?}"
                );
                assert_eq!(map.to_old(now.start), Some(old as u32));
            }
        }
        (current, map)
    }

    /// Where the old range `start..end` is now, as a pair.
    fn now(map: &EditMap, start: usize, end: usize) -> Option<(u32, u32)> {
        let range = map.to_current(TextRange::new(start, end))?;
        Some((range.start, range.end))
    }

    #[test]
    fn typing_a_word_is_one_region() {
        let (current, map) = check(
            "let x = a\nlet y = b\n",
            &[(9, 9, " "), (10, 10, "/"), (11, 11, "/"), (12, 12, "!")],
        );
        assert_eq!(current, "let x = a //!\nlet y = b\n");
        assert_eq!(map.regions(), 1);
        assert_eq!(map.to_old(13), Some(9));
        assert_eq!(map.to_old(11), None);
        // `y` moved by four.
        assert_eq!(now(&map, 14, 15), Some((18, 19)));
        // The range just before the typing keeps its end.
        assert_eq!(now(&map, 8, 9), Some((8, 9)));
    }

    #[test]
    fn typing_and_deleting_again_leaves_the_old_text_in_place() {
        let (current, map) = check(
            "abc def",
            &[(3, 3, "x"), (4, 4, "y"), (4, 5, ""), (3, 4, "")],
        );
        assert_eq!(current, "abc def");
        assert!(map.is_empty());
        assert_eq!(now(&map, 0, 7), Some((0, 7)));
        // Typed over with something else: touched, even at its ends.
        let (_, map) = check("abc def", &[(3, 4, "_")]);
        assert!(map.touches(TextRange::new(0, 3)));
        assert!(!map.touches(TextRange::new(5, 7)));
    }

    #[test]
    fn a_range_whose_text_changed_has_no_current_place() {
        let (_, map) = check("f(a, b)\ng(c)\n", &[(2, 3, "alpha"), (14, 15, "")]);
        assert_eq!(now(&map, 0, 7), None);
        assert_eq!(now(&map, 2, 3), None);
        assert_eq!(now(&map, 5, 6), Some((9, 10)));
        assert_eq!(map.regions(), 2);
    }

    #[test]
    fn edits_in_any_order_merge_where_they_meet() {
        // Later in the text first, then before it, then across both.
        let (current, map) = check(
            "0123456789abcdef",
            &[(10, 12, "X"), (2, 3, "YY"), (3, 12, "Z"), (0, 0, "<")],
        );
        assert_eq!(current, "<01YZcdef");
        assert_eq!(now(&map, 12, 16), Some((5, 9)));
        assert_eq!(map.to_old(5), Some(12));
    }

    #[test]
    fn mapping_agrees_with_the_text_for_many_random_edits() {
        // A small deterministic generator: no dependency for one test.
        let mut seed = 0x2545_f491_u64;
        let mut next = |n: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % u64::from(n.max(1))) as u32
        };
        let text: String = (0..200)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        for _ in 0..200 {
            let mut len = text.len() as u32;
            let edits: Vec<(u32, u32, &str)> = (0..1 + next(8))
                .map(|_| {
                    let start = next(len + 1);
                    let end = (start + next(6)).min(len);
                    let inserted = ["", "#", "##", "#####"][next(4) as usize];
                    len = len - (end - start) + inserted.len() as u32;
                    (start, end, inserted)
                })
                .collect();
            check(&text, &edits);
        }
    }
}
