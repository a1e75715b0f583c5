//! Python's comparisons of values the analysis knows (`==`, `!=`, `<`,
//! ..., as `shapes::exec::expressions` evaluates a comparison), as
//! formulas: numbers, strings, `None`, truth values, shapes, and
//! enumeration members.

use tensorfit_solver::Formula;
use tensorfit_syntax::ast::CompareOp;

use super::{identity, shapes_equal};
use crate::shapes::value::Value;

/// `a op b` as a formula, where the values say it; `None` where they do
/// not (a comparison with an unknown value, a tensor's element-wise one).
pub(super) fn compare(op: CompareOp, a: &Value, b: &Value) -> Option<Formula> {
    if matches!(op, CompareOp::Is | CompareOp::IsNot) {
        return None;
    }
    if matches!(a, Value::Member(_)) || matches!(b, Value::Member(_)) {
        return compare_members(op, a, b);
    }
    if let Some(decided) = super::numbers::compare(op, a, b) {
        return Some(decided);
    }
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(match op {
            CompareOp::Eq => Formula::eq(x, y),
            CompareOp::Ne => Formula::ne(x, y),
            CompareOp::Lt => Formula::lt(x, y),
            CompareOp::Le => Formula::le(x, y),
            CompareOp::Gt => Formula::gt(x, y),
            CompareOp::Ge => Formula::ge(x, y),
            CompareOp::Is | CompareOp::IsNot => return None,
        }),
        // Strings are equal to equal strings only: `v == "M"` over VGG's
        // `[64, "M", 128]` is false for the numbers.
        // A symbolic number is no string only if it is a number: a Python
        // parameter read as one because it is only stored (`self.f0_pred =
        // f0_pred`) may hold the string it is compared with.
        (Value::Str(_), _) | (_, Value::Str(_)) if matches!(op, CompareOp::Eq | CompareOp::Ne) => {
            let same = match (a, b) {
                (Value::Str(x), Value::Str(y)) => x == y,
                (other, Value::Str(_)) | (Value::Str(_), other) if is_plain_constant(other) => {
                    false
                }
                _ => return None,
            };
            Some(Formula::truth(same == (op == CompareOp::Eq)))
        }
        // `None` equals `None` only (as `is` says).
        (Value::None, _) | (_, Value::None) if matches!(op, CompareOp::Eq | CompareOp::Ne) => {
            let same = identity::identical(a, b)?;
            Some(match op == CompareOp::Eq {
                true => same,
                false => Formula::not(&same),
            })
        }
        (Value::Bool(x), Value::Bool(y)) if matches!(op, CompareOp::Eq | CompareOp::Ne) => {
            let same = Formula::iff(x, y);
            Some(if op == CompareOp::Eq {
                same
            } else {
                Formula::not(&same)
            })
        }
        _ if matches!(op, CompareOp::Eq | CompareOp::Ne) => {
            let (x, y) = (a.as_dims()?, b.as_dims()?);
            let same = shapes_equal(&x, &y)?;
            Some(if op == CompareOp::Eq {
                same
            } else {
                Formula::not(&same)
            })
        }
        _ => None,
    }
}

/// A number, truth value or `None` whose value is known.
fn is_plain_constant(value: &Value) -> bool {
    match value {
        Value::Int(t) => t.as_const().is_some(),
        Value::Float(f) => f.is_some(),
        Value::Bool(f) => f.as_const().is_some(),
        Value::None => true,
        _ => false,
    }
}

/// `a == b` (and the other comparisons) where a member is an operand:
/// members are equal to themselves only; a mixed-in member compares as
/// its `int` or `str`; a plain member is unequal to anything else and has
/// no order.
pub(super) fn compare_members(op: CompareOp, a: &Value, b: &Value) -> Option<Formula> {
    let equality = matches!(op, CompareOp::Eq | CompareOp::Ne);
    let answer = |same: bool| Formula::Const(same == (op == CompareOp::Eq));
    match (a, b) {
        (Value::Member(x), Value::Member(y)) if equality && x.is(y) => Some(answer(true)),
        (Value::Member(x), Value::Member(y)) => match (x.mixed_in(), y.mixed_in()) {
            (Some(x), Some(y)) => compare(op, x, y),
            _ if equality => Some(answer(false)),
            _ => None,
        },
        (Value::Member(m), other) | (other, Value::Member(m)) => match m.mixed_in() {
            Some(inner) => {
                let (x, y) = match a {
                    Value::Member(_) => (inner, other),
                    _ => (other, inner),
                };
                compare(op, x, y)
            }
            // A value whose type is certain is no member; an unknown one,
            // a placeholder (an unannotated parameter) or a symbolic
            // number may be.
            None if equality && is_certainly_no_member(other) => Some(answer(false)),
            None => None,
        },
        _ => None,
    }
}

/// Whether `value` is of a kind no enumeration member is.
fn is_certainly_no_member(value: &Value) -> bool {
    match value {
        Value::Int(term) => term.as_const().is_some(),
        Value::Bool(formula) => formula.as_const().is_some(),
        Value::Float(x) => x.is_some(),
        Value::Tensor(shape) => shape.dims().is_some(),
        Value::Str(_)
        | Value::None
        | Value::Elements(_)
        | Value::Shape(_)
        | Value::Tuple(_)
        | Value::List(_)
        | Value::Layer(_)
        | Value::Callable(_)
        | Value::Partial(_)
        | Value::Closure(_) => true,
        Value::Instance(_) | Value::Member(_) | Value::Unknown => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shapes::value::{Member, Shape};
    use tensorfit_solver::Term;
    use tensorfit_syntax::ast::Enumeration;

    fn member(class: &str, name: &str, value: Value, kind: Enumeration) -> Value {
        Value::Member(Member::new(class, name, value, kind))
    }

    fn int(k: i64) -> Value {
        Value::Int(Term::int(k))
    }

    fn decided(op: CompareOp, a: &Value, b: &Value) -> Option<bool> {
        compare_members(op, a, b).and_then(|f| f.as_const())
    }

    // What CPython 3.11 answers, with `class Act(Enum): RELU = 1; GELU = 2`
    // and `class Width(IntEnum): NARROW = 8; WIDE = 9`.
    #[test]
    fn members_equal_themselves_and_mixed_in_ones_their_values() {
        let relu = member("Act", "RELU", int(1), Enumeration::Plain);
        let gelu = member("Act", "GELU", int(2), Enumeration::Plain);
        let narrow = member("Width", "NARROW", int(8), Enumeration::Int);
        let wide = member("Width", "WIDE", int(9), Enumeration::Int);
        assert_eq!(decided(CompareOp::Eq, &relu, &relu), Some(true));
        assert_eq!(decided(CompareOp::Eq, &relu, &gelu), Some(false));
        assert_eq!(decided(CompareOp::Ne, &relu, &gelu), Some(true));
        assert_eq!(decided(CompareOp::Eq, &relu, &int(1)), Some(false));
        assert_eq!(decided(CompareOp::Eq, &int(1), &relu), Some(false));
        assert_eq!(decided(CompareOp::Eq, &narrow, &int(8)), Some(true));
        assert_eq!(decided(CompareOp::Lt, &narrow, &wide), Some(true));
        assert_eq!(decided(CompareOp::Gt, &int(10), &wide), Some(true));
        // A plain member has no order (Python's `TypeError`).
        assert_eq!(decided(CompareOp::Lt, &relu, &gelu), None);
    }

    #[test]
    fn a_value_that_may_be_a_member_decides_nothing() {
        let relu = member("Act", "RELU", int(1), Enumeration::Plain);
        // An unannotated parameter's placeholder, a symbolic number.
        let placeholder = Value::Tensor(Shape::opaque(3));
        assert_eq!(decided(CompareOp::Eq, &relu, &placeholder), None);
        assert_eq!(
            decided(CompareOp::Eq, &relu, &Value::Int(Term::var(4))),
            None
        );
        assert_eq!(decided(CompareOp::Eq, &relu, &Value::Unknown), None);
        assert_eq!(decided(CompareOp::Eq, &relu, &Value::None), Some(false));
    }
}
