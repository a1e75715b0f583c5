//! Reductions with `dim` and `keepdim`, `max`/`min` of two tensors, and
//! `cumsum`, `softmax` and `log_softmax` (which keep the shape and check
//! their `dim`).

use tensorfit_base::TextRange;
use tensorfit_solver::{Formula, Term};

use super::{axis, broadcast, dims_of, refuse, Args, RuleContext, Shape, Value};

/// The rule of `name`, one of this family's operations.
pub(super) fn apply(
    frame: &mut dyn RuleContext,
    name: &str,
    args: &Args,
    range: TextRange,
) -> Option<Value> {
    match name {
        "max" | "min" if matches!(args.get("dim"), Value::Tensor(_)) => {
            let (a, b) = (args.shape("input")?, args.shape("dim")?);
            Some(Value::Tensor(broadcast(
                frame,
                &a,
                &b,
                (&args.text("input"), &args.text("dim")),
                range,
            )))
        }
        // With one `dim`: the values and their positions (`amax` and
        // `amin` give the values alone, over any dimensions).
        "max" | "min" => match args.get("dim") {
            Value::Int(_) => {
                let values = reduce(frame, name, args, range)?;
                Some(Value::Tuple(vec![values.clone(), values]))
            }
            Value::List(_) | Value::Tuple(_) => {
                refuse(
                    frame,
                    range,
                    format!("`{name}` takes one dimension as `dim`; `a{name}` takes several"),
                );
                Some(Value::Unknown)
            }
            _ => reduce(frame, name, args, range),
        },
        "sum" | "mean" | "prod" | "argmax" | "argmin" | "norm" | "amax" | "amin" | "variance"
        | "std" | "any" | "all" => reduce(frame, name, args, range),
        "cumsum" | "softmax" | "log_softmax" => {
            let shape = args.shape("input")?;
            if let (Some(dims), Some(dim)) = (dims_of(frame, &shape), args.int("dim")) {
                // Out of range is reported there; the shape stays anyway.
                let _ = axis(frame, &dim, dims.len(), name, range);
            }
            Some(Value::Tensor(shape))
        }
        _ => None,
    }
}

fn reduce(frame: &mut dyn RuleContext, name: &str, args: &Args, range: TextRange) -> Option<Value> {
    let shape = args.shape("input")?;
    let keepdim = matches!(args.get("keepdim"), Value::Bool(Formula::Const(true)));
    let axes: Vec<Term> = match args.get("dim") {
        Value::None => return Some(Value::Tensor(Shape::scalar())),
        Value::Int(d) => vec![d.clone()],
        Value::List(items) | Value::Tuple(items) => items
            .iter()
            .map(|v| v.as_int().cloned())
            .collect::<Option<_>>()?,
        _ => return Some(Value::Unknown),
    };
    let dims = dims_of(frame, &shape)?;
    let mut removed = Vec::new();
    for d in &axes {
        let i = axis(frame, d, dims.len(), name, range)?;
        if removed.contains(&i) {
            // PyTorch names the dimension as counted from the front.
            refuse(
                frame,
                range,
                format!("dim {i} appears multiple times in the list of dims of `{name}`"),
            );
            return None;
        }
        removed.push(i);
    }
    let out = dims
        .into_iter()
        .enumerate()
        .filter_map(|(i, d)| match (removed.contains(&i), keepdim) {
            (false, _) => Some(d),
            (true, true) => Some(Term::int(1)),
            (true, false) => None,
        })
        .collect();
    Some(Value::Tensor(Shape::known(out)))
}
