//! Group and instance normalisation: each group of channels (each channel
//! of each sample) normalised over its own elements, with the biased
//! variance, as PyTorch computes them.

use ndarray::Axis;

use crate::error::{Failure, Outcome};
use crate::value::{dims_text, Tensor};

/// `group_norm(input, num_groups, weight, bias, eps)` on `(N, C, *)`.
pub fn group_norm(
    input: &Tensor,
    groups: i64,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f32,
) -> Outcome<Tensor> {
    let shape: Vec<i64> = input.shape().iter().map(|d| *d as i64).collect();
    if input.ndim() < 2 {
        return Err(Failure::shape(format!(
            "`group_norm` expects an input of at least 2 dimensions (batch, channels), but got one of shape {}",
            dims_text(&shape)
        )));
    }
    let channels = input.shape()[1];
    if groups < 1 || !channels.is_multiple_of(groups as usize) {
        return Err(Failure::shape(format!(
            "`group_norm`: expected the number of channels in the input to be divisible by num_groups, but got an input of shape {} and num_groups={groups}",
            dims_text(&shape)
        )));
    }
    for (what, t) in [("weight", weight), ("bias", bias)] {
        if let Some(t) = t {
            if t.len() != channels {
                return Err(Failure::shape(format!(
                    "`group_norm`: expected {what} to be a vector of size equal to the number of channels in the input, but got {what} of shape {} and input of shape {}",
                    dims_text(&t.shape().iter().map(|d| *d as i64).collect::<Vec<_>>()),
                    dims_text(&shape)
                )));
            }
        }
    }
    let groups = groups as usize;
    let per_group = channels / groups;
    let mut out = input.clone();
    for mut sample in out.axis_iter_mut(Axis(0)) {
        for g in 0..groups {
            let mut values = Vec::new();
            for c in g * per_group..(g + 1) * per_group {
                values.extend(sample.index_axis(Axis(0), c).iter().copied());
            }
            let (mean, scale) = moments(&values, eps);
            for c in g * per_group..(g + 1) * per_group {
                let w = weight.map_or(1.0, |t| t.iter().nth(c).copied().unwrap_or(1.0));
                let b = bias.map_or(0.0, |t| t.iter().nth(c).copied().unwrap_or(0.0));
                sample
                    .index_axis_mut(Axis(0), c)
                    .mapv_inplace(|x| (x - mean) * scale * w + b);
            }
        }
    }
    Ok(out)
}

/// `InstanceNorm1d/2d(num_features, affine)` on `(N, C, *)` or unbatched
/// `(C, *)`; with `affine` the channels must be `num_features` (its
/// weight is then ones and its bias zeros: the values are unchanged).
pub fn instance_norm(
    input: &Tensor,
    kind: &str,
    features: usize,
    affine: bool,
    eps: f32,
) -> Outcome<Tensor> {
    let spatial = if kind.ends_with("1d") { 1 } else { 2 };
    let rank = input.ndim();
    if rank != spatial + 1 && rank != spatial + 2 {
        return Err(Failure::shape(format!(
            "`{kind}`: expected {}D or {}D input (got {rank}D input)",
            spatial + 1,
            spatial + 2
        )));
    }
    let batched = rank == spatial + 2;
    let channels = input.shape()[usize::from(batched)];
    if affine && channels != features {
        return Err(Failure::shape(format!(
            "`{kind}({features}, affine: true)`: the weight should contain {channels} elements, not {features}"
        )));
    }
    let x = if batched {
        input.clone()
    } else {
        input.clone().insert_axis(Axis(0))
    };
    let mut out = x.clone();
    for mut sample in out.axis_iter_mut(Axis(0)) {
        for mut channel in sample.axis_iter_mut(Axis(0)) {
            let values: Vec<f32> = channel.iter().copied().collect();
            let (mean, scale) = moments(&values, eps);
            channel.mapv_inplace(|x| (x - mean) * scale);
        }
    }
    Ok(if batched {
        out
    } else {
        out.index_axis_move(Axis(0), 0)
    })
}

/// The mean and `1 / sqrt(variance + eps)` (the biased variance).
fn moments(values: &[f32], eps: f32) -> (f32, f32) {
    let n = values.len().max(1) as f32;
    let mean = values.iter().sum::<f32>() / n;
    let variance = values.iter().map(|x| (x - mean) * (x - mean)).sum::<f32>() / n;
    (mean, 1.0 / (variance + eps).sqrt())
}
