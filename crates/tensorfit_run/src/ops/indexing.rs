//! Indexing, repeating and sorting: `gather`, `index_select`, `repeat`,
//! `tile`, `repeat_interleave`, `unbind`, `topk`, `sort`.

use std::rc::Rc;

use ndarray::{ArrayD, Axis, Dimension, IxDyn};

use super::{normalize_dim, Args, OpContext};
use crate::error::{Failure, Outcome};
use crate::value::{Tensor, Value};

pub fn call(ctx: &mut OpContext, name: &str, args: &Args) -> Outcome<Option<Value>> {
    let value = match name {
        "repeat" => Value::tensor(repeat(ctx, args, "repeats")?),
        "tile" => Value::tensor(repeat(ctx, args, "dims")?),
        "repeat_interleave" => Value::tensor(repeat_interleave(ctx, args)?),
        "unbind" => {
            let t = args.tensor("input")?;
            let axis = normalize_dim(args.int("dim")?, t.ndim())?;
            if t.ndim() == 0 {
                return Err(Failure::shape("`unbind` needs a tensor with dimensions"));
            }
            let parts = t
                .axis_iter(Axis(axis))
                .map(|part| Value::tensor(part.to_owned()))
                .collect();
            Value::Tuple(Rc::new(parts))
        }
        "gather" => Value::tensor(gather(args)?),
        "index_select" => Value::tensor(index_select(args)?),
        "topk" => {
            let t = args.tensor("input")?;
            let k = args.int("k")?;
            sorted(&t, args.int("dim")?, Some(k), args.bool("largest")?)?
        }
        "sort" => {
            let t = args.tensor("input")?;
            sorted(&t, args.int("dim")?, None, args.bool("descending")?)?
        }
        _ => return Ok(None),
    };
    Ok(Some(value))
}

/// `repeat(x, repeats)` (a count for every dimension at least) and
/// `tile(x, dims)`: the shorter of the shape and the counts padded with
/// leading ones.
fn repeat(ctx: &OpContext, args: &Args, key: &str) -> Outcome<Tensor> {
    let t = args.tensor("input")?;
    let counts = args.dims(key)?;
    if key == "repeats" && counts.len() < t.ndim() {
        return Err(Failure::shape(
            "`repeat`: the number of repeat dims can not be smaller than the number of dimensions of the tensor",
        ));
    }
    if let Some(c) = counts.iter().find(|c| **c < 0) {
        return Err(Failure::shape(format!(
            "trying to create a tensor with negative dimension {c}"
        )));
    }
    let rank = t.ndim().max(counts.len());
    let mut dims = vec![1usize; rank - t.ndim()];
    dims.extend_from_slice(t.shape());
    let mut reps = vec![1usize; rank - counts.len()];
    reps.extend(counts.iter().map(|c| *c as usize));
    let input = t
        .as_standard_layout()
        .to_owned()
        .into_shape_with_order(IxDyn(&dims))
        .map_err(|e| Failure::program(e.to_string()))?;
    let out: Vec<usize> = dims.iter().zip(&reps).map(|(d, r)| d * r).collect();
    ctx.check_size(&out)?;
    Ok(ArrayD::from_shape_fn(IxDyn(&out), |index| {
        let at: Vec<usize> = (0..rank).map(|i| index[i] % dims[i]).collect();
        input[IxDyn(&at)]
    }))
}

/// `repeat_interleave(x, repeats, dim)`: each element (or slice along
/// `dim`) `repeats` times in a row; the flattened input without `dim`.
fn repeat_interleave(ctx: &OpContext, args: &Args) -> Outcome<Tensor> {
    let t = args.tensor("input")?;
    let repeats = args.int("repeats")?;
    if repeats < 0 {
        return Err(Failure::shape(
            "`repeat_interleave`: repeats can not be negative",
        ));
    }
    let repeats = repeats as usize;
    let (input, axis) = match args.opt_int("dim")? {
        None => {
            let flat: Vec<f32> = t.iter().copied().collect();
            (
                ArrayD::from_shape_vec(IxDyn(&[flat.len()]), flat).expect("one dimension"),
                0,
            )
        }
        Some(dim) => {
            if t.ndim() == 0 {
                normalize_dim(dim, 0)?;
                let flat = vec![t.iter().copied().next().unwrap_or(0.0)];
                (
                    ArrayD::from_shape_vec(IxDyn(&[1]), flat).expect("one dimension"),
                    0,
                )
            } else {
                ((*t).clone(), normalize_dim(dim, t.ndim())?)
            }
        }
    };
    let mut out: Vec<usize> = input.shape().to_vec();
    out[axis] *= repeats;
    ctx.check_size(&out)?;
    Ok(ArrayD::from_shape_fn(IxDyn(&out), |index| {
        let mut at: Vec<usize> = index.slice().to_vec();
        at[axis] /= repeats.max(1);
        input[IxDyn(&at)]
    }))
}

/// An index tensor's element as a position along a dimension of `size`
/// (negative positions are not allowed, as in PyTorch's `gather`).
fn position(value: f32, size: usize, op: &str) -> Outcome<usize> {
    let at = value as i64;
    if at < 0 || at as usize >= size {
        return Err(Failure::shape(format!(
            "`{op}`: index {at} is out of bounds for a dimension of size {size}"
        )));
    }
    Ok(at as usize)
}

/// `gather(x, dim, index)`: `out[i][j] = x[index[i][j]][j]` for `dim` 0.
fn gather(args: &Args) -> Outcome<Tensor> {
    let t = args.tensor("input")?;
    let index = args.tensor("index")?;
    if index.ndim() != t.ndim() {
        return Err(Failure::shape(
            "`gather`: the index tensor must have the same number of dimensions as the input tensor",
        ));
    }
    let axis = normalize_dim(args.int("dim")?, t.ndim())?;
    for i in 0..t.ndim() {
        if i != axis && index.shape()[i] > t.shape()[i] {
            return Err(Failure::shape(format!(
                "`gather`: size does not match at dimension {i}: the index is larger than the input apart from dimension {axis}"
            )));
        }
    }
    if t.ndim() == 0 {
        position(index[IxDyn(&[])], 1, "gather")?;
        return Ok((*t).clone());
    }
    let mut out = ArrayD::zeros(index.shape());
    for (at, v) in out.indexed_iter_mut() {
        let mut from: Vec<usize> = at.slice().to_vec();
        from[axis] = position(index[&at], t.shape()[axis], "gather")?;
        *v = t[IxDyn(&from)];
    }
    Ok(out)
}

/// `index_select(x, dim, index)`: the slices of `dim` at the indices.
fn index_select(args: &Args) -> Outcome<Tensor> {
    let t = args.tensor("input")?;
    let index = args.tensor("index")?;
    if index.ndim() > 1 {
        return Err(Failure::shape(
            "`index_select`: the index is supposed to be a vector",
        ));
    }
    let axis = normalize_dim(args.int("dim")?, t.ndim())?;
    if t.ndim() == 0 {
        for i in index.iter() {
            position(*i, 1, "index_select")?;
        }
        return Ok((*t).clone());
    }
    let mut positions = Vec::new();
    for i in index.iter() {
        positions.push(position(*i, t.shape()[axis], "index_select")?);
    }
    Ok(t.select(Axis(axis), &positions))
}

/// `sort` (all of `dim`, ascending unless `reverse`) and `topk` (`k` of
/// them, largest first when `reverse`): the values and their indices.
fn sorted(t: &Tensor, dim: i64, k: Option<i64>, reverse: bool) -> Outcome<Value> {
    let axis = normalize_dim(dim, t.ndim())?;
    let length = if t.ndim() == 0 { 1 } else { t.shape()[axis] };
    let k = match k {
        Some(k) if k < 0 || k as usize > length => {
            return Err(Failure::shape(format!(
                "`topk`: selected index k = {k} out of range for a dimension of {length}"
            )))
        }
        Some(k) => k as usize,
        None => length,
    };
    if t.ndim() == 0 {
        let values = t.clone();
        let indices = t.mapv(|_| 0.0);
        return Ok(pair(values, indices));
    }
    let mut shape = t.shape().to_vec();
    shape[axis] = k;
    let mut values = ArrayD::zeros(IxDyn(&shape));
    let mut indices = ArrayD::zeros(IxDyn(&shape));
    for ((lane, mut value_lane), mut index_lane) in t
        .lanes(Axis(axis))
        .into_iter()
        .zip(values.lanes_mut(Axis(axis)))
        .zip(indices.lanes_mut(Axis(axis)))
    {
        let mut order: Vec<usize> = (0..lane.len()).collect();
        // Stable, NaN last (PyTorch sorts NaN as the largest).
        order.sort_by(|a, b| {
            let (x, y) = (lane[*a], lane[*b]);
            let ascending = x
                .partial_cmp(&y)
                .unwrap_or_else(|| x.is_nan().cmp(&y.is_nan()));
            if reverse {
                ascending.reverse()
            } else {
                ascending
            }
        });
        for (slot, from) in order.into_iter().take(k).enumerate() {
            value_lane[slot] = lane[from];
            index_lane[slot] = from as f32;
        }
    }
    Ok(pair(values, indices))
}

fn pair(values: Tensor, indices: Tensor) -> Value {
    Value::Tuple(Rc::new(vec![Value::tensor(values), Value::tensor(indices)]))
}
