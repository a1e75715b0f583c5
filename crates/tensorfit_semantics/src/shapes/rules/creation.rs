//! Creation: `zeros`, `ones`, `randn`, `rand`, `empty`, `full`, `eye`,
//! `arange` and the methods `new_zeros`, `new_ones`, `new_empty`,
//! `new_full`: sizes given as varargs or a list, each positive.

use tensorfit_base::TextRange;
use tensorfit_solver::{Formula, Term};

use super::{require, size_dims, tensor, Args, RuleContext, Shape, Value};

/// The rule of `name`, one of this family's operations.
pub(super) fn apply(
    frame: &mut dyn RuleContext,
    name: &str,
    args: &Args,
    range: TextRange,
) -> Option<Value> {
    match name {
        "zeros" | "ones" | "randn" | "rand" | "empty" | "full" | "new_zeros" | "new_ones"
        | "new_empty" | "new_full" => {
            tensor(size_dims(frame, args.get("size"), name, range).map(Shape::known))
        }
        // `randint(high, size)`: the size is the second argument.
        "randint" => {
            let size = match args.get("size") {
                Value::None => args.get("high"),
                size => size,
            };
            tensor(size_dims(frame, size, name, range).map(Shape::known))
        }
        "eye" => {
            let n = args.int("n")?;
            let m = args.int("m").unwrap_or_else(|| n.clone());
            Some(Value::Tensor(Shape::known(vec![n, m])))
        }
        "arange" => {
            // Float bounds or step (`arange(0, 1, 0.25)`): PyTorch's length
            // is `ceil((end - start) / step)`, known for known numbers.
            let is_float = |p: &str| matches!(args.get(p), Value::Float(_));
            if is_float("start") || is_float("end") || is_float("step") {
                return Some(float_range_length(frame, args).map_or(Value::Unknown, |n| {
                    Value::Tensor(Shape::known(vec![Term::int(n)]))
                }));
            }
            let (start, end) = match args.int("end") {
                Some(end) => (args.int("start")?, end),
                None => (Term::int(0), args.int("start")?),
            };
            let step = args.int("step").unwrap_or(Term::int(1));
            // A descending range (`arange(5, 0, -1)`) is PyTorch's, and not
            // what the length below counts.
            if frame.pytorch_operations() && step.as_const().is_none_or(|k| k < 1) {
                return Some(Value::Unknown);
            }
            let length = Term::div(
                &Term::add(&Term::sub(&end, &start), &Term::sub(&step, &Term::int(1))),
                &step,
            );
            // PyTorch allows an empty range (not a reversed one); the
            // Tensor language does not. An empty tensor is not followed
            // (see `size_dims`).
            let (least, message) = match frame.pytorch_operations() {
                true => (0, "`arange`'s end is before its start: {} elements"),
                false => (1, "`arange` would be empty: {} elements"),
            };
            require(
                frame,
                Formula::ge(&length, &Term::int(least)),
                range,
                message.to_owned(),
                vec![length.clone()],
            );
            if length.as_const().is_some_and(|k| k < 1) {
                return Some(Value::Unknown);
            }
            Some(Value::Tensor(Shape::known(vec![length])))
        }
        _ => None,
    }
}

/// The length of `arange` with a float bound or step, where every bound is
/// a known number and the range is not empty.
fn float_range_length(frame: &dyn RuleContext, args: &Args) -> Option<i64> {
    let number = |p: &str| match args.get(p) {
        Value::Float(x) => *x,
        Value::Int(t) => frame.known(t).as_const().map(|n| n as f64),
        _ => None,
    };
    let (start, end) = match args.get("end") {
        Value::None => (0.0, number("start")?),
        _ => (number("start")?, number("end")?),
    };
    let step = match args.get("step") {
        Value::None => 1.0,
        _ => number("step")?,
    };
    if step == 0.0 {
        return None;
    }
    let length = ((end - start) / step).ceil();
    (1.0..1e15).contains(&length).then_some(length as i64)
}
