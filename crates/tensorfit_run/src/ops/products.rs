//! Products beyond `matmul` (the linear-algebra family): `tensordot`,
//! `baddbmm` and `scaled_dot_product_attention`.

use ndarray::IxDyn;

use super::elementwise::zip_with;
use super::linalg::matmul;
use super::reduce::softmax;
use super::shape::as_i64;
use super::{normalize_dim, Args, OpContext};
use crate::error::{Failure, Outcome};
use crate::value::{dims_text, Tensor, Value};

/// `tensordot(a, b, dims)`: the contracted dimensions moved together and
/// multiplied as matrices.
pub fn tensordot(ctx: &OpContext, args: &Args) -> Outcome<Tensor> {
    let (a, b) = (args.tensor("a")?, args.tensor("b")?);
    let (axes_a, axes_b): (Vec<usize>, Vec<usize>) = match args.get("dims") {
        Value::Int(n) => {
            let n = *n;
            if n < 0 || n as usize > a.ndim() || n as usize > b.ndim() {
                return Err(Failure::shape(format!(
                    "`tensordot` expects dims < ndim_a or ndim_b, but got dims={n}"
                )));
            }
            let n = n as usize;
            ((a.ndim() - n..a.ndim()).collect(), (0..n).collect())
        }
        Value::List(pair) | Value::Tuple(pair) if pair.len() == 2 => {
            let positions = |v: &Value, rank: usize| -> Outcome<Vec<usize>> {
                let list = match v {
                    Value::Int(d) => vec![*d],
                    other => other
                        .as_dims()
                        .ok_or_else(|| Failure::shape("`tensordot`: dims lists Ints"))?,
                };
                list.iter().map(|d| normalize_dim(*d, rank)).collect()
            };
            let (x, y) = (
                positions(&pair[0], a.ndim())?,
                positions(&pair[1], b.ndim())?,
            );
            if x.len() != y.len() {
                return Err(Failure::shape(
                    "`tensordot`: both dimension lists should have the same length",
                ));
            }
            (x, y)
        }
        Value::Shape(s) if s.len() == 2 => (
            vec![normalize_dim(s[0], a.ndim())?],
            vec![normalize_dim(s[1], b.ndim())?],
        ),
        _ => return Err(Failure::shape("`tensordot`: dims is an Int or two lists")),
    };
    for (i, j) in axes_a.iter().zip(&axes_b) {
        if a.shape()[*i] != b.shape()[*j] {
            return Err(Failure::shape(format!(
                "`tensordot`: contracted dimensions need to match, but the first has size {} in dim {i} and the second has size {} in dim {j}",
                a.shape()[*i],
                b.shape()[*j]
            )));
        }
    }
    let free_a: Vec<usize> = (0..a.ndim()).filter(|k| !axes_a.contains(k)).collect();
    let free_b: Vec<usize> = (0..b.ndim()).filter(|k| !axes_b.contains(k)).collect();
    let size = |t: &Tensor, axes: &[usize]| axes.iter().map(|k| t.shape()[*k]).product::<usize>();
    let matrix = |t: &Tensor, first: &[usize], second: &[usize]| -> Outcome<Tensor> {
        let order: Vec<usize> = first.iter().chain(second).copied().collect();
        t.view()
            .permuted_axes(IxDyn(&order))
            .as_standard_layout()
            .to_owned()
            .into_shape_with_order(IxDyn(&[size(t, first), size(t, second)]))
            .map_err(|e| Failure::program(e.to_string()))
    };
    let product = matmul(
        ctx,
        &matrix(&a, &free_a, &axes_a)?,
        &matrix(&b, &axes_b, &free_b)?,
    )?;
    let shape: Vec<usize> = free_a
        .iter()
        .map(|k| a.shape()[*k])
        .chain(free_b.iter().map(|k| b.shape()[*k]))
        .collect();
    ctx.check_size(&shape)?;
    product
        .into_shape_with_order(IxDyn(&shape))
        .map_err(|e| Failure::program(e.to_string()))
}

/// `baddbmm(input, batch1, batch2, beta, alpha)`:
/// `beta·input + alpha·bmm(batch1, batch2)`, `input` broadcast to the
/// product's shape.
pub fn baddbmm(ctx: &OpContext, args: &Args) -> Outcome<Tensor> {
    let (x, y) = (args.tensor("batch1")?, args.tensor("batch2")?);
    if x.ndim() != 3 || y.ndim() != 3 {
        return Err(Failure::shape(format!(
            "`baddbmm`: batch1 and batch2 must be 3-D tensors, but got shapes {} and {}",
            dims_text(&as_i64(x.shape())),
            dims_text(&as_i64(y.shape()))
        )));
    }
    if x.shape()[0] != y.shape()[0] {
        return Err(Failure::shape(format!(
            "`baddbmm`: batch1 and batch2 must have the same number of batches, got {} and {}",
            x.shape()[0],
            y.shape()[0]
        )));
    }
    let product = matmul(ctx, &x, &y)?;
    let input = args.tensor("input")?;
    let (beta, alpha) = (args.float("beta")? as f32, args.float("alpha")? as f32);
    let sum = zip_with(ctx, &input, &product, |i, p| beta * i + alpha * p)?;
    if sum.shape() != product.shape() {
        return Err(Failure::shape(format!(
            "`baddbmm`: the input of shape {} does not broadcast to the product's shape {}",
            dims_text(&as_i64(input.shape())),
            dims_text(&as_i64(product.shape()))
        )));
    }
    Ok(sum)
}

/// `scaled_dot_product_attention(query, key, value, attn_mask, dropout_p,
/// is_causal)`: `softmax(query·keyᵀ/√E + mask)·value` (no dropout: the
/// interpreter evaluates).
pub fn attention(ctx: &OpContext, args: &Args) -> Outcome<Tensor> {
    let (q, k, v) = (
        args.tensor("query")?,
        args.tensor("key")?,
        args.tensor("value")?,
    );
    if q.ndim() < 2 || k.ndim() < 2 || v.ndim() < 2 {
        return Err(Failure::shape(
            "`scaled_dot_product_attention` needs query, key and value of at least 2 dimensions",
        ));
    }
    let e = q.shape()[q.ndim() - 1];
    let mut key_t = (*k).clone();
    key_t.swap_axes(k.ndim() - 2, k.ndim() - 1);
    let mut scores = matmul(ctx, &q, &key_t.as_standard_layout().to_owned())?;
    let scale = 1.0 / (e.max(1) as f32).sqrt();
    scores.mapv_inplace(|s| s * scale);
    if args.bool("is_causal")? {
        // Position i attends to positions up to i (the upper triangle off).
        let rank = scores.ndim();
        for (index, value) in scores.indexed_iter_mut() {
            if index[rank - 1] > index[rank - 2] {
                *value = f32::NEG_INFINITY;
            }
        }
    }
    if let Some(mask) = args.opt_tensor("attn_mask")? {
        scores = zip_with(ctx, &scores, &mask, |s, m| s + m)?;
    }
    let weights = softmax(&scores, -1, false)?;
    matmul(ctx, &weights, &v)
}
