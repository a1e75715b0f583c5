//! Element-wise operations with PyTorch broadcasting, activations,
//! softmax, the triangle masks, `clamp` and the conversions.

use ndarray::{IxDyn, Zip};

use super::{Args, OpContext};
use crate::error::{Failure, Outcome};
use crate::value::{Tensor, Value};

/// The broadcast of two shapes, or PyTorch's error.
pub fn broadcast_dims(a: &[i64], b: &[i64]) -> Outcome<Vec<i64>> {
    let rank = a.len().max(b.len());
    let mut out = vec![0; rank];
    for i in 0..rank {
        let x = if i + a.len() >= rank {
            a[i + a.len() - rank]
        } else {
            1
        };
        let y = if i + b.len() >= rank {
            b[i + b.len() - rank]
        } else {
            1
        };
        out[i] = match (x, y) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            (x, y) => {
                return Err(Failure::shape(format!(
                    "the size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton dimension {i}"
                )))
            }
        };
    }
    Ok(out)
}

fn dims_of(t: &Tensor) -> Vec<i64> {
    t.shape().iter().map(|d| *d as i64).collect()
}

/// Applies `f` element-wise to `a` and `b` broadcast together.
pub fn zip_with(
    ctx: &OpContext,
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(f32, f32) -> f32,
) -> Outcome<Tensor> {
    let shape: Vec<usize> = broadcast_dims(&dims_of(a), &dims_of(b))?
        .into_iter()
        .map(|d| d as usize)
        .collect();
    ctx.check_size(&shape)?;
    let (Some(av), Some(bv)) = (a.broadcast(IxDyn(&shape)), b.broadcast(IxDyn(&shape))) else {
        return Err(Failure::shape("the operands cannot be broadcast together"));
    };
    Ok(Zip::from(&av).and(&bv).map_collect(|x, y| f(*x, *y)))
}

fn truth(b: bool) -> f32 {
    f32::from(u8::from(b))
}

/// The binary operations behind `+ - * / %` and the comparisons.
pub fn binary(ctx: &mut OpContext, name: &str, a: &Tensor, b: &Tensor) -> Outcome<Tensor> {
    zip_with(
        ctx,
        a,
        b,
        match name {
            "add" => |x, y| x + y,
            "sub" => |x, y| x - y,
            "mul" => |x, y| x * y,
            "div" => |x, y| x / y,
            "floor_divide" => |x: f32, y: f32| (x / y).floor(),
            "remainder" => |x: f32, y: f32| x - y * (x / y).floor(),
            "pow" => |x: f32, y| x.powf(y),
            "maximum" => |x: f32, y| x.max(y),
            "minimum" => |x: f32, y| x.min(y),
            "eq" => |x, y| truth(x == y),
            "ne" => |x, y| truth(x != y),
            "lt" => |x, y| truth(x < y),
            "le" => |x, y| truth(x <= y),
            "gt" => |x, y| truth(x > y),
            "ge" => |x, y| truth(x >= y),
            _ => {
                return Err(Failure::program(format!(
                    "no element-wise operation `{name}`"
                )))
            }
        },
    )
}

pub fn call(ctx: &mut OpContext, name: &str, args: &Args) -> Outcome<Option<Value>> {
    let t = match name {
        "add" | "sub" => {
            let alpha = args.float("alpha")? as f32;
            let other = args.tensor("other")?.mapv(|x| x * alpha);
            binary(ctx, name, &*args.tensor("input")?, &other)?
        }
        "div" | "divide" => {
            let q = binary(ctx, "div", &*args.tensor("input")?, &*args.tensor("other")?)?;
            match args.str("rounding_mode") {
                Some("trunc") => q.mapv(f32::trunc),
                Some("floor") => q.mapv(f32::floor),
                _ => q,
            }
        }
        "pow" => binary(
            ctx,
            name,
            &*args.tensor("input")?,
            &*args.tensor("exponent")?,
        )?,
        "mul" | "maximum" | "minimum" | "eq" | "ne" | "lt" | "le" | "gt" | "ge" => {
            binary(ctx, name, &*args.tensor("input")?, &*args.tensor("other")?)?
        }
        "masked_fill" => {
            let value = args.float("value")? as f32;
            zip_with(
                ctx,
                &*args.tensor("input")?,
                &*args.tensor("mask")?,
                |x, m| if m != 0.0 { value } else { x },
            )?
        }
        "where" => where_(
            ctx,
            &*args.tensor("condition")?,
            &*args.tensor("input")?,
            &*args.tensor("other")?,
        )?,
        "relu" => args.tensor("input")?.mapv(|x| x.max(0.0)),
        "relu6" => args.tensor("input")?.mapv(|x| x.clamp(0.0, 6.0)),
        "hardswish" => args.tensor("input")?.mapv(hardswish),
        "hardsigmoid" => args.tensor("input")?.mapv(hardsigmoid),
        "leaky_relu" => {
            let slope = args.float("negative_slope")? as f32;
            args.tensor("input")?
                .mapv(|x| if x >= 0.0 { x } else { x * slope })
        }
        "silu" => args.tensor("input")?.mapv(|x| x * sigmoid(x)),
        "gelu" => {
            let tanh_form = args.str("approximate") == Some("tanh");
            args.tensor("input")?.mapv(|x| gelu(x, tanh_form))
        }
        "sigmoid" => args.tensor("input")?.mapv(sigmoid),
        "tanh" => args.tensor("input")?.mapv(f32::tanh),
        "exp" => args.tensor("input")?.mapv(f32::exp),
        "log" => args.tensor("input")?.mapv(f32::ln),
        "sqrt" => args.tensor("input")?.mapv(f32::sqrt),
        "abs" => args.tensor("input")?.mapv(f32::abs),
        "neg" => args.tensor("input")?.mapv(|x| -x),
        "round" => args.tensor("input")?.mapv(f32::round_ties_even),
        // Evaluation mode (docs/interpreter.md): dropout is the identity.
        "dropout" | "contiguous" | "clone" | "detach" => (*args.tensor("input")?).clone(),
        "clamp" => clamp(args)?,
        // One precision here: a conversion is a copy.
        "type_as" | "to" | "float" | "half" | "double" | "long" | "int" => {
            (*args.tensor("input")?).clone()
        }
        "tril" | "triu" => triangle(
            &*args.tensor("input")?,
            args.int("diagonal")?,
            name == "tril",
        )?,
        _ => return Ok(None),
    };
    Ok(Some(Value::tensor(t)))
}

/// `clamp(input, min, max)`: `min(max(x, min), max)`, as PyTorch computes
/// it (so `max` wins when `min > max`).
fn clamp(args: &Args) -> Outcome<Tensor> {
    let bound = |name| match args.get(name) {
        Value::None => Ok(None),
        _ => args.float(name).map(|b| Some(b as f32)),
    };
    let (low, high) = (bound("min")?, bound("max")?);
    if low.is_none() && high.is_none() {
        return Err(Failure::program(
            "`clamp`: at least one of `min` or `max` must not be None",
        ));
    }
    Ok(args.tensor("input")?.mapv(|x| {
        let x = low.map_or(x, |l| x.max(l));
        high.map_or(x, |h| x.min(h))
    }))
}

/// PyTorch's `hardsigmoid`: `relu6(x + 3) / 6`.
pub fn hardsigmoid(x: f32) -> f32 {
    (x + 3.0).clamp(0.0, 6.0) / 6.0
}

/// PyTorch's `hardswish`: `x * hardsigmoid(x)`.
pub fn hardswish(x: f32) -> f32 {
    x * hardsigmoid(x)
}

pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// PyTorch's GELU: exact (with erf) or its tanh approximation.
pub fn gelu(x: f32, tanh_form: bool) -> f32 {
    if tanh_form {
        let c = (2.0 / std::f32::consts::PI).sqrt();
        0.5 * x * (1.0 + (c * (x + 0.044715 * x * x * x)).tanh())
    } else {
        0.5 * x * (1.0 + erf(x / std::f32::consts::SQRT_2))
    }
}

/// The error function (Abramowitz and Stegun 7.1.26, error below 1.5e-7).
fn erf(x: f32) -> f32 {
    let sign = if x < 0.0 { -1.0 } else { 1.0 };
    let x = f64::from(x.abs());
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t
            + 0.254_829_592)
            * t
            * (-x * x).exp();
    sign * y as f32
}

fn triangle(t: &Tensor, diagonal: i64, lower: bool) -> Outcome<Tensor> {
    if t.ndim() < 2 {
        return Err(Failure::shape(format!(
            "`{}` needs at least 2 dimensions, but the input has {}",
            if lower { "tril" } else { "triu" },
            t.ndim()
        )));
    }
    let n = t.ndim();
    let mut out = t.clone();
    for (index, x) in out.indexed_iter_mut() {
        let (row, col) = (index[n - 2] as i64, index[n - 1] as i64);
        let keep = if lower {
            col - row <= diagonal
        } else {
            col - row >= diagonal
        };
        if !keep {
            *x = 0.0;
        }
    }
    Ok(out)
}

/// `where(condition, input, other)`, the three broadcast together.
fn where_(ctx: &OpContext, condition: &Tensor, input: &Tensor, other: &Tensor) -> Outcome<Tensor> {
    let shape = broadcast_dims(
        &broadcast_dims(&dims_of(condition), &dims_of(input))?,
        &dims_of(other),
    )?;
    let shape: Vec<usize> = shape.into_iter().map(|d| d as usize).collect();
    ctx.check_size(&shape)?;
    let view = |t: &Tensor| t.broadcast(IxDyn(&shape)).map(|v| v.to_owned());
    let (Some(c), Some(x), Some(y)) = (view(condition), view(input), view(other)) else {
        return Err(Failure::shape(
            "`where`: the operands cannot be broadcast together",
        ));
    };
    Ok(Zip::from(&c)
        .and(&x)
        .and(&y)
        .map_collect(|c, x, y| if *c != 0.0 { *x } else { *y }))
}
