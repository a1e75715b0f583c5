//! Reductions: `sum`, `mean`, `max`, `min`, `prod`, `argmax`, `norm`, over
//! all elements or over `dim` (an `Int` or a list), with `keepdim`.

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
    Norm,
}

pub fn call(ctx: &mut OpContext, name: &str, args: &Args) -> Outcome<Option<Value>> {
    let kind = match name {
        "sum" => Kind::Sum,
        "mean" => Kind::Mean,
        "max" => Kind::Max,
        "min" => Kind::Min,
        "prod" => Kind::Prod,
        "argmax" => Kind::Argmax,
        "norm" => Kind::Norm,
        _ => return Ok(None),
    };
    let input = args.tensor("input")?;
    // `max(a, b)` with a tensor second argument is the element-wise one.
    if let (Kind::Max | Kind::Min, Value::Tensor(other)) = (kind, args.get("dim")) {
        let op = if kind == Kind::Max {
            "maximum"
        } else {
            "minimum"
        };
        return elementwise::binary(ctx, op, &input, other).map(|t| Some(Value::tensor(t)));
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
                axes.push(normalize_dim(d, input.ndim())?);
            }
            Some(axes)
        }
    };
    let t = match dims {
        None => {
            if matches!(kind, Kind::Max | Kind::Min | Kind::Argmax) && input.is_empty() {
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
    if t.shape()[axis] == 0 && matches!(kind, Kind::Max | Kind::Min | Kind::Argmax) {
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
        Kind::Argmax => {
            let mut best = 0;
            for (i, v) in values.iter().enumerate() {
                if *v > values[best] {
                    best = i;
                }
            }
            best as f32
        }
        Kind::Norm => values
            .iter()
            .map(|x| x.abs().powf(p))
            .sum::<f32>()
            .powf(1.0 / p),
    }
}
