//! Python's slice arithmetic, shared by the analysis and the interpreter so
//! that both read `s[start:stop:step]` alike: missing bounds take the
//! step's direction, negative bounds count from the end, and bounds past
//! either end are clamped (CPython's `PySlice_AdjustIndices`).

/// The positions a slice selects: `start + k * step` for `k` in `0..len`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlicePositions {
    pub start: i64,
    pub step: i64,
    pub len: i64,
}

impl SlicePositions {
    pub fn iter(self) -> impl Iterator<Item = i64> {
        (0..self.len).map(move |k| self.start + k * self.step)
    }
}

/// The slice `start:stop:step` of a sequence of `len` items; `None` for a
/// step of zero, which Python refuses.
pub fn slice_positions(
    len: i64,
    start: Option<i64>,
    stop: Option<i64>,
    step: i64,
) -> Option<SlicePositions> {
    if step == 0 {
        return None;
    }
    // Where a bound clamps to: the ends a step in this direction can reach.
    let (low, high) = if step > 0 { (0, len) } else { (-1, len - 1) };
    let adjust = |bound: i64| {
        if bound < 0 {
            (bound.saturating_add(len)).max(low)
        } else {
            bound.min(high)
        }
    };
    let start = start.map_or(if step > 0 { low } else { high }, adjust);
    let stop = stop.map_or(if step > 0 { high } else { low }, adjust);
    let len = if step > 0 {
        if stop > start {
            (stop - start - 1) / step + 1
        } else {
            0
        }
    } else if start > stop {
        (start - stop - 1) / -step + 1
    } else {
        0
    };
    Some(SlicePositions { start, step, len })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sequence length, `start`, `stop`, `step` and the positions kept.
    type Case = (i64, Option<i64>, Option<i64>, i64, &'static [i64]);

    /// Checked against CPython: `list(range(n))[a:b:c]`.
    #[test]
    fn agrees_with_python() {
        let cases: &[Case] = &[
            (5, None, None, 1, &[0, 1, 2, 3, 4]),
            (5, Some(1), Some(3), 1, &[1, 2]),
            (5, Some(-2), None, 1, &[3, 4]),
            (5, None, Some(-1), 1, &[0, 1, 2, 3]),
            (5, Some(3), Some(1), 1, &[]),
            (5, Some(-10), Some(10), 1, &[0, 1, 2, 3, 4]),
            (5, None, None, 2, &[0, 2, 4]),
            (5, Some(1), None, 3, &[1, 4]),
            (5, None, None, -1, &[4, 3, 2, 1, 0]),
            (5, Some(3), Some(0), -1, &[3, 2, 1]),
            (5, Some(10), None, -2, &[4, 2, 0]),
            (5, Some(-1), Some(-10), -3, &[4, 1]),
            (0, None, None, 1, &[]),
            (3, Some(7), None, 1, &[]),
        ];
        for (len, start, stop, step, expected) in cases {
            let got: Vec<i64> = slice_positions(*len, *start, *stop, *step)
                .expect("nonzero step")
                .iter()
                .collect();
            assert_eq!(&got, expected, "[{start:?}:{stop:?}:{step}] of {len}");
        }
        assert_eq!(slice_positions(4, None, None, 0), None);
    }
}
