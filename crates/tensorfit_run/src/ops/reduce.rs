//! Reductions: `sum`, `mean`, `max`, `min`, `prod`, `argmax`, `argmin`,
//! `norm`, `amax`, `amin`, `variance` (PyTorch's `var`), `std`, `any`, `all`, over all elements or
//! over `dim` (an `Int` or a list), with `keepdim`; and `cumsum`.

use std::rc::Rc;

use ndarray::{ArrayD, Axis, IxDyn};

use super::elementwise;
use super::{normalize_dim, Args, OpContext};
use crate::error::{Failure, Outcome};
use crate::value::{Tensor, Value};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Sum,
    Mean,
    Max,
    Min,
    Prod,
    Argmax,
    Argmin,
    Norm,
    /// Variance and standard deviation, with Bessel's correction or not.
    Var {
        unbiased: bool,
    },
    Std {
        unbiased: bool,
    },
    Any,
    All,
}

impl Kind {
    /// Whether it has no value over no elements (PyTorch raises).
    fn needs_elements(self) -> bool {
        matches!(self, Kind::Max | Kind::Min | Kind::Argmax | Kind::Argmin)
    }
}

pub fn call(ctx: &mut OpContext, name: &str, args: &Args) -> Outcome<Option<Value>> {
    let kind = match name {
        "sum" => Kind::Sum,
        "mean" => Kind::Mean,
        "max" => Kind::Max,
        "min" => Kind::Min,
        "prod" => Kind::Prod,
        "argmax" => Kind::Argmax,
        "argmin" => Kind::Argmin,
        "norm" => Kind::Norm,
        "amax" => Kind::Max,
        "amin" => Kind::Min,
        "variance" => Kind::Var {
            unbiased: unbiased(args)?,
        },
        "std" => Kind::Std {
            unbiased: unbiased(args)?,
        },
        "any" => Kind::Any,
        "all" => Kind::All,
        "cumsum" => return cumsum(args).map(|t| Some(Value::tensor(t))),
        "softmax" | "log_softmax" => {
            let t = softmax(
                &*args.tensor("input")?,
                args.int("dim")?,
                name == "log_softmax",
            );
            return t.map(|t| Some(Value::tensor(t)));
        }
        _ => return Ok(None),
    };
    let input = args.tensor("input")?;
    // `max(a, b)` with a tensor second argument is the element-wise one.
    if let (Kind::Max | Kind::Min, Value::Tensor(other), "max" | "min") =
        (kind, args.get("dim"), name)
    {
        let op = if kind == Kind::Max {
            "maximum"
        } else {
            "minimum"
        };
        return elementwise::binary(ctx, op, &input, other).map(|t| Some(Value::tensor(t)));
    }
    // `max(x, dim)` and `min(x, dim)`: the values and their positions, as
    // PyTorch returns them (`amax`/`amin` give the values alone).
    if let ("max" | "min", Value::List(_) | Value::Tuple(_) | Value::Shape(_)) =
        (name, args.get("dim"))
    {
        return Err(Failure::shape(format!(
            "`{name}` takes one dimension as `dim`, not a list (`a{name}` takes several)"
        )));
    }
    if let ("max" | "min", Value::Int(_)) = (name, args.get("dim")) {
        let (values, positions) = if name == "max" {
            ("amax", "argmax")
        } else {
            ("amin", "argmin")
        };
        let mut pair = Vec::new();
        for op in [values, positions] {
            let bound = ["input", "dim", "keepdim"]
                .iter()
                .map(|p| (p.to_string(), args.get(p).clone()))
                .collect();
            pair.extend(call(ctx, op, &Args::new(op, bound))?);
        }
        return Ok(Some(Value::Tuple(Rc::new(pair))));
    }
    let p = if kind == Kind::Norm {
        args.float("p")? as f32
    } else {
        2.0
    };
    let keepdim = args.bool("keepdim")?;
    let dims: Option<Vec<usize>> = match args.get("dim") {
        Value::None => None,
        Value::Int(d) => Some(vec![normalize_dim(*d, input.ndim())?]),
        other => {
            let list = other.as_dims().ok_or_else(|| {
                Failure::shape(format!("`{name}` takes an Int or a list of Ints as `dim`"))
            })?;
            let mut axes = Vec::new();
            for d in list {
                let axis = normalize_dim(d, input.ndim())?;
                if axes.contains(&axis) {
                    return Err(Failure::shape(format!(
                        "dim {axis} appears multiple times in the list of dims of `{name}`"
                    )));
                }
                axes.push(axis);
            }
            Some(axes)
        }
    };
    let t = match dims {
        None => {
            if kind.needs_elements() && input.is_empty() {
                return Err(Failure::shape(format!(
                    "`{name}` of an empty tensor has no value"
                )));
            }
            let values: Vec<f32> = input.iter().copied().collect();
            let x = reduce(kind, &values, p);
            ArrayD::from_elem(IxDyn(&[]), x)
        }
        Some(mut axes) => {
            axes.sort_unstable();
            axes.dedup();
            let mut out = (*input).clone();
            // Reduce from the last axis so earlier positions stay valid.
            for axis in axes.iter().rev() {
                if input.ndim() == 0 {
                    break;
                }
                out = reduce_axis(kind, &out, *axis, p)?;
                if keepdim {
                    out = out.insert_axis(Axis(*axis));
                }
            }
            out
        }
    };
    Ok(Some(Value::tensor(t)))
}

fn reduce_axis(kind: Kind, t: &Tensor, axis: usize, p: f32) -> Outcome<Tensor> {
    if t.shape()[axis] == 0 && kind.needs_elements() {
        return Err(Failure::shape(
            "a maximum or minimum over a dimension of size 0 has no value",
        ));
    }
    Ok(t.map_axis(Axis(axis), |lane| {
        let values: Vec<f32> = lane.iter().copied().collect();
        reduce(kind, &values, p)
    }))
}

fn reduce(kind: Kind, values: &[f32], p: f32) -> f32 {
    match kind {
        Kind::Sum => values.iter().sum(),
        Kind::Mean => values.iter().sum::<f32>() / values.len() as f32,
        Kind::Prod => values.iter().product(),
        Kind::Max => values.iter().copied().fold(f32::NEG_INFINITY, f32::max),
        Kind::Min => values.iter().copied().fold(f32::INFINITY, f32::min),
        Kind::Argmax | Kind::Argmin => {
            // The first position of the extreme value, as PyTorch gives.
            let mut best = 0;
            for (i, v) in values.iter().enumerate() {
                let better = if kind == Kind::Argmax {
                    *v > values[best]
                } else {
                    *v < values[best]
                };
                if better {
                    best = i;
                }
            }
            best as f32
        }
        Kind::Var { unbiased } => variance(values, unbiased),
        Kind::Std { unbiased } => variance(values, unbiased).sqrt(),
        Kind::Any => f32::from(u8::from(values.iter().any(|x| *x != 0.0))),
        Kind::All => f32::from(u8::from(values.iter().all(|x| *x != 0.0))),
        Kind::Norm => values
            .iter()
            .map(|x| x.abs().powf(p))
            .sum::<f32>()
            .powf(1.0 / p),
    }
}

fn unbiased(args: &Args) -> Outcome<bool> {
    match args.get("unbiased") {
        Value::None => Ok(true),
        _ => args.bool("unbiased"),
    }
}

/// The variance (NaN where PyTorch gives NaN: no elements, or one with
/// Bessel's correction).
fn variance(values: &[f32], unbiased: bool) -> f32 {
    let n = values.len() as f32;
    let mean = values.iter().sum::<f32>() / n;
    let squares: f32 = values.iter().map(|x| (x - mean) * (x - mean)).sum();
    let divisor = if unbiased { n - 1.0 } else { n };
    if divisor <= 0.0 {
        f32::NAN
    } else {
        squares / divisor
    }
}

/// Running sums along `dim`.
/// Softmax along `dim` (its logarithm with `log`): the shape stays.
pub fn softmax(t: &Tensor, dim: i64, log: bool) -> Outcome<Tensor> {
    let axis = Axis(normalize_dim(dim, t.ndim())?);
    if t.ndim() == 0 {
        return Ok(t.mapv(|_| if log { 0.0 } else { 1.0 }));
    }
    let mut out = t.clone();
    for mut lane in out.lanes_mut(axis) {
        let max = lane.fold(f32::NEG_INFINITY, |m, x| m.max(*x));
        let sum: f32 = lane.iter().map(|x| (x - max).exp()).sum();
        for x in lane.iter_mut() {
            *x = if log {
                *x - max - sum.ln()
            } else {
                (*x - max).exp() / sum
            };
        }
    }
    Ok(out)
}

fn cumsum(args: &Args) -> Outcome<Tensor> {
    let input = args.tensor("input")?;
    let dim = args.int("dim")?;
    let mut out = (*input).clone();
    if input.ndim() == 0 {
        normalize_dim(dim, 0)?;
        return Ok(out);
    }
    let axis = Axis(normalize_dim(dim, input.ndim())?);
    for mut lane in out.lanes_mut(axis) {
        let mut total = 0.0;
        for x in lane.iter_mut() {
            total += *x;
            *x = total;
        }
    }
    Ok(out)
}
