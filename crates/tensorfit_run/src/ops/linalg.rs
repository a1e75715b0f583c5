//! `matmul` with PyTorch's full semantics, `mm`, `bmm`, `dot`; the other
//! products in `products.rs`.

use ndarray::{Array3, ArrayD, Axis, Ix2, IxDyn};

use super::elementwise::broadcast_dims;
use super::products;
use super::{Args, OpContext};
use crate::error::{Failure, Outcome};
use crate::value::{Tensor, Value};

pub fn call(ctx: &mut OpContext, name: &str, args: &Args) -> Outcome<Option<Value>> {
    let t = match name {
        "matmul" => matmul(ctx, &*args.tensor("input")?, &*args.tensor("other")?)?,
        "mm" => {
            let (a, b) = (args.tensor("input")?, args.tensor("mat2")?);
            require_rank("mm", &a, 2)?;
            require_rank("mm", &b, 2)?;
            matmul(ctx, &a, &b)?
        }
        "bmm" => {
            let (a, b) = (args.tensor("input")?, args.tensor("mat2")?);
            require_rank("bmm", &a, 3)?;
            require_rank("bmm", &b, 3)?;
            if a.shape()[0] != b.shape()[0] {
                return Err(Failure::shape(format!(
                    "`bmm`: the batch sizes differ ({} and {})",
                    a.shape()[0],
                    b.shape()[0]
                )));
            }
            matmul(ctx, &a, &b)?
        }
        "tensordot" => products::tensordot(ctx, args)?,
        "baddbmm" => products::baddbmm(ctx, args)?,
        "scaled_dot_product_attention" => products::attention(ctx, args)?,
        "dot" => {
            let (a, b) = (args.tensor("input")?, args.tensor("tensor")?);
            require_rank("dot", &a, 1)?;
            require_rank("dot", &b, 1)?;
            matmul(ctx, &a, &b)?
        }
        _ => return Ok(None),
    };
    Ok(Some(Value::tensor(t)))
}

fn require_rank(op: &str, t: &Tensor, rank: usize) -> Outcome<()> {
    if t.ndim() == rank {
        Ok(())
    } else {
        Err(Failure::shape(format!(
            "`{op}` expects {rank}-D tensors, but got a {}-D tensor",
            t.ndim()
        )))
    }
}

/// `torch.matmul`: vectors are promoted to matrices and back; leading
/// (batch) dimensions broadcast.
pub fn matmul(ctx: &OpContext, a: &Tensor, b: &Tensor) -> Outcome<Tensor> {
    if a.ndim() == 0 || b.ndim() == 0 {
        return Err(Failure::shape(
            "`matmul`: both arguments need at least 1 dimension, but one is a scalar",
        ));
    }
    let a_vector = a.ndim() == 1;
    let b_vector = b.ndim() == 1;
    let a = if a_vector {
        a.clone().insert_axis(Axis(0))
    } else {
        a.clone()
    };
    let b = if b_vector {
        b.clone().insert_axis(Axis(1))
    } else {
        b.clone()
    };
    let (n, k) = (a.shape()[a.ndim() - 2], a.shape()[a.ndim() - 1]);
    let (k2, m) = (b.shape()[b.ndim() - 2], b.shape()[b.ndim() - 1]);
    if k != k2 {
        return Err(Failure::shape(if a_vector && b_vector {
            format!("`matmul`: the vectors have {k} and {k2} elements")
        } else {
            format!("`matmul`: shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
        }));
    }
    let a_batch: Vec<i64> = a.shape()[..a.ndim() - 2]
        .iter()
        .map(|d| *d as i64)
        .collect();
    let b_batch: Vec<i64> = b.shape()[..b.ndim() - 2]
        .iter()
        .map(|d| *d as i64)
        .collect();
    let batch: Vec<usize> = broadcast_dims(&a_batch, &b_batch)?
        .into_iter()
        .map(|d| d as usize)
        .collect();
    let count: usize = batch.iter().product();
    let mut out_shape = batch.clone();
    out_shape.extend([n, m]);
    ctx.check_size(&out_shape)?;
    let expand = |t: &Tensor, rows: usize, cols: usize| -> Outcome<Array3<f32>> {
        let mut shape = batch.clone();
        shape.extend([rows, cols]);
        let view = t
            .broadcast(IxDyn(&shape))
            .ok_or_else(|| Failure::shape("`matmul`: the batch dimensions cannot be broadcast"))?;
        view.as_standard_layout()
            .into_owned()
            .into_shape_with_order((count, rows, cols))
            .map_err(|e| Failure::program(e.to_string()))
    };
    let a3 = expand(&a, n, k)?;
    let b3 = expand(&b, k, m)?;
    let mut out = Array3::<f32>::zeros((count, n, m));
    for i in 0..count {
        let product = a3.index_axis(Axis(0), i).dot(&b3.index_axis(Axis(0), i));
        out.index_axis_mut(Axis(0), i).assign(&product);
    }
    let mut result: ArrayD<f32> = out
        .into_shape_with_order(IxDyn(&out_shape))
        .map_err(|e| Failure::program(e.to_string()))?;
    if b_vector {
        let last = result.ndim() - 1;
        result = result.index_axis_move(Axis(last), 0);
    }
    if a_vector {
        let axis = result.ndim() - if b_vector { 1 } else { 2 };
        result = result.index_axis_move(Axis(axis), 0);
    }
    Ok(result)
}

/// A 2-D view of a tensor known to have rank 2.
pub fn as_matrix(t: &Tensor) -> ndarray::ArrayView2<'_, f32> {
    t.view().into_dimensionality::<Ix2>().expect("rank 2")
}
