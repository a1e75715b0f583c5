//! Creation: `zeros`, `randn`, `arange`, `linspace`, `eye`, the `_like`
//! forms and the `new_` methods.

use ndarray::{ArrayD, IxDyn};

use super::{Args, OpContext};
use crate::error::{Failure, Outcome};
use crate::value::{Tensor, Value};

pub fn call(ctx: &mut OpContext, name: &str, args: &Args) -> Outcome<Option<Value>> {
    let t = match name {
        "zeros" | "empty" | "new_zeros" | "new_empty" => filled(ctx, &args.dims("size")?, 0.0)?,
        "ones" | "new_ones" => filled(ctx, &args.dims("size")?, 1.0)?,
        "full" | "new_full" => filled(ctx, &args.dims("size")?, args.float("fill_value")? as f32)?,
        "linspace" => linspace(ctx, args)?,
        "randn" => random(ctx, &args.dims("size")?, true)?,
        "rand" => random(ctx, &args.dims("size")?, false)?,
        "zeros_like" | "empty_like" => args.tensor("input")?.mapv(|_| 0.0),
        "ones_like" => args.tensor("input")?.mapv(|_| 1.0),
        "full_like" => {
            let v = args.float("fill_value")? as f32;
            args.tensor("input")?.mapv(|_| v)
        }
        "randn_like" | "rand_like" => {
            let dims: Vec<i64> = args
                .tensor("input")?
                .shape()
                .iter()
                .map(|d| *d as i64)
                .collect();
            random(ctx, &dims, name == "randn_like")?
        }
        "arange" => arange(ctx, args)?,
        "randint" => {
            // `randint(high, size)` or `randint(low, high, size)`.
            let (low, high, dims) = match args.get("size") {
                Value::None => (0, args.int("low")?, args.dims("high")?),
                _ => (args.int("low")?, args.int("high")?, args.dims("size")?),
            };
            let shape = new_shape(ctx, &dims)?;
            integers(ctx, shape, low, high)?
        }
        "randint_like" => {
            let shape = args.tensor("input")?.shape().to_vec();
            let (low, high) = match args.opt_int("high")? {
                Some(high) => (args.int("low")?, high),
                None => (0, args.int("low")?),
            };
            integers(ctx, shape, low, high)?
        }
        "randperm" => {
            let n = args.int("n")?;
            let shape = new_shape(ctx, &[n])?;
            let mut order: Vec<f32> = (0..n).map(|i| i as f32).collect();
            // Fisher-Yates with the run's generator.
            for i in (1..order.len()).rev() {
                let j = ((ctx.rng.uniform() * (i + 1) as f32) as usize).min(i);
                order.swap(i, j);
            }
            ArrayD::from_shape_vec(IxDyn(&shape), order)
                .map_err(|e| Failure::shape(e.to_string()))?
        }
        "eye" => {
            let n = args.int("n")?;
            let m = args.opt_int("m")?.unwrap_or(n);
            let mut t = filled(ctx, &[n, m], 0.0)?;
            for i in 0..n.min(m) as usize {
                t[[i, i].as_slice()] = 1.0;
            }
            t
        }
        _ => return Ok(None),
    };
    Ok(Some(Value::tensor(t)))
}

/// The dimensions of a new tensor: each a positive `Int` (LANGUAGE.md §1).
pub fn new_shape(ctx: &OpContext, dims: &[i64]) -> Outcome<Vec<usize>> {
    if let Some(bad) = dims.iter().find(|d| **d < 1) {
        return Err(Failure::shape(format!(
            "every dimension is positive, but the shape {dims:?} has {bad}"
        )));
    }
    let shape: Vec<usize> = dims.iter().map(|d| *d as usize).collect();
    ctx.check_size(&shape)?;
    Ok(shape)
}

pub fn filled(ctx: &OpContext, dims: &[i64], value: f32) -> Outcome<Tensor> {
    let shape = new_shape(ctx, dims)?;
    Ok(ArrayD::from_elem(IxDyn(&shape), value))
}

pub fn random(ctx: &mut OpContext, dims: &[i64], normal: bool) -> Outcome<Tensor> {
    let shape = new_shape(ctx, dims)?;
    let mut t = ArrayD::zeros(IxDyn(&shape));
    for x in t.iter_mut() {
        *x = if normal {
            ctx.rng.normal()
        } else {
            ctx.rng.uniform()
        };
    }
    Ok(t)
}

/// Integers drawn uniformly from `low..high`.
fn integers(ctx: &mut OpContext, shape: Vec<usize>, low: i64, high: i64) -> Outcome<Tensor> {
    if high <= low {
        return Err(Failure::data(format!(
            "`randint`: the range {low}..{high} is empty"
        )));
    }
    let span = (high - low) as f32;
    let mut t = ArrayD::zeros(IxDyn(&shape));
    for x in t.iter_mut() {
        *x = (low as f32 + (ctx.rng.uniform() * span).floor()).min((high - 1) as f32);
    }
    Ok(t)
}

/// `arange(end)` or `arange(start, end, step)`.
fn arange(ctx: &OpContext, args: &Args) -> Outcome<Tensor> {
    let (start, end) = match args.opt_int("end")? {
        Some(end) => (args.int("start")?, end),
        None => (0, args.int("start")?),
    };
    let step = args.int("step")?;
    if step == 0 {
        return Err(Failure::shape("`arange`: the step must not be zero"));
    }
    let count = ((end - start) as f64 / step as f64).ceil().max(0.0) as i64;
    if count < 1 {
        return Err(Failure::shape(format!(
            "`arange({start}, {end}, {step})` has no elements: every dimension is positive"
        )));
    }
    let shape = new_shape(ctx, &[count])?;
    Ok(ArrayD::from_shape_fn(IxDyn(&shape), |i| {
        (start + step * i[0] as i64) as f32
    }))
}

/// `linspace(start, end, steps)`: `steps` evenly spaced values from
/// `start` to `end`, both included.
fn linspace(ctx: &OpContext, args: &Args) -> Outcome<Tensor> {
    let (start, end) = (args.float("start")?, args.float("end")?);
    let steps = args.int("steps")?;
    let shape = new_shape(ctx, &[steps])?;
    let step = if steps > 1 {
        (end - start) / (steps - 1) as f64
    } else {
        0.0
    };
    Ok(ArrayD::from_shape_fn(IxDyn(&shape), |i| {
        (start + step * i[0] as f64) as f32
    }))
}
