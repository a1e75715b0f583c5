//! The tensor algebra of Rink's model language and TeIL, with 0-based
//! positions: `outer`, `contract`, `diag`, `expand_dim`, `project` and the
//! `reduce_*` operations.

use ndarray::{ArrayD, Axis, Dimension, IxDyn};

use super::{Args, OpContext};
use crate::error::{Failure, Outcome};
use crate::value::{Tensor, Value};

pub fn call(ctx: &mut OpContext, name: &str, args: &Args) -> Outcome<Option<Value>> {
    let t = match name {
        "outer" => outer(ctx, &*args.tensor("input")?, &*args.tensor("vec2")?)?,
        "contract" => {
            let t = args.tensor("input")?;
            let (i, j) = (args.int("i")?, args.int("j")?);
            let d = diag(&t, i, j, "contract")?;
            let kept = position(i, t.ndim(), "contract")?;
            let kept = if kept > position(j, t.ndim(), "contract")? {
                kept - 1
            } else {
                kept
            };
            d.sum_axis(Axis(kept))
        }
        "diag" => diag(
            &*args.tensor("input")?,
            args.int("i")?,
            args.int("j")?,
            "diag",
        )?,
        "expand_dim" => {
            let t = args.tensor("input")?;
            let i = args.int("i")?;
            let n = args.int("n")?;
            if !(0..=t.ndim() as i64).contains(&i) {
                return Err(Failure::shape(format!(
                    "`expand_dim` inserts at position {i}, but the input has rank {}",
                    t.ndim()
                )));
            }
            if n < 1 {
                return Err(Failure::shape(format!(
                    "`expand_dim`: the new extent {n} is not positive"
                )));
            }
            let inserted = (*t).clone().insert_axis(Axis(i as usize));
            let mut shape = inserted.shape().to_vec();
            shape[i as usize] = n as usize;
            ctx.check_size(&shape)?;
            inserted
                .broadcast(IxDyn(&shape))
                .ok_or_else(|| Failure::program("cannot broadcast"))?
                .to_owned()
        }
        "project" => {
            let t = args.tensor("input")?;
            let i = position(args.int("i")?, t.ndim(), "project")?;
            let m = args.int("m")?;
            let extent = t.shape()[i] as i64;
            if !(0..extent).contains(&m) {
                return Err(Failure::shape(format!(
                    "`project` selects index {m} of dimension {i}, whose size is {extent}"
                )));
            }
            t.index_axis(Axis(i), m as usize).to_owned()
        }
        "reduce_sum" | "reduce_prod" | "reduce_max" | "reduce_min" => {
            let t = args.tensor("input")?;
            let i = position(args.int("i")?, t.ndim(), name)?;
            if t.shape()[i] == 0 && matches!(name, "reduce_max" | "reduce_min") {
                return Err(Failure::shape(format!(
                    "`{name}` over an empty dimension has no value"
                )));
            }
            t.map_axis(Axis(i), |lane| match name {
                "reduce_sum" => lane.sum(),
                "reduce_prod" => lane.product(),
                "reduce_max" => lane.fold(f32::NEG_INFINITY, |m, x| m.max(*x)),
                _ => lane.fold(f32::INFINITY, |m, x| m.min(*x)),
            })
        }
        _ => return Ok(None),
    };
    Ok(Some(Value::tensor(t)))
}

/// A position of the papers' operations: 0-based and in range.
fn position(i: i64, rank: usize, op: &str) -> Outcome<usize> {
    if (0..rank as i64).contains(&i) {
        Ok(i as usize)
    } else {
        Err(Failure::shape(format!(
            "`{op}` uses dimension {i}, but the input has rank {rank}"
        )))
    }
}

/// The tensor product: `a.shape ++ b.shape`.
pub fn outer(ctx: &OpContext, a: &Tensor, b: &Tensor) -> Outcome<Tensor> {
    let mut shape = a.shape().to_vec();
    shape.extend_from_slice(b.shape());
    ctx.check_size(&shape)?;
    let split = a.ndim();
    Ok(ArrayD::from_shape_fn(IxDyn(&shape), |index| {
        let index = index.slice();
        a[IxDyn(&index[..split])] * b[IxDyn(&index[split..])]
    }))
}

/// The diagonal over positions `i` and `j` (equal extents); `j` is removed.
fn diag(t: &Tensor, i: i64, j: i64, op: &str) -> Outcome<Tensor> {
    let i = position(i, t.ndim(), op)?;
    let j = position(j, t.ndim(), op)?;
    if i == j {
        return Err(Failure::shape(format!(
            "`{op}` needs two different dimensions, but got {i} twice"
        )));
    }
    let (a, b) = (t.shape()[i], t.shape()[j]);
    if a != b {
        let verb = if op == "contract" {
            "pairs"
        } else {
            "takes the diagonal of"
        };
        return Err(Failure::shape(format!(
            "`{op}` {verb} dimensions {i} and {j}, whose sizes differ: {a} and {b}"
        )));
    }
    let mut shape = t.shape().to_vec();
    shape.remove(j);
    let kept = if i > j { i - 1 } else { i };
    Ok(ArrayD::from_shape_fn(IxDyn(&shape), |index| {
        let mut source = index.slice().to_vec();
        source.insert(j, source[kept]);
        t[IxDyn(&source)]
    }))
}
