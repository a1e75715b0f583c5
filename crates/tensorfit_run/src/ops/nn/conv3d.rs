//! 3-D convolution, as the sum over the kernel's depth of 2-D
//! convolutions of the input's depth slices (each output depth reads the
//! input depths its window covers).

use ndarray::{s, ArrayD, Axis, IxDyn};

use super::{conv, dims, output_size, ConvSpec, Padding};
use crate::error::{Failure, Outcome};
use crate::ops::OpContext;
use crate::value::{dims_text, Tensor};

pub fn conv3d(
    ctx: &OpContext,
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    spec: &ConvSpec,
    op: &str,
) -> Outcome<Tensor> {
    if weight.ndim() != 5 {
        return Err(Failure::shape(format!(
            "`{op}` expects a 5-D weight, but got one of shape {}",
            dims_text(&dims(weight))
        )));
    }
    let batched = match input.ndim() {
        5 => true,
        4 => false,
        _ => {
            return Err(Failure::shape(format!(
            "`{op}` expects a 4-D (unbatched) or 5-D (batched) input, but got an input of shape {}",
            dims_text(&dims(input))
        )))
        }
    };
    let x = if batched {
        input.clone()
    } else {
        input.clone().insert_axis(Axis(0))
    };
    let (n, depth, height, width) = (x.shape()[0], x.shape()[2], x.shape()[3], x.shape()[4]);
    let groups = spec.groups.max(1) as usize;
    if x.shape()[1] != weight.shape()[1] * groups {
        return Err(Failure::shape(format!(
            "Given groups={groups}, weight of size {}, expected input{} to have {} channels, but got {} channels instead",
            dims_text(&dims(weight)),
            dims_text(&dims(input)),
            weight.shape()[1] * groups,
            x.shape()[1]
        )));
    }
    let (out_channels, kernel_depth) = (weight.shape()[0], weight.shape()[2]);
    let (kh, kw) = (weight.shape()[3] as i64, weight.shape()[4] as i64);
    let (stride, dilation) = (&spec.stride, &spec.dilation);
    // "same" keeps every size (stride 1), padding each side by half the
    // dilated kernel.
    let padding: Vec<i64> = match &spec.padding {
        Padding::Explicit(p) => p.clone(),
        Padding::Same => (0..3)
            .map(|k| dilation[k] * (weight.shape()[2 + k] as i64 - 1) / 2)
            .collect(),
    };
    let same = matches!(spec.padding, Padding::Same);
    let size = |k: usize, input: usize, kernel: i64| {
        if same {
            input as i64
        } else {
            output_size(
                input as i64,
                kernel,
                stride[k],
                padding[k],
                dilation[k],
                false,
            )
        }
    };
    let (od, oh, ow) = (
        size(0, depth, kernel_depth as i64),
        size(1, height, kh),
        size(2, width, kw),
    );
    if od < 1 || oh < 1 || ow < 1 {
        return Err(Failure::shape(format!(
            "`{op}`: calculated output size ({od}x{oh}x{ow}) is too small for the input of shape {}: the kernel is larger than the (padded) input",
            dims_text(&dims(input))
        )));
    }
    let (od, oh, ow) = (od as usize, oh as usize, ow as usize);
    ctx.check_size(&[n, out_channels, od, oh, ow])?;
    let plane = ConvSpec {
        stride: stride[1..].to_vec(),
        padding: if same {
            Padding::Same
        } else {
            Padding::Explicit(padding[1..].to_vec())
        },
        dilation: dilation[1..].to_vec(),
        groups: spec.groups,
    };
    let mut out = ArrayD::<f32>::zeros(IxDyn(&[n, out_channels, od, oh, ow]));
    for d in 0..od {
        for k in 0..kernel_depth {
            let at = d as i64 * stride[0] - padding[0] + k as i64 * dilation[0];
            if at < 0 || at >= depth as i64 {
                continue;
            }
            let slice = x
                .slice(s![.., .., at as usize, .., ..])
                .to_owned()
                .into_dyn();
            let kernel = weight.slice(s![.., .., k, .., ..]).to_owned().into_dyn();
            let part = conv(ctx, &slice, &kernel, None, &plane, op)?;
            let mut target = out.slice_mut(s![.., .., d, .., ..]);
            target += &part;
        }
    }
    if let Some(bias) = bias {
        if bias.len() != out_channels {
            return Err(Failure::shape(format!(
                "`{op}`: the bias has {} elements but the output has {out_channels} channels",
                bias.len()
            )));
        }
        for (c, b) in bias.iter().enumerate() {
            out.slice_mut(s![.., c, .., .., ..]).mapv_inplace(|v| v + b);
        }
    }
    Ok(if batched {
        out
    } else {
        out.index_axis_move(Axis(0), 0)
    })
}
