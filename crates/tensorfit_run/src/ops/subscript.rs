//! `t[...]` with PyTorch's basic indexing: integers remove their dimension,
//! slices keep it (Python's clamped bounds, positive steps only), `None`
//! inserts a dimension of 1 and `...` stands for the dimensions no other
//! index takes.

use ndarray::{Axis, Slice};
use tensorfit_base::slice_positions;

use crate::error::{Failure, Outcome};
use crate::value::Tensor;

/// One evaluated index of a subscript.
#[derive(Clone, Copy, Debug)]
pub enum IndexItem {
    At(i64),
    Slice {
        start: Option<i64>,
        stop: Option<i64>,
        step: Option<i64>,
    },
    Ellipsis,
    NewAxis,
}

impl IndexItem {
    fn consumes(self) -> bool {
        matches!(self, IndexItem::At(_) | IndexItem::Slice { .. })
    }
}

/// The part of `t` the indices select, as a tensor (of rank 0 when every
/// dimension is indexed by an integer). The indices are applied one after
/// another as PyTorch 1.13 does: each `...` skips the dimensions no other
/// index takes (so a second `...` skips them again rather than failing).
pub fn index_tensor(t: &Tensor, items: &[IndexItem], what: &str) -> Outcome<Tensor> {
    let rank = t.ndim();
    let specified = items.iter().filter(|i| i.consumes()).count();
    if specified > rank {
        return Err(Failure::shape(format!(
            "too many indices for `{what}`: {specified} indexed dimensions, but it has {rank}"
        )));
    }
    let mut result = t.view();
    // `dim` is the position in `result`; `original` the dimension of `t`
    // it came from, for messages.
    let (mut dim, mut original) = (0usize, 0usize);
    let out_of_range = |original: usize| {
        Failure::shape(format!(
            "`{what}` has {rank} dimensions, and its index reaches past them at dimension {original}"
        ))
    };
    for item in items {
        match *item {
            IndexItem::Ellipsis => {
                dim += rank - specified;
                original += rank - specified;
            }
            IndexItem::NewAxis => {
                if dim > result.ndim() {
                    return Err(out_of_range(original));
                }
                result = result.insert_axis(Axis(dim));
                dim += 1;
            }
            IndexItem::At(i) => {
                if dim >= result.ndim() {
                    return Err(out_of_range(original));
                }
                let size = result.shape()[dim] as i64;
                let at = if i < 0 { i + size } else { i };
                if !(0..size).contains(&at) {
                    return Err(Failure::shape(format!(
                        "index {i} is out of range for dimension {original} of `{what}`, of size {size}"
                    )));
                }
                result = result.index_axis_move(Axis(dim), at as usize);
                original += 1;
            }
            IndexItem::Slice { start, stop, step } => {
                if dim >= result.ndim() {
                    return Err(out_of_range(original));
                }
                let step = step.unwrap_or(1);
                if step <= 0 {
                    return Err(Failure::shape(format!(
                        "the slice of dimension {original} of `{what}` has step {step}, but a tensor's slice step must be greater than zero"
                    )));
                }
                let size = result.shape()[dim] as i64;
                let kept = slice_positions(size, start, stop, step).expect("positive step");
                // The last kept position plus one: ndarray refuses an end
                // past the dimension, where Python clamps.
                let end = kept.start + (kept.len - 1).max(0) * step + i64::from(kept.len > 0);
                result.slice_axis_inplace(
                    Axis(dim),
                    Slice::new(kept.start as isize, Some(end as isize), step as isize),
                );
                dim += 1;
                original += 1;
            }
        }
    }
    Ok(result.to_owned())
}

/// `items[start:stop:step]` of a shape, list or tuple, as Python slices
/// sequences (negative steps included).
pub fn slice_sequence<T: Clone>(
    items: &[T],
    start: Option<i64>,
    stop: Option<i64>,
    step: Option<i64>,
) -> Outcome<Vec<T>> {
    let kept = slice_positions(items.len() as i64, start, stop, step.unwrap_or(1))
        .ok_or_else(|| Failure::shape("slice step cannot be zero"))?;
    Ok(kept.iter().map(|p| items[p as usize].clone()).collect())
}
