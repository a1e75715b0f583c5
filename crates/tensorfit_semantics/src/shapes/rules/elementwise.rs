//! Element-wise operations on two tensors and `where` on three: PyTorch's
//! broadcasting.

use tensorfit_base::TextRange;

use super::{broadcast, Args, RuleContext, Value};

/// The rule of `name`, one of this family's operations.
pub(super) fn apply(
    frame: &mut dyn RuleContext,
    name: &str,
    args: &Args,
    range: TextRange,
) -> Option<Value> {
    match name {
        "add" | "sub" | "mul" | "div" | "divide" | "maximum" | "minimum" | "pow" | "eq" | "ne"
        | "lt" | "le" | "gt" | "ge" | "masked_fill" => {
            let other = match name {
                "pow" => "exponent",
                "masked_fill" => "mask",
                _ => "other",
            };
            let (a, b) = (
                args.get("input").tensor_shape()?,
                args.get(other).tensor_shape()?,
            );
            Some(Value::Tensor(broadcast(
                frame,
                &a,
                &b,
                (&args.text("input"), &args.text(other)),
                range,
            )))
        }
        "where" => {
            let c = args.get("condition").tensor_shape()?;
            let a = args.get("input").tensor_shape()?;
            let b = args.get("other").tensor_shape()?;
            let ab = broadcast(
                frame,
                &a,
                &b,
                (&args.text("input"), &args.text("other")),
                range,
            );
            Some(Value::Tensor(broadcast(
                frame,
                &c,
                &ab,
                (&args.text("condition"), "the values"),
                range,
            )))
        }
        _ => None,
    }
}
