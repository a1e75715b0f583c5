//! Shape operations: reshape, flatten, squeeze, transpose, permute,
//! expand, cat, stack, split, chunk, narrow, flip, roll, and the shape
//! queries.

use std::rc::Rc;

use ndarray::{Axis, IxDyn, Slice};

use super::creation::new_shape;
use super::{normalize_dim, Args, OpContext};
use crate::error::{Failure, Outcome};
use crate::value::{dims_text, Tensor, Value};

pub fn call(ctx: &mut OpContext, name: &str, args: &Args) -> Outcome<Option<Value>> {
    let t = match name {
        "reshape" => reshape(ctx, &*args.tensor("input")?, &args.dims("shape")?)?,
        "view" => reshape(ctx, &*args.tensor("input")?, &args.dims("size")?)?,
        "flatten" => {
            let t = args.tensor("input")?;
            flatten(&t, args.int("start_dim")?, args.int("end_dim")?)?
        }
        "squeeze" => {
            let t = args.tensor("input")?;
            match args.opt_int("dim")? {
                None => {
                    let dims: Vec<usize> = t.shape().iter().copied().filter(|d| *d != 1).collect();
                    reshape_exact(&t, &dims)?
                }
                Some(d) => {
                    let axis = normalize_dim(d, t.ndim())?;
                    if t.ndim() > 0 && t.shape()[axis] == 1 {
                        t.index_axis(Axis(axis), 0).to_owned()
                    } else {
                        (*t).clone()
                    }
                }
            }
        }
        "unsqueeze" => {
            let t = args.tensor("input")?;
            let axis = normalize_dim(args.int("dim")?, t.ndim() + 1)?;
            (*t).clone().insert_axis(Axis(axis))
        }
        "transpose" | "swapdims" | "swapaxes" => {
            let t = args.tensor("input")?;
            let (first, second) = match name {
                "swapaxes" => ("axis0", "axis1"),
                _ => ("dim0", "dim1"),
            };
            let a = normalize_dim(args.int(first)?, t.ndim())?;
            let b = normalize_dim(args.int(second)?, t.ndim())?;
            let mut out = (*t).clone();
            if t.ndim() > 0 {
                out.swap_axes(a, b);
            }
            out.as_standard_layout().to_owned()
        }
        "t" => {
            let t = args.tensor("input")?;
            if t.ndim() > 2 {
                return Err(Failure::shape(format!(
                    "`t` expects a tensor with at most 2 dimensions, but the input has {}",
                    t.ndim()
                )));
            }
            t.t().as_standard_layout().to_owned()
        }
        "permute" => {
            let t = args.tensor("input")?;
            let dims = args.dims("dims")?;
            if dims.len() != t.ndim() {
                return Err(Failure::shape(format!(
                    "`permute`: the number of dimensions given ({}) is not the rank of the input ({})",
                    dims.len(),
                    t.ndim()
                )));
            }
            let mut axes = Vec::new();
            for d in &dims {
                let axis = normalize_dim(*d, t.ndim())?;
                if axes.contains(&axis) {
                    return Err(Failure::shape(format!(
                        "`permute`: dimension {axis} is repeated"
                    )));
                }
                axes.push(axis);
            }
            t.view()
                .permuted_axes(IxDyn(&axes))
                .as_standard_layout()
                .to_owned()
        }
        "expand" => expand(ctx, &*args.tensor("input")?, &args.dims("size")?)?,
        "broadcast_to" => expand(ctx, &*args.tensor("input")?, &args.dims("shape")?)?,
        "cat" => cat(ctx, &args.tensors("tensors")?, args.int("dim")?)?,
        "stack" => {
            let tensors = args.tensors("tensors")?;
            let rank = tensors.first().map_or(0, |t| t.ndim());
            let axis = normalize_dim(args.int("dim")?, rank + 1)?;
            let expanded: Vec<Rc<Tensor>> = tensors
                .iter()
                .map(|t| Rc::new((**t).clone().insert_axis(Axis(axis))))
                .collect();
            if let Some(bad) = tensors.iter().find(|t| t.shape() != tensors[0].shape()) {
                return Err(Failure::shape(format!(
                    "`stack` expects each tensor to be equal size, but got {} and {}",
                    dims_text(&as_i64(tensors[0].shape())),
                    dims_text(&as_i64(bad.shape()))
                )));
            }
            cat(ctx, &expanded, axis as i64)?
        }
        "split" | "chunk" => return split(args, name).map(Some),
        "narrow" => {
            let t = args.tensor("input")?;
            let axis = normalize_dim(args.int("dim")?, t.ndim())?;
            let size = t.shape()[axis] as i64;
            let start = args.int("start")?;
            let start = if start < 0 { start + size } else { start };
            let length = args.int("length")?;
            if start < 0 || length < 0 || start + length > size {
                return Err(Failure::shape(format!(
                    "`narrow`: start ({start}) + length ({length}) exceeds dimension size ({size})"
                )));
            }
            t.slice_axis(
                Axis(axis),
                Slice::from(start as usize..(start + length) as usize),
            )
            .to_owned()
        }
        "diff" => diff(args)?,
        "meshgrid" => return meshgrid(args).map(Some),
        "flip" => flip(&*args.tensor("input")?, &args.dims("dims")?)?,
        "roll" => roll(args)?,
        "size" => {
            let t = args.tensor("input")?;
            return Ok(Some(match args.opt_int("dim")? {
                None => Value::shape(as_i64(t.shape())),
                Some(d) => Value::Int(t.shape()[normalize_dim(d, t.ndim())?] as i64),
            }));
        }
        "dim" => return Ok(Some(Value::Int(args.tensor("input")?.ndim() as i64))),
        "numel" => return Ok(Some(Value::Int(args.tensor("input")?.len() as i64))),
        _ => return Ok(None),
    };
    Ok(Some(Value::tensor(t)))
}

pub fn as_i64(dims: &[usize]) -> Vec<i64> {
    dims.iter().map(|d| *d as i64).collect()
}

/// `reshape` with at most one `-1`.
pub fn reshape(ctx: &OpContext, t: &Tensor, dims: &[i64]) -> Outcome<Tensor> {
    let unknown: Vec<usize> = dims
        .iter()
        .enumerate()
        .filter(|(_, d)| **d == -1)
        .map(|(i, _)| i)
        .collect();
    if unknown.len() > 1 {
        return Err(Failure::shape(
            "`reshape`: only one dimension can be inferred (-1)",
        ));
    }
    let known: i64 = dims.iter().filter(|d| **d != -1).product();
    let total = t.len() as i64;
    let mut shape = dims.to_vec();
    let invalid = || {
        Failure::shape(format!(
            "shape '{}' is invalid for input of size {total}",
            dims_text(dims)
        ))
    };
    if let Some(at) = unknown.first() {
        if known <= 0 || total % known != 0 {
            return Err(invalid());
        }
        shape[*at] = total / known;
    }
    if shape.iter().product::<i64>() != total {
        return Err(invalid());
    }
    let shape = new_shape(ctx, &shape)?;
    reshape_exact(t, &shape)
}

fn reshape_exact(t: &Tensor, shape: &[usize]) -> Outcome<Tensor> {
    t.as_standard_layout()
        .to_owned()
        .into_shape_with_order(IxDyn(shape))
        .map_err(|e| Failure::program(e.to_string()))
}

fn flatten(t: &Tensor, start: i64, end: i64) -> Outcome<Tensor> {
    if t.ndim() == 0 {
        return reshape_exact(t, &[1]);
    }
    let s = normalize_dim(start, t.ndim())?;
    let e = normalize_dim(end, t.ndim())?;
    if s > e {
        return Err(Failure::shape(
            "`flatten`: start_dim cannot come after end_dim",
        ));
    }
    let mut shape: Vec<usize> = t.shape()[..s].to_vec();
    shape.push(t.shape()[s..=e].iter().product());
    shape.extend_from_slice(&t.shape()[e + 1..]);
    reshape_exact(t, &shape)
}

/// `expand`/`broadcast_to`: `-1` keeps a dimension; new dimensions lead.
fn expand(ctx: &OpContext, t: &Tensor, sizes: &[i64]) -> Outcome<Tensor> {
    if sizes.len() < t.ndim() {
        return Err(Failure::shape(format!(
            "`expand`: the number of sizes provided ({}) must be greater or equal to the number of dimensions in the tensor ({})",
            sizes.len(),
            t.ndim()
        )));
    }
    let offset = sizes.len() - t.ndim();
    let mut shape = Vec::new();
    for (i, size) in sizes.iter().enumerate() {
        let current = if i >= offset {
            Some(t.shape()[i - offset] as i64)
        } else {
            None
        };
        let size = match (*size, current) {
            (-1, Some(c)) => c,
            (-1, None) => {
                return Err(Failure::shape(
                    "`expand`: -1 is not allowed in a leading, non-existing dimension",
                ))
            }
            (s, Some(c)) if c != s && c != 1 => {
                return Err(Failure::shape(format!(
                    "the expanded size of the tensor ({s}) must match the existing size ({c}) at non-singleton dimension {i}"
                )))
            }
            (s, _) => s,
        };
        shape.push(size);
    }
    let shape = new_shape(ctx, &shape)?;
    Ok(t.broadcast(IxDyn(&shape))
        .ok_or_else(|| Failure::shape("`expand`: cannot broadcast"))?
        .to_owned())
}

fn cat(ctx: &OpContext, tensors: &[Rc<Tensor>], dim: i64) -> Outcome<Tensor> {
    let Some(first) = tensors.first() else {
        return Err(Failure::shape("`cat` expects a non-empty list of tensors"));
    };
    let axis = normalize_dim(dim, first.ndim())?;
    for t in tensors {
        let same = t.ndim() == first.ndim()
            && (0..t.ndim()).all(|i| i == axis || t.shape()[i] == first.shape()[i]);
        if !same {
            return Err(Failure::shape(format!(
                "`cat`: sizes of tensors must match except in dimension {axis}, but got {} and {}",
                dims_text(&as_i64(first.shape())),
                dims_text(&as_i64(t.shape()))
            )));
        }
    }
    let mut shape = first.shape().to_vec();
    shape[axis] = tensors.iter().map(|t| t.shape()[axis]).sum();
    ctx.check_size(&shape)?;
    let views: Vec<_> = tensors.iter().map(|t| t.view()).collect();
    ndarray::concatenate(Axis(axis), &views).map_err(|e| Failure::program(e.to_string()))
}

/// `split(t, size or sizes, dim)` and `chunk(t, chunks, dim)`: a tuple.
fn split(args: &Args, name: &str) -> Outcome<Value> {
    let (t, parameter) = if name == "split" {
        (args.tensor("tensor")?, "split_size_or_sections")
    } else {
        (args.tensor("input")?, "chunks")
    };
    let axis = normalize_dim(args.int("dim")?, t.ndim())?;
    let total = t.shape()[axis] as i64;
    let sizes: Vec<i64> = match (name, args.get(parameter)) {
        ("split", Value::Int(size)) => {
            if *size < 1 {
                return Err(Failure::shape(format!(
                    "`split`: the split size must be positive, got {size}"
                )));
            }
            let mut sizes = vec![*size; (total / size) as usize];
            if total % size != 0 {
                sizes.push(total % size);
            }
            sizes
        }
        ("split", other) => {
            let sizes = other
                .as_dims()
                .ok_or_else(|| Failure::shape("`split` takes an Int or a list of Ints"))?;
            if sizes.iter().sum::<i64>() != total {
                return Err(Failure::shape(format!(
                    "`split` expects split sizes {} to sum exactly to {total} (the input's dimension {axis})",
                    dims_text(&sizes)
                )));
            }
            sizes
        }
        (_, Value::Int(chunks)) => {
            if *chunks < 1 {
                return Err(Failure::shape(format!(
                    "`chunk` expects at least one chunk, got {chunks}"
                )));
            }
            // PyTorch: chunks of ceil(total / chunks), the last smaller.
            let size = (total + chunks - 1) / chunks;
            let mut sizes = vec![size; (total / size) as usize];
            if total % size != 0 {
                sizes.push(total % size);
            }
            sizes
        }
        _ => return Err(Failure::shape("`chunk` takes an Int")),
    };
    let mut parts = Vec::new();
    let mut start = 0usize;
    for size in sizes {
        let end = start + size as usize;
        parts.push(Value::tensor(
            t.slice_axis(Axis(axis), Slice::from(start..end)).to_owned(),
        ));
        start = end;
    }
    Ok(Value::Tuple(Rc::new(parts)))
}

/// Reversed along each of `dims`.
fn flip(t: &Tensor, dims: &[i64]) -> Outcome<Tensor> {
    let mut axes = Vec::new();
    for d in dims {
        let axis = normalize_dim(*d, t.ndim())?;
        if axes.contains(&axis) {
            return Err(Failure::shape(format!(
                "`flip`: dim {axis} appears multiple times in the list of dims"
            )));
        }
        axes.push(axis);
    }
    let mut out = t.view();
    for axis in axes {
        if t.ndim() > 0 {
            out.invert_axis(Axis(axis));
        }
    }
    Ok(out.as_standard_layout().to_owned())
}

/// `roll(input, shifts, dims)`: each shift along its dimension, or along
/// the flattened elements when `dims` is not given.
fn roll(args: &Args) -> Outcome<Tensor> {
    let t = args.tensor("input")?;
    let shifts = args.dims("shifts")?;
    if matches!(args.get("dims"), Value::None) {
        let [shift] = shifts[..] else {
            return Err(Failure::shape(format!(
                "`roll`: shifts and dimensions must align: {} shifts and no dims",
                shifts.len()
            )));
        };
        let flat: Vec<f32> = t.iter().copied().collect();
        let n = flat.len() as i64;
        let mut rolled = flat.clone();
        for (i, x) in flat.into_iter().enumerate() {
            rolled[(i as i64 + shift).rem_euclid(n.max(1)) as usize] = x;
        }
        return Tensor::from_shape_vec(IxDyn(t.shape()), rolled)
            .map_err(|e| Failure::program(e.to_string()));
    }
    let dims = args.dims("dims")?;
    if dims.len() != shifts.len() {
        return Err(Failure::shape(format!(
            "`roll`: shifts and dimensions must align: {} shifts, {} dims",
            shifts.len(),
            dims.len()
        )));
    }
    let mut out = (*t).clone();
    for (shift, dim) in shifts.iter().zip(&dims) {
        let axis = normalize_dim(*dim, t.ndim())?;
        if t.ndim() == 0 {
            continue;
        }
        let n = out.shape()[axis] as i64;
        if n == 0 {
            continue;
        }
        let mut rolled = out.clone();
        for i in 0..n {
            let to = (i + shift).rem_euclid(n) as usize;
            rolled
                .index_axis_mut(Axis(axis), to)
                .assign(&out.index_axis(Axis(axis), i as usize));
        }
        out = rolled;
    }
    Ok(out)
}

/// `diff(input, n, dim)`: differences of neighbours along `dim`, `n`
/// times (empty once `n` reaches the size).
fn diff(args: &Args) -> Outcome<Tensor> {
    if !matches!(args.get("prepend"), Value::None) || !matches!(args.get("append"), Value::None) {
        return Err(Failure::program(
            "`diff` with `prepend` or `append` is not supported by the interpreter".to_owned(),
        ));
    }
    let mut t = (*args.tensor("input")?).clone();
    if t.ndim() == 0 {
        return Err(Failure::shape(
            "`diff` needs a tensor of at least one dimension".to_owned(),
        ));
    }
    let axis = Axis(normalize_dim(args.int("dim")?, t.ndim())?);
    for _ in 0..args.int("n")?.max(0) {
        let size = t.shape()[axis.0];
        if size == 0 {
            break;
        }
        let later = t.slice_axis(axis, Slice::from(1..size));
        let earlier = t.slice_axis(axis, Slice::from(0..size - 1));
        t = &later - &earlier;
    }
    Ok(t)
}

/// `meshgrid(a, b, ...)`: one grid per input, the input's items along its
/// own axis (`indexing="xy"`: the first two axes swapped).
fn meshgrid(args: &Args) -> Outcome<Value> {
    let given = match args.get("tensors") {
        Value::List(items) | Value::Tuple(items) => match items.as_slice() {
            [Value::List(inner) | Value::Tuple(inner)] => inner.clone(),
            _ => items.clone(),
        },
        _ => return Err(Failure::program("`meshgrid` needs tensors".to_owned())),
    };
    let mut inputs = Vec::new();
    for value in given.iter() {
        let t = value
            .as_tensor()
            .ok_or_else(|| Failure::program("`meshgrid` needs tensors".to_owned()))?;
        if t.ndim() > 1 {
            return Err(Failure::shape(
                "`meshgrid` takes tensors of at most one dimension".to_owned(),
            ));
        }
        inputs.push(t.iter().copied().collect::<Vec<f32>>());
    }
    let xy = args.str("indexing") == Some("xy") && inputs.len() >= 2;
    // The axis each input varies along.
    let axis_of = |i: usize| match (xy, i) {
        (true, 0) => 1,
        (true, 1) => 0,
        _ => i,
    };
    let mut sizes: Vec<usize> = vec![0; inputs.len()];
    for (i, items) in inputs.iter().enumerate() {
        sizes[axis_of(i)] = items.len();
    }
    let grids = inputs
        .iter()
        .enumerate()
        .map(|(i, items)| {
            let axis = axis_of(i);
            let grid = ndarray::ArrayD::from_shape_fn(IxDyn(&sizes), |at| items[at[axis]]);
            Value::tensor(grid)
        })
        .collect();
    Ok(Value::Tuple(Rc::new(grids)))
}
