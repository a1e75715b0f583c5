//! Linear algebra: `matmul` (PyTorch's cases by rank, batch dimensions
//! broadcast), `einsum` (read by `shapes/einsum.rs`) and the other
//! products (`products.rs`).

use tensorfit_base::TextRange;
use tensorfit_solver::Term;

use super::products;
use super::{
    broadcast, dims_of, refuse, require_equal, require_rank_at_least, Args, RuleContext, Shape,
    Value,
};

/// The rule of `name`, one of this family's operations.
pub(super) fn apply(
    frame: &mut dyn RuleContext,
    name: &str,
    args: &Args,
    range: TextRange,
) -> Option<Value> {
    match name {
        "matmul" => Some(matmul(frame, args, range)),
        "einsum" => Some(Value::Unknown),
        "tensordot" => products::tensordot(frame, args, range),
        "baddbmm" => products::baddbmm(frame, args, range),
        "scaled_dot_product_attention" => products::attention(frame, args, range),
        _ => None,
    }
}

fn matmul(frame: &mut dyn RuleContext, args: &Args, range: TextRange) -> Value {
    let (Some(a), Some(b)) = (
        args.get("input").tensor_shape(),
        args.get("other").tensor_shape(),
    ) else {
        return Value::Unknown;
    };
    let (ta, tb) = (args.text("input"), args.text("other"));
    let (Some(x), Some(y)) = (dims_of(frame, &a), dims_of(frame, &b)) else {
        // What holds whatever the ranks turn out to be: neither is a
        // scalar (a fact for the callers and for a migration's example).
        for (shape, text) in [(&a, &ta), (&b, &tb)] {
            require_rank_at_least(
                frame,
                shape,
                1,
                range,
                format!(
                    "`matmul` needs tensors with at least one dimension, but `{text}` has {{}}"
                ),
            );
        }
        return Value::Tensor(frame.fresh_shape());
    };
    if x.is_empty() || y.is_empty() {
        refuse(frame, range, format!("`matmul` needs tensors with at least one dimension, but `{ta}` has {} and `{tb}` has {}", x.len(), y.len()));
        return Value::Unknown;
    }
    let inner_a = x[x.len() - 1].clone();
    let inner_b = if y.len() == 1 {
        y[0].clone()
    } else {
        y[y.len() - 2].clone()
    };
    // Both shapes in full where they are known, as PyTorch's "mat1 and mat2
    // shapes cannot be multiplied (64x128 and 100x128)": a missing
    // transpose shows at a glance.
    let what = match (concrete(&x), concrete(&y)) {
        (Some(sx), Some(sy)) => {
            format!("shape mismatch in matrix multiplication ({sx} @ {sy})")
        }
        _ => "shape mismatch in matrix multiplication".to_owned(),
    };
    require_equal(
        frame,
        &inner_a,
        &inner_b,
        &what,
        format!("{ta}.shape[-1]"),
        format!("{tb}.shape[{}]", if y.len() == 1 { "0" } else { "-2" }),
        range,
    );
    let out = match (x.len(), y.len()) {
        (1, 1) => vec![],
        (2, 1) => vec![x[0].clone()],
        (1, 2) => vec![y[1].clone()],
        (2, 2) => vec![x[0].clone(), y[1].clone()],
        _ => {
            let batch_a = if x.len() > 2 {
                Shape::known(x[..x.len() - 2].to_vec())
            } else {
                Shape::scalar()
            };
            let batch_b = if y.len() > 2 {
                Shape::known(y[..y.len() - 2].to_vec())
            } else {
                Shape::scalar()
            };
            let batch = broadcast(frame, &batch_a, &batch_b, (&ta, &tb), range);
            let mut out = batch.dims().map(<[Term]>::to_vec).unwrap_or_default();
            if x.len() >= 2 {
                out.push(x[x.len() - 2].clone());
            }
            if y.len() >= 2 {
                out.push(y[y.len() - 1].clone());
            }
            out
        }
    };
    Value::Tensor(Shape::known(out))
}

/// `[64, 128]` when every dimension is a number.
fn concrete(dims: &[Term]) -> Option<String> {
    let numbers: Option<Vec<String>> = dims
        .iter()
        .map(|d| d.as_const().map(|n| n.to_string()))
        .collect();
    Some(format!("[{}]", numbers?.join(", ")))
}
