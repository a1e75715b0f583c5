//! Resizing: `pad`, `interpolate` (and the `Upsample` layer) and
//! `pixel_shuffle`, with PyTorch 1.13's rules and numbers.

use ndarray::{ArrayD, Axis, IxDyn};

use super::super::{Args, OpContext};
use super::dims;
use crate::error::{Failure, Outcome};
use crate::value::{dims_text, Tensor, Value};

/// `pad(input, pad, mode, value)`: (before, after) amounts from the last
/// dimension backwards; negative amounts crop.
pub fn pad(ctx: &OpContext, args: &Args) -> Outcome<Tensor> {
    let t = args.tensor("input")?;
    let amounts = args.dims("pad")?;
    let mode = args.str("mode").unwrap_or("constant");
    let value = match args.get("value") {
        Value::None => 0.0,
        _ => args.float("value")? as f32,
    };
    if amounts.len() % 2 != 0 {
        return Err(Failure::shape(
            "`pad`: padding length must be divisible by 2",
        ));
    }
    let pairs = amounts.len() / 2;
    if pairs > t.ndim() {
        return Err(Failure::shape("`pad`: padding length too large"));
    }
    if mode != "constant"
        && !((1..=3).contains(&pairs) && (pairs + 1..=pairs + 2).contains(&t.ndim()))
    {
        return Err(Failure::shape(format!(
            "`pad`: {mode} padding of {pairs} dimensions takes an input of rank {} or {}, but got one of shape {}",
            pairs + 1,
            pairs + 2,
            dims_text(&dims(&t))
        )));
    }
    // Per dimension: how far the output is shifted, and the new size.
    let mut before = vec![0i64; t.ndim()];
    let mut out = dims(&t);
    for (k, pair) in amounts.chunks(2).enumerate() {
        let at = t.ndim() - 1 - k;
        let n = out[at];
        if mode == "reflect" && (pair[0] >= n || pair[1] >= n) {
            return Err(Failure::shape(format!(
                "`pad`: padding size should be less than the corresponding input dimension, but got padding ({}, {}) at dimension {at} of input {}",
                pair[0],
                pair[1],
                dims_text(&dims(&t))
            )));
        }
        before[at] = pair[0];
        out[at] = n + pair[0] + pair[1];
        if out[at] < 1 {
            return Err(Failure::shape(format!(
                "`pad`: the input size {n}, plus padding {} and {}, leaves no elements at dimension {at}",
                pair[0], pair[1]
            )));
        }
    }
    let shape: Vec<usize> = out.iter().map(|d| *d as usize).collect();
    ctx.check_size(&shape)?;
    Ok(ArrayD::from_shape_fn(IxDyn(&shape), |index| {
        let mut from = Vec::with_capacity(shape.len());
        for (axis, size) in t.shape().iter().enumerate() {
            let n = *size as i64;
            let j = index[axis] as i64 - before[axis];
            let j = if (0..n).contains(&j) {
                j
            } else {
                match mode {
                    "reflect" => {
                        let period = 2 * (n - 1).max(1);
                        let r = j.rem_euclid(period);
                        if r < n {
                            r
                        } else {
                            period - r
                        }
                    }
                    "replicate" => j.clamp(0, n - 1),
                    "circular" => j.rem_euclid(n),
                    _ => return value,
                }
            };
            from.push(j as usize);
        }
        t[IxDyn(&from)]
    }))
}

/// `interpolate(input, size, scale_factor, mode, align_corners)`: the
/// dimensions after batch and channels resized, one after another (every
/// mode PyTorch has is separable).
pub fn interpolate(ctx: &OpContext, args: &Args, op: &str) -> Outcome<Tensor> {
    let t = args.tensor("input")?;
    let rank = t.ndim();
    if !(3..=5).contains(&rank) {
        return Err(Failure::shape(format!(
            "`{op}`: only 3-D, 4-D and 5-D inputs are supported (got {rank}-D)"
        )));
    }
    let spatial = rank - 2;
    let mode = args.str("mode").unwrap_or("nearest");
    let needs = match mode {
        "linear" => Some(3),
        "bilinear" | "bicubic" => Some(4),
        "trilinear" => Some(5),
        "nearest" | "nearest-exact" | "area" => None,
        other => return Err(Failure::shape(format!("`{op}`: unknown mode `{other}`"))),
    };
    if let Some(needs) = needs.filter(|n| *n != rank) {
        return Err(Failure::shape(format!(
            "`{op}`: got a {rank}-D input, but {mode} mode needs a {needs}-D input"
        )));
    }
    let (size, scale) = (args.get("size"), args.get("scale_factor"));
    let (sizes, scales): (Vec<usize>, Vec<Option<f64>>) = match (size, scale) {
        (Value::None, Value::None) => {
            return Err(Failure::shape(format!(
                "`{op}`: either size or scale_factor should be defined"
            )))
        }
        (Value::None, factor) => {
            let factors: Vec<f64> = match factor {
                Value::List(items) | Value::Tuple(items) => items
                    .iter()
                    .map(|v| {
                        v.as_float()
                            .ok_or_else(|| Failure::shape("`scale_factor` holds numbers"))
                    })
                    .collect::<Outcome<_>>()?,
                Value::Shape(s) => s.iter().map(|d| *d as f64).collect(),
                other => vec![
                    other
                        .as_float()
                        .ok_or_else(|| Failure::shape("`scale_factor` is a number"))?;
                    spatial
                ],
            };
            if factors.len() != spatial {
                return Err(Failure::shape(format!(
                    "`{op}`: scale_factor gives {} factors for {spatial} dimensions",
                    factors.len()
                )));
            }
            let sizes = factors
                .iter()
                .enumerate()
                .map(|(k, f)| (t.shape()[2 + k] as f64 * f).floor().max(0.0) as usize)
                .collect();
            (sizes, factors.into_iter().map(Some).collect())
        }
        (size, Value::None) => {
            let sizes = match size {
                Value::Int(n) => vec![*n; spatial],
                other => other
                    .as_dims()
                    .ok_or_else(|| Failure::shape("`size` is an Int or a list of Ints"))?,
            };
            if sizes.len() != spatial {
                return Err(Failure::shape(format!(
                    "`{op}`: input and output must have the same number of spatial dimensions, but got input with spatial dimensions of {} and output size of {}",
                    dims_text(&dims(&t)[2..]),
                    dims_text(&sizes)
                )));
            }
            (
                sizes.iter().map(|s| (*s).max(0) as usize).collect(),
                vec![None; spatial],
            )
        }
        _ => {
            return Err(Failure::shape(format!(
                "`{op}`: only one of size or scale_factor should be defined"
            )))
        }
    };
    if let Some(k) = sizes.iter().position(|s| *s == 0) {
        return Err(Failure::shape(format!(
            "`{op}`: the output would have no elements along spatial dimension {k}"
        )));
    }
    let mut shape = t.shape().to_vec();
    shape[2..].copy_from_slice(&sizes);
    ctx.check_size(&shape)?;
    let align_corners = matches!(args.get("align_corners"), Value::Bool(true));
    let mut out = (*t).clone();
    for k in 0..spatial {
        out = resize_axis(&out, 2 + k, sizes[k], scales[k], mode, align_corners);
    }
    Ok(out)
}

/// One dimension resized to `size`; `factor` is the scale factor given
/// (PyTorch then maps output to input positions with `1 / factor`, else
/// with `input / output`).
fn resize_axis(
    t: &Tensor,
    axis: usize,
    size: usize,
    factor: Option<f64>,
    mode: &str,
    align_corners: bool,
) -> Tensor {
    let n = t.shape()[axis];
    let scale = factor.map_or(n as f64 / size as f64, |f| 1.0 / f);
    let mut shape = t.shape().to_vec();
    shape[axis] = size;
    let mut out = ArrayD::zeros(IxDyn(&shape));
    let last = n as i64 - 1;
    let at = |i: i64| i.clamp(0, last) as usize;
    // The input position an output position reads, for the smooth modes.
    let source = |d: usize, clamp: bool| -> f64 {
        if align_corners {
            if size > 1 {
                d as f64 * (n as f64 - 1.0) / (size as f64 - 1.0)
            } else {
                0.0
            }
        } else {
            let s = (d as f64 + 0.5) * scale - 0.5;
            if clamp {
                s.max(0.0)
            } else {
                s
            }
        }
    };
    for (from, mut to) in t
        .lanes(Axis(axis))
        .into_iter()
        .zip(out.lanes_mut(Axis(axis)))
    {
        for d in 0..size {
            to[d] = match mode {
                "nearest" => from[at((d as f64 * scale).floor() as i64)],
                "nearest-exact" => from[at(((d as f64 + 0.5) * scale).floor() as i64)],
                "area" => {
                    let (start, end) = (d * n / size, ((d + 1) * n).div_ceil(size));
                    let window: Vec<f32> = (start..end).map(|i| from[i]).collect();
                    window.iter().sum::<f32>() / window.len().max(1) as f32
                }
                "bicubic" => {
                    let s = source(d, false);
                    let i = s.floor();
                    let x = s - i;
                    let w = cubic_weights(x);
                    (0..4)
                        .map(|k| w[k] * from[at(i as i64 - 1 + k as i64)] as f64)
                        .sum::<f64>() as f32
                }
                // linear, bilinear, trilinear
                _ => {
                    let s = source(d, true);
                    let i = (s.floor() as i64).min(last);
                    let x = (s - i as f64) as f32;
                    from[at(i)] * (1.0 - x) + from[at(i + 1)] * x
                }
            };
        }
    }
    out
}

/// The four weights of cubic convolution (A = -0.75, as PyTorch uses) at
/// the fraction `x` between the second and third point.
fn cubic_weights(x: f64) -> [f64; 4] {
    const A: f64 = -0.75;
    let near = |d: f64| ((A + 2.0) * d - (A + 3.0)) * d * d + 1.0;
    let far = |d: f64| ((A * d - 5.0 * A) * d + 8.0 * A) * d - 4.0 * A;
    [far(x + 1.0), near(x), near(1.0 - x), far(2.0 - x)]
}

/// `pixel_shuffle(input, r)`: `(*, C·r², H, W)` to `(*, C, H·r, W·r)`.
pub fn pixel_shuffle(ctx: &OpContext, args: &Args) -> Outcome<Tensor> {
    let t = args.tensor("input")?;
    let r = args.int("upscale_factor")?;
    let rank = t.ndim();
    if rank < 3 {
        return Err(Failure::shape(format!(
            "`pixel_shuffle` expects an input of at least 3 dimensions, but got one of shape {}",
            dims_text(&dims(&t))
        )));
    }
    if r < 1 {
        return Err(Failure::shape(
            "`pixel_shuffle`: upscale_factor must be positive",
        ));
    }
    let r = r as usize;
    let (c, h, w) = (
        t.shape()[rank - 3],
        t.shape()[rank - 2],
        t.shape()[rank - 1],
    );
    if c % (r * r) != 0 {
        return Err(Failure::shape(format!(
            "`pixel_shuffle` expects its input's channel dimension to be divisible by the square of upscale_factor, but input.size(-3)={c} is not divisible by {}",
            r * r
        )));
    }
    let mut shape = t.shape().to_vec();
    shape[rank - 3] = c / (r * r);
    shape[rank - 2] = h * r;
    shape[rank - 1] = w * r;
    ctx.check_size(&shape)?;
    Ok(ArrayD::from_shape_fn(IxDyn(&shape), |index| {
        let mut from: Vec<usize> = (0..rank).map(|k| index[k]).collect();
        let (y, x) = (index[rank - 2], index[rank - 1]);
        from[rank - 3] = index[rank - 3] * r * r + (y % r) * r + x % r;
        from[rank - 2] = y / r;
        from[rank - 1] = x / r;
        t[IxDyn(&from)]
    }))
}
