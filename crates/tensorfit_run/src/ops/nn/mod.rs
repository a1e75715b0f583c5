//! `torch.nn.functional`: linear, convolutions, pooling, normalisation,
//! embedding. Batch normalisation runs in evaluation mode unless
//! `training` is given (docs/interpreter.md). Resizing (`pad`,
//! `interpolate`, `pixel_shuffle`) is in `resize.rs`, group and instance
//! normalisation in `norms.rs`.

mod conv3d;
pub mod norms;
pub mod resize;

use ndarray::{s, Array2, Array4, ArrayD, Axis, Dimension, Ix4, IxDyn};

use super::linalg::matmul;
use super::{Args, OpContext};
use crate::error::{Failure, Outcome};
use crate::value::{dims_text, Tensor, Value};

pub fn call(ctx: &mut OpContext, name: &str, args: &Args) -> Outcome<Option<Value>> {
    let t = match name {
        "linear" => linear(
            ctx,
            &*args.tensor("input")?,
            &*args.tensor("weight")?,
            args.opt_tensor("bias")?.as_deref(),
        )?,
        "conv1d" | "conv2d" | "conv3d" => {
            let spatial = spatial_of(name);
            let spec = ConvSpec::from_args(args, spatial)?;
            conv(
                ctx,
                &*args.tensor("input")?,
                &*args.tensor("weight")?,
                args.opt_tensor("bias")?.as_deref(),
                &spec,
                name,
            )?
        }
        "conv_transpose2d" => {
            let spec = ConvSpec::from_args(args, 2)?;
            let output_padding = args.ints("output_padding", 2)?;
            conv_transpose2d(
                ctx,
                &*args.tensor("input")?,
                &*args.tensor("weight")?,
                args.opt_tensor("bias")?.as_deref(),
                &spec,
                &output_padding,
            )?
        }
        "max_pool1d" | "avg_pool1d" | "max_pool2d" | "avg_pool2d" => {
            let spec = PoolSpec::from_args(args, name.starts_with("max"), spatial_of(name))?;
            pool2d(ctx, &*args.tensor("input")?, &spec, name)?
        }
        "adaptive_avg_pool1d" | "adaptive_avg_pool2d" => {
            let sizes = output_sizes(args.get("output_size"), spatial_of(name))?;
            adaptive_avg_pool2d(&*args.tensor("input")?, &sizes, name)?
        }
        "pad" => resize::pad(ctx, args)?,
        "interpolate" => resize::interpolate(ctx, args, "interpolate")?,
        "pixel_shuffle" => resize::pixel_shuffle(ctx, args)?,
        "group_norm" => norms::group_norm(
            &*args.tensor("input")?,
            args.int("num_groups")?,
            args.opt_tensor("weight")?.as_deref(),
            args.opt_tensor("bias")?.as_deref(),
            args.float("eps")? as f32,
        )?,
        "batch_norm" => batch_norm(
            &*args.tensor("input")?,
            Some(&*args.tensor("running_mean")?),
            Some(&*args.tensor("running_var")?),
            args.opt_tensor("weight")?.as_deref(),
            args.opt_tensor("bias")?.as_deref(),
            args.bool("training")?,
            args.float("eps")? as f32,
        )?,
        "layer_norm" => layer_norm(
            &*args.tensor("input")?,
            &args.dims("normalized_shape")?,
            args.opt_tensor("weight")?.as_deref(),
            args.opt_tensor("bias")?.as_deref(),
            args.float("eps")? as f32,
        )?,
        "embedding" => embedding(ctx, &*args.tensor("input")?, &*args.tensor("weight")?)?,
        _ => return Ok(None),
    };
    Ok(Some(Value::tensor(t)))
}

pub fn linear(
    ctx: &OpContext,
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
) -> Outcome<Tensor> {
    if weight.ndim() != 2 {
        return Err(Failure::shape(format!(
            "`linear`: the weight must be 2-D, but it has rank {}",
            weight.ndim()
        )));
    }
    let in_features = weight.shape()[1];
    if input.ndim() == 0 || input.shape()[input.ndim() - 1] != in_features {
        let rows: usize = input.shape().iter().rev().skip(1).product();
        let cols = input.shape().last().copied().unwrap_or(1);
        return Err(Failure::shape(format!(
            "mat1 and mat2 shapes cannot be multiplied ({rows}x{cols} and {in_features}x{})",
            weight.shape()[0]
        )));
    }
    let transposed = weight.t().to_owned().into_dyn();
    let mut out = matmul(ctx, input, &transposed)?;
    if let Some(b) = bias {
        out = &out + b;
    }
    Ok(out)
}

/// How a convolution moves over its input.
#[derive(Clone, Debug)]
pub struct ConvSpec {
    pub stride: Vec<i64>,
    pub padding: Padding,
    pub dilation: Vec<i64>,
    pub groups: i64,
}

#[derive(Clone, Debug)]
pub enum Padding {
    Explicit(Vec<i64>),
    Same,
}

impl ConvSpec {
    pub fn from_args(args: &Args, spatial: usize) -> Outcome<ConvSpec> {
        let padding = match args.str("padding") {
            Some("same") => Padding::Same,
            Some("valid") => Padding::Explicit(vec![0; spatial]),
            Some(other) => return Err(Failure::shape(format!("unknown padding mode `{other}`"))),
            None => Padding::Explicit(args.ints("padding", spatial)?),
        };
        Ok(ConvSpec {
            stride: args.ints("stride", spatial)?,
            padding,
            dilation: args.ints("dilation", spatial)?,
            groups: args.int("groups")?,
        })
    }
}

/// `(N, C, L)`/`(N, C, H, W)` or unbatched: as 4-D `(N, C, H, W)`, and
/// how to give the result its caller's rank back.
fn as_batched_2d(input: &Tensor, spatial: usize, op: &str) -> Outcome<(Array4<f32>, bool)> {
    let rank = input.ndim();
    let batched = rank == spatial + 2;
    if !batched && rank != spatial + 1 {
        return Err(Failure::shape(format!(
            "`{op}` expects a {}-D (unbatched) or {}-D (batched) input, but got an input of shape {}",
            spatial + 1,
            spatial + 2,
            dims_text(&dims(input))
        )));
    }
    let mut t = input.clone();
    if !batched {
        t = t.insert_axis(Axis(0));
    }
    if spatial == 1 {
        t = t.insert_axis(Axis(2));
    }
    let t = t
        .into_dimensionality::<Ix4>()
        .map_err(|e| Failure::program(e.to_string()))?;
    Ok((t, batched))
}

fn back_to_rank(out: Array4<f32>, spatial: usize, batched: bool) -> Tensor {
    let mut out = out.into_dyn();
    if spatial == 1 {
        out = out.index_axis_move(Axis(2), 0);
    }
    if !batched {
        out = out.index_axis_move(Axis(0), 0);
    }
    out
}

/// A tensor's shape as signed sizes, for messages.
fn dims(t: &Tensor) -> Vec<i64> {
    t.shape().iter().map(|d| *d as i64).collect()
}

/// PyTorch's output-size formula; fails when the result has no elements.
fn output_size(
    input: i64,
    kernel: i64,
    stride: i64,
    padding: i64,
    dilation: i64,
    ceil_mode: bool,
) -> i64 {
    let span = input + 2 * padding - dilation * (kernel - 1) - 1;
    if span < 0 {
        return 0;
    }
    let mut out = if ceil_mode {
        (span + stride - 1) / stride + 1
    } else {
        span / stride + 1
    };
    // With ceil_mode the last window must start inside the input or the
    // left padding.
    if ceil_mode && (out - 1) * stride >= input + padding {
        out -= 1;
    }
    out
}

/// PyTorch refuses a kernel size, stride or dilation that is not positive
/// when the operation runs (the sizes would divide by zero).
fn require_positive(op: &str, what: &str, values: &[i64]) -> Outcome<()> {
    match values.iter().find(|v| **v < 1) {
        Some(v) => Err(Failure::shape(format!(
            "`{op}`: the {what} must be greater than zero, but it is {v}"
        ))),
        None => Ok(()),
    }
}

pub fn conv(
    ctx: &OpContext,
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    spec: &ConvSpec,
    op: &str,
) -> Outcome<Tensor> {
    let spatial = spec.stride.len();
    if weight.ndim() == spatial + 2 {
        require_positive(op, "kernel size", &dims(weight)[2..])?;
    }
    require_positive(op, "stride", &spec.stride)?;
    require_positive(op, "dilation", &spec.dilation)?;
    if spatial == 3 {
        return conv3d::conv3d(ctx, input, weight, bias, spec, op);
    }
    if weight.ndim() != spatial + 2 {
        return Err(Failure::shape(format!(
            "`{op}` expects a {}-D weight, but got one of shape {}",
            spatial + 2,
            dims_text(&dims(weight))
        )));
    }
    let (x, batched) = as_batched_2d(input, spatial, op)?;
    let mut w = weight.clone();
    if spatial == 1 {
        w = w.insert_axis(Axis(2));
    }
    let w = w
        .into_dimensionality::<Ix4>()
        .map_err(|e| Failure::program(e.to_string()))?;
    let (n, c, h, wd) = x.dim();
    let (o, cg, kh, kw) = w.dim();
    let groups = spec.groups.max(1) as usize;
    if c != cg * groups || o % groups != 0 {
        return Err(Failure::shape(format!(
            "Given groups={groups}, weight of size {}, expected input{} to have {} channels, but got {c} channels instead",
            dims_text(&dims(weight)),
            dims_text(&dims(input)),
            cg * groups
        )));
    }
    let pick = |v: &Vec<i64>, i: usize| {
        if spatial == 1 {
            if i == 0 {
                1
            } else {
                v[0]
            }
        } else {
            v[i]
        }
    };
    let (sh, sw) = (pick(&spec.stride, 0), pick(&spec.stride, 1));
    let (dh, dw) = (pick(&spec.dilation, 0), pick(&spec.dilation, 1));
    let (ph, pw) = match &spec.padding {
        Padding::Explicit(p) => (if spatial == 1 { 0 } else { p[0] }, pick(p, 1)),
        // "same": the output keeps the input's size (stride 1); PyTorch
        // puts an odd total's extra pixel on the right, which these
        // symmetric paddings round down to.
        Padding::Same => (
            if spatial == 1 {
                0
            } else {
                dh * (kh as i64 - 1) / 2
            },
            dw * (kw as i64 - 1) / 2,
        ),
    };
    let mut ho = output_size(h as i64, kh as i64, sh, ph, dh, false);
    let mut wo = output_size(wd as i64, kw as i64, sw, pw, dw, false);
    if matches!(spec.padding, Padding::Same) {
        ho = h as i64;
        wo = wd as i64;
    }
    if ho < 1 || wo < 1 {
        return Err(Failure::shape(format!(
            "`{op}`: calculated output size ({ho}x{wo}) is too small for the input of shape {}: the kernel is larger than the (padded) input",
            dims_text(&dims(input))
        )));
    }
    let (ho, wo) = (ho as usize, wo as usize);
    ctx.check_size(&[n, o, ho, wo])?;
    ctx.check_size(&[cg * kh * kw, ho * wo])?;
    let og = o / groups;
    let mut out = Array4::<f32>::zeros((n, o, ho, wo));
    for b in 0..n {
        for g in 0..groups {
            // im2col: one column per output position.
            let mut cols = Array2::<f32>::zeros((cg * kh * kw, ho * wo));
            for ci in 0..cg {
                let channel = x.slice(s![b, g * cg + ci, .., ..]);
                for ki in 0..kh {
                    for kj in 0..kw {
                        let row = (ci * kh + ki) * kw + kj;
                        for oi in 0..ho {
                            let yi = oi as i64 * sh - ph + ki as i64 * dh;
                            if yi < 0 || yi >= h as i64 {
                                continue;
                            }
                            for oj in 0..wo {
                                let xj = oj as i64 * sw - pw + kj as i64 * dw;
                                if xj >= 0 && xj < wd as i64 {
                                    cols[[row, oi * wo + oj]] = channel[[yi as usize, xj as usize]];
                                }
                            }
                        }
                    }
                }
            }
            let wg = w
                .slice(s![g * og..(g + 1) * og, .., .., ..])
                .as_standard_layout()
                .into_owned()
                .into_shape_with_order((og, cg * kh * kw))
                .map_err(|e| Failure::program(e.to_string()))?;
            let product = wg.dot(&cols);
            for oc in 0..og {
                let row = product.row(oc);
                let mut plane = out.slice_mut(s![b, g * og + oc, .., ..]);
                for (at, v) in plane.iter_mut().zip(row.iter()) {
                    *at = *v;
                }
            }
        }
    }
    if let Some(bias) = bias {
        add_channel_bias(&mut out, bias, op)?;
    }
    Ok(back_to_rank(out, spatial, batched))
}

fn add_channel_bias(out: &mut Array4<f32>, bias: &Tensor, op: &str) -> Outcome<()> {
    if bias.len() != out.dim().1 {
        return Err(Failure::shape(format!(
            "`{op}`: the bias has {} elements but the output has {} channels",
            bias.len(),
            out.dim().1
        )));
    }
    for (c, b) in bias.iter().enumerate() {
        out.slice_mut(s![.., c, .., ..]).mapv_inplace(|x| x + b);
    }
    Ok(())
}

pub fn conv_transpose2d(
    ctx: &OpContext,
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    spec: &ConvSpec,
    output_padding: &[i64],
) -> Outcome<Tensor> {
    let op = "conv_transpose2d";
    require_positive(op, "stride", &spec.stride)?;
    require_positive(op, "dilation", &spec.dilation)?;
    let sizes = output_padding.iter().zip(&spec.stride).zip(&spec.dilation);
    for ((&pad, &stride), &dilation) in sizes {
        if pad >= stride && pad >= dilation {
            return Err(Failure::shape(format!(
                "`{op}`: output padding must be smaller than either stride or dilation, but output_padding = {pad}, stride = {stride}, dilation = {dilation}"
            )));
        }
    }
    if weight.ndim() != 4 {
        return Err(Failure::shape(format!(
            "`{op}` expects a 4-D weight, but got one of shape {}",
            dims_text(&dims(weight))
        )));
    }
    let (x, batched) = as_batched_2d(input, 2, op)?;
    let w = weight
        .clone()
        .into_dimensionality::<Ix4>()
        .map_err(|e| Failure::program(e.to_string()))?;
    let (n, c, h, wd) = x.dim();
    let (ci, og, kh, kw) = w.dim();
    let groups = spec.groups.max(1) as usize;
    if c != ci || c % groups != 0 {
        return Err(Failure::shape(format!(
            "Given transposed=1, weight of size {}, expected input{} to have {ci} channels, but got {c} channels instead",
            dims_text(&dims(weight)),
            dims_text(&dims(input))
        )));
    }
    let Padding::Explicit(padding) = &spec.padding else {
        return Err(Failure::shape(
            "`conv_transpose2d` does not take padding \"same\"",
        ));
    };
    let (sh, sw) = (spec.stride[0], spec.stride[1]);
    let (dh, dw) = (spec.dilation[0], spec.dilation[1]);
    let (ph, pw) = (padding[0], padding[1]);
    let ho = (h as i64 - 1) * sh - 2 * ph + dh * (kh as i64 - 1) + output_padding[0] + 1;
    let wo = (wd as i64 - 1) * sw - 2 * pw + dw * (kw as i64 - 1) + output_padding[1] + 1;
    if ho < 1 || wo < 1 {
        return Err(Failure::shape(format!(
            "`{op}`: calculated output size ({ho}x{wo}) is too small"
        )));
    }
    let (ho, wo) = (ho as usize, wo as usize);
    let o = og * groups;
    ctx.check_size(&[n, o, ho, wo])?;
    let cg = c / groups;
    let mut out = Array4::<f32>::zeros((n, o, ho, wo));
    for b in 0..n {
        for g in 0..groups {
            // cols = W_gᵀ · X_g, then scattered back (col2im).
            let xg = x
                .slice(s![b, g * cg..(g + 1) * cg, .., ..])
                .as_standard_layout()
                .into_owned()
                .into_shape_with_order((cg, h * wd))
                .map_err(|e| Failure::program(e.to_string()))?;
            let wg = w
                .slice(s![g * cg..(g + 1) * cg, .., .., ..])
                .as_standard_layout()
                .into_owned()
                .into_shape_with_order((cg, og * kh * kw))
                .map_err(|e| Failure::program(e.to_string()))?;
            let cols = wg.t().dot(&xg);
            for oc in 0..og {
                for ki in 0..kh {
                    for kj in 0..kw {
                        let row = cols.row((oc * kh + ki) * kw + kj);
                        for i in 0..h {
                            let yi = i as i64 * sh - ph + ki as i64 * dh;
                            if yi < 0 || yi >= ho as i64 {
                                continue;
                            }
                            for j in 0..wd {
                                let xj = j as i64 * sw - pw + kj as i64 * dw;
                                if xj >= 0 && xj < wo as i64 {
                                    out[[b, g * og + oc, yi as usize, xj as usize]] +=
                                        row[i * wd + j];
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    if let Some(bias) = bias {
        add_channel_bias(&mut out, bias, op)?;
    }
    Ok(back_to_rank(out, 2, batched))
}

/// How many dimensions an operation named `..1d`, `..2d` or `..3d` works
/// over.
pub fn spatial_of(name: &str) -> usize {
    if name.ends_with("1d") {
        1
    } else if name.ends_with("3d") {
        3
    } else {
        2
    }
}

/// A pooling window over one or two dimensions; one dimension is pooled
/// as two whose first has size 1 (kernel 1, stride 1, no padding).
#[derive(Clone, Debug)]
pub struct PoolSpec {
    pub spatial: usize,
    pub max: bool,
    pub kernel: Vec<i64>,
    pub stride: Vec<i64>,
    pub padding: Vec<i64>,
    pub dilation: Vec<i64>,
    pub ceil_mode: bool,
    pub count_include_pad: bool,
    pub divisor_override: Option<i64>,
}

impl PoolSpec {
    pub fn from_args(args: &Args, max: bool, spatial: usize) -> Outcome<PoolSpec> {
        let kernel = args.ints("kernel_size", spatial)?;
        let stride = match args.get("stride") {
            Value::None => kernel.clone(),
            _ => args.ints("stride", spatial)?,
        };
        let padding = args.ints("padding", spatial)?;
        let dilation = if max {
            args.ints("dilation", spatial)?
        } else {
            vec![1; spatial]
        };
        // One dimension pooled as two, the first of size 1.
        let lift = |values: Vec<i64>, first: i64| {
            if spatial == 1 {
                vec![first, values[0]]
            } else {
                values
            }
        };
        Ok(PoolSpec {
            spatial,
            max,
            kernel: lift(kernel, 1),
            stride: lift(stride, 1),
            padding: lift(padding, 0),
            dilation: lift(dilation, 1),
            ceil_mode: args.bool("ceil_mode")?,
            count_include_pad: if max {
                false
            } else {
                matches!(args.get("count_include_pad"), Value::Bool(true))
            },
            divisor_override: if max {
                None
            } else {
                args.opt_int("divisor_override")?
            },
        })
    }
}

pub fn pool2d(ctx: &OpContext, input: &Tensor, spec: &PoolSpec, op: &str) -> Outcome<Tensor> {
    require_positive(op, "kernel size", &spec.kernel)?;
    require_positive(op, "stride", &spec.stride)?;
    require_positive(op, "dilation", &spec.dilation)?;
    let (x, batched) = as_batched_2d(input, spec.spatial, op)?;
    let (n, c, h, w) = x.dim();
    for i in 0..2 {
        let effective = spec.dilation[i] * (spec.kernel[i] - 1) + 1;
        if spec.padding[i] * 2 > effective {
            return Err(Failure::shape(format!(
                "`{op}`: pad should be at most half of effective kernel size, but got pad={}, kernel_size={} and dilation={}",
                spec.padding[i], spec.kernel[i], spec.dilation[i]
            )));
        }
    }
    let ho = output_size(
        h as i64,
        spec.kernel[0],
        spec.stride[0],
        spec.padding[0],
        spec.dilation[0],
        spec.ceil_mode,
    );
    let wo = output_size(
        w as i64,
        spec.kernel[1],
        spec.stride[1],
        spec.padding[1],
        spec.dilation[1],
        spec.ceil_mode,
    );
    if ho < 1 || wo < 1 {
        return Err(Failure::shape(format!(
            "`{op}`: given input size ({c}x{h}x{w}), calculated output size ({c}x{ho}x{wo}) is too small"
        )));
    }
    let (ho, wo) = (ho as usize, wo as usize);
    ctx.check_size(&[n, c, ho, wo])?;
    let mut out = Array4::<f32>::zeros((n, c, ho, wo));
    let (kh, kw) = (spec.kernel[0], spec.kernel[1]);
    let (ph, pw) = (spec.padding[0], spec.padding[1]);
    for b in 0..n {
        for ch in 0..c {
            for oi in 0..ho {
                for oj in 0..wo {
                    let top = oi as i64 * spec.stride[0] - ph;
                    let left = oj as i64 * spec.stride[1] - pw;
                    let mut best = f32::NEG_INFINITY;
                    let mut sum = 0.0f32;
                    let mut valid = 0i64;
                    let mut padded = 0i64;
                    for ki in 0..kh {
                        for kj in 0..kw {
                            let yi = top + ki * spec.dilation[0];
                            let xj = left + kj * spec.dilation[1];
                            if yi < h as i64 + ph && xj < w as i64 + pw {
                                padded += 1;
                            }
                            if yi < 0 || xj < 0 || yi >= h as i64 || xj >= w as i64 {
                                continue;
                            }
                            let v = x[[b, ch, yi as usize, xj as usize]];
                            best = best.max(v);
                            sum += v;
                            valid += 1;
                        }
                    }
                    out[[b, ch, oi, oj]] = if spec.max {
                        best
                    } else {
                        let divisor = spec.divisor_override.unwrap_or(if spec.count_include_pad {
                            padded
                        } else {
                            valid
                        });
                        sum / divisor.max(1) as f32
                    };
                }
            }
        }
    }
    Ok(back_to_rank(out, spec.spatial, batched))
}

/// `output_size`: an `Int`, or one per pooled dimension (`None` keeps the
/// input's size); as a pair, the first of size 1 for one dimension.
pub fn output_sizes(v: &Value, spatial: usize) -> Outcome<Vec<Option<i64>>> {
    let sizes = match v {
        Value::Int(i) => vec![Some(*i); spatial],
        Value::Shape(s) if s.len() == spatial => s.iter().map(|d| Some(*d)).collect(),
        Value::Tuple(items) | Value::List(items) if items.len() == spatial => items
            .iter()
            .map(|i| match i {
                Value::Int(d) => Ok(Some(*d)),
                Value::None => Ok(None),
                _ => Err(Failure::shape("`output_size` holds Ints or None")),
            })
            .collect::<Outcome<_>>()?,
        _ => {
            return Err(Failure::shape(format!(
                "`output_size` is an Int or {spatial} of them"
            )))
        }
    };
    Ok(if spatial == 1 {
        vec![Some(1), sizes[0]]
    } else {
        sizes
    })
}

pub fn adaptive_avg_pool2d(input: &Tensor, sizes: &[Option<i64>], op: &str) -> Outcome<Tensor> {
    let spatial = spatial_of(op);
    let (x, batched) = as_batched_2d(input, spatial, op)?;
    let (n, c, h, w) = x.dim();
    let oh = sizes[0].unwrap_or(h as i64);
    let ow = sizes[1].unwrap_or(w as i64);
    if oh < 1 || ow < 1 {
        return Err(Failure::shape(format!(
            "`{op}`: the output size ({oh}x{ow}) must be positive"
        )));
    }
    let (oh, ow) = (oh as usize, ow as usize);
    let mut out = Array4::<f32>::zeros((n, c, oh, ow));
    for b in 0..n {
        for ch in 0..c {
            for i in 0..oh {
                let (y0, y1) = (i * h / oh, ((i + 1) * h).div_ceil(oh));
                for j in 0..ow {
                    let (x0, x1) = (j * w / ow, ((j + 1) * w).div_ceil(ow));
                    let window = x.slice(s![b, ch, y0..y1, x0..x1]);
                    out[[b, ch, i, j]] = window.sum() / window.len().max(1) as f32;
                }
            }
        }
    }
    Ok(back_to_rank(out, spatial, batched))
}

/// Normalises over every dimension but the channels (dimension 1).
pub fn batch_norm(
    input: &Tensor,
    mean: Option<&Tensor>,
    var: Option<&Tensor>,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    training: bool,
    eps: f32,
) -> Outcome<Tensor> {
    if input.ndim() < 2 {
        return Err(Failure::shape(format!(
            "`batch_norm` expects an input of at least 2 dimensions, but got one of shape {}",
            dims_text(&dims(input))
        )));
    }
    let channels = input.shape()[1];
    for (what, t) in [
        ("running_mean", mean),
        ("running_var", var),
        ("weight", weight),
        ("bias", bias),
    ] {
        if let Some(t) = t {
            if t.len() != channels {
                return Err(Failure::shape(format!(
                    "`batch_norm`: `{what}` should contain {channels} elements, not {}",
                    t.len()
                )));
            }
        }
    }
    let mut out = input.clone();
    for ch in 0..channels {
        let mut lane = out.index_axis_mut(Axis(1), ch);
        let (m, v) = if training {
            let count = lane.len().max(1) as f32;
            let m = lane.sum() / count;
            let v = lane.iter().map(|x| (x - m) * (x - m)).sum::<f32>() / count;
            (m, v)
        } else {
            (
                mean.map_or(0.0, |t| t.as_slice_memory_order().map_or(0.0, |s| s[ch])),
                var.map_or(1.0, |t| t.as_slice_memory_order().map_or(1.0, |s| s[ch])),
            )
        };
        let g = weight.map_or(1.0, |t| t.iter().nth(ch).copied().unwrap_or(1.0));
        let b = bias.map_or(0.0, |t| t.iter().nth(ch).copied().unwrap_or(0.0));
        lane.mapv_inplace(|x| (x - m) / (v + eps).sqrt() * g + b);
    }
    Ok(out)
}

pub fn layer_norm(
    input: &Tensor,
    normalized: &[i64],
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f32,
) -> Outcome<Tensor> {
    let k = normalized.len();
    let tail: Vec<i64> = if input.ndim() >= k {
        dims(input)[input.ndim() - k..].to_vec()
    } else {
        Vec::new()
    };
    if tail != normalized {
        return Err(Failure::shape(format!(
            "Given normalized_shape={}, expected input with shape [*, {}], but got input of size {}",
            dims_text(normalized),
            normalized.iter().map(i64::to_string).collect::<Vec<_>>().join(", "),
            dims_text(&dims(input))
        )));
    }
    let inner: usize = normalized.iter().product::<i64>() as usize;
    let outer = input.len() / inner.max(1);
    let flat = input
        .as_standard_layout()
        .to_owned()
        .into_shape_with_order((outer, inner))
        .map_err(|e| Failure::program(e.to_string()))?;
    let mut out = flat.clone();
    let w: Option<Vec<f32>> = weight.map(|t| t.iter().copied().collect());
    let b: Option<Vec<f32>> = bias.map(|t| t.iter().copied().collect());
    for mut row in out.rows_mut() {
        let m = row.sum() / inner as f32;
        let v = row.iter().map(|x| (x - m) * (x - m)).sum::<f32>() / inner as f32;
        for (i, x) in row.iter_mut().enumerate() {
            let g = w.as_ref().and_then(|w| w.get(i)).copied().unwrap_or(1.0);
            let bb = b.as_ref().and_then(|b| b.get(i)).copied().unwrap_or(0.0);
            *x = (*x - m) / (v + eps).sqrt() * g + bb;
        }
    }
    out.into_shape_with_order(IxDyn(input.shape()))
        .map_err(|e| Failure::program(e.to_string()))
}

/// Rows of `weight` chosen by whole-number indices.
pub fn embedding(ctx: &OpContext, input: &Tensor, weight: &Tensor) -> Outcome<Tensor> {
    if weight.ndim() != 2 {
        return Err(Failure::shape("`embedding`: the weight must be 2-D"));
    }
    let (rows, width) = (weight.shape()[0], weight.shape()[1]);
    let mut shape = input.shape().to_vec();
    shape.push(width);
    ctx.check_size(&shape)?;
    let mut out = ArrayD::<f32>::zeros(IxDyn(&shape));
    for (index, v) in input.indexed_iter() {
        if v.fract() != 0.0 || *v < 0.0 || *v >= rows as f32 {
            return Err(Failure::data(format!(
                "`embedding`: index {v} is not a whole number in 0..{rows}"
            )));
        }
        let mut at = index.slice().to_vec();
        at.push(0);
        for k in 0..width {
            *at.last_mut().expect("pushed") = k;
            out[IxDyn(&at)] = weight[[*v as usize, k]];
        }
    }
    Ok(out)
}
