//! Python's numbers beyond the solver's integers: floats with the values
//! Python computes from literals (`width_mult = 0.75`,
//! `_make_divisible(c * width_mult, 8)`), and the builtins that turn them
//! back into sizes (`int`, `round`, `math.ceil`, `math.floor`, `min`,
//! `max`, `abs`). A float is IEEE double arithmetic, as in Python. Where an
//! operand is not a known number (a symbolic size times a float), the
//! float is of unknown value, as it always was.

use tensorfit_solver::{Formula, Term};
use tensorfit_syntax::ast::{BinaryOp, CompareOp, MathFunction};

use crate::shapes::value::Value;

/// A Python float literal's value (`1e-6`, `0.75`, `1_000.5`); `None` for
/// anything else (a complex `2j`).
pub(super) fn literal(text: &str) -> Option<f64> {
    text.replace('_', "")
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
}

/// A number's value, where it is known: a constant `int` or a known float.
pub(super) fn known_number(value: &Value) -> Option<f64> {
    match value {
        Value::Int(term) => term.as_const().map(|n| n as f64),
        Value::Float(known) => *known,
        Value::Bool(formula) => formula.as_const().map(|b| f64::from(u8::from(b))),
        _ => None,
    }
}

/// `a op b` where one operand is a float: a float, known where both
/// operands are; `None` for operands that are not numbers.
pub(super) fn arithmetic(op: BinaryOp, a: &Value, b: &Value) -> Option<Value> {
    let is_number = |v: &Value| matches!(v, Value::Int(_) | Value::Float(_));
    if !is_number(a) || !is_number(b) {
        return None;
    }
    if !matches!(a, Value::Float(_)) && !matches!(b, Value::Float(_)) {
        return None;
    }
    let (Some(x), Some(y)) = (known_number(a), known_number(b)) else {
        return Some(Value::Float(None));
    };
    let value = match op {
        BinaryOp::Add => x + y,
        BinaryOp::Sub => x - y,
        BinaryOp::Mul => x * y,
        // Python raises on a division by zero: no value to go on with.
        BinaryOp::Div | BinaryOp::TrueDiv | BinaryOp::FloorDiv | BinaryOp::Rem if y == 0.0 => {
            return Some(Value::Unknown)
        }
        BinaryOp::Div | BinaryOp::TrueDiv => x / y,
        BinaryOp::FloorDiv => (x / y).floor(),
        // Python's `%` takes the divisor's sign.
        BinaryOp::Rem => x - y * (x / y).floor(),
        _ => return None,
    };
    Some(Value::Float(value.is_finite().then_some(value)))
}

/// A comparison of two numbers at least one of which is a float: decided
/// where both are known.
pub(super) fn compare(op: CompareOp, a: &Value, b: &Value) -> Option<Formula> {
    if !matches!(a, Value::Float(_)) && !matches!(b, Value::Float(_)) {
        return None;
    }
    let (x, y) = (known_number(a)?, known_number(b)?);
    let holds = match op {
        CompareOp::Eq => x == y,
        CompareOp::Ne => x != y,
        CompareOp::Lt => x < y,
        CompareOp::Le => x <= y,
        CompareOp::Gt => x > y,
        CompareOp::Ge => x >= y,
        CompareOp::Is | CompareOp::IsNot => return None,
    };
    Some(Formula::truth(holds))
}

/// An `int` from a float's value, if it is one Python can hold.
fn whole(value: f64) -> Option<Value> {
    (value.is_finite() && value.abs() < 1e15).then(|| Value::Int(Term::int(value as i64)))
}

/// `int(v)`: truncates a known float; an `int` (or anything the analysis
/// takes for one, such as an unannotated parameter's placeholder) is
/// itself; a float of unknown value is unknown.
pub(super) fn int(value: &Value) -> Value {
    match value {
        Value::Float(Some(x)) => whole(x.trunc()).unwrap_or(Value::Unknown),
        Value::Float(None) => Value::Unknown,
        Value::Bool(formula) => match formula.as_const() {
            Some(b) => Value::Int(Term::int(i64::from(b))),
            None => Value::Unknown,
        },
        // `int("18")`: Python's parse of a decimal literal, surrounded by
        // whitespace; anything else is its `ValueError`.
        Value::Str(text) => parsed_int(text).map_or(Value::Unknown, |k| Value::Int(Term::int(k))),
        Value::Member(member) => match member.mixed_in() {
            Some(inner) => int(inner),
            None => Value::Unknown,
        },
        other => other.clone(),
    }
}

/// A string `int()` reads: an optional sign, then digits with single
/// underscores between them.
fn parsed_int(text: &str) -> Option<i64> {
    let text = text.trim();
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    let well_formed = digits.starts_with(|c: char| c.is_ascii_digit())
        && digits.ends_with(|c: char| c.is_ascii_digit())
        && !digits.contains("__")
        && digits.chars().all(|c| c.is_ascii_digit() || c == '_');
    if !well_formed {
        return None;
    }
    text.replace('_', "").parse().ok()
}

/// `float(v)`.
pub(super) fn float(value: &Value) -> Value {
    match value {
        Value::Int(_) | Value::Float(_) | Value::Bool(_) => Value::Float(known_number(value)),
        _ => Value::Float(None),
    }
}

/// `math.ceil(v)`, `math.floor(v)` and `round(v)` (to the nearest, ties to
/// even, as Python's): an `int`.
pub(super) fn rounded(how: Rounding, value: &Value) -> Value {
    match value {
        Value::Int(_) => value.clone(),
        Value::Float(Some(x)) => {
            let r = match how {
                Rounding::Ceil => x.ceil(),
                Rounding::Floor => x.floor(),
                Rounding::Nearest => {
                    let r = x.round();
                    // `f64::round` takes ties away from zero; Python to even.
                    if (x - x.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
                        r - x.signum()
                    } else {
                        r
                    }
                }
            };
            whole(r).unwrap_or(Value::Unknown)
        }
        _ => Value::Unknown,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Rounding {
    Ceil,
    Floor,
    Nearest,
}

/// `min(a, b, ...)` and `max(a, b, ...)` of numbers (or of one list of
/// them): the argument itself (an `int` stays one), where every one is a
/// known number.
pub(super) fn extreme(largest: bool, values: &[Value]) -> Value {
    let values: &[Value] = match values {
        [Value::List(items) | Value::Tuple(items)] => items,
        _ => values,
    };
    // Of integers not all known (`max(min_value, c)` in a function whose
    // arguments are any `int`): a conditional term.
    let terms: Option<Vec<&Term>> = values
        .iter()
        .map(|v| match v {
            Value::Int(t) => Some(t),
            _ => None,
        })
        .collect();
    if let Some((first, rest)) = terms.as_deref().and_then(|t| t.split_first()) {
        if values.iter().any(|v| known_number(v).is_none()) {
            let best = rest.iter().fold((*first).clone(), |best, t| {
                // Python keeps the first of equal ones.
                let better = match largest {
                    true => Formula::gt(t, &best),
                    false => Formula::lt(t, &best),
                };
                Term::ite(&better, t, &best)
            });
            return Value::Int(best);
        }
    }
    let mut best: Option<(&Value, f64)> = None;
    for value in values {
        let Some(x) = known_number(value) else {
            return Value::Unknown;
        };
        let better = match best {
            None => true,
            // Python keeps the first of equal ones.
            Some((_, b)) => (largest && x > b) || (!largest && x < b),
        };
        if better {
            best = Some((value, x));
        }
    }
    best.map(|(value, _)| value.clone())
        .unwrap_or(Value::Unknown)
}

/// `math.log(v)`, `math.sqrt(v)`, ... (`Builtin::Math`): a float, known
/// where `v` is and in the function's domain (Python raises outside it).
pub(super) fn math_function(function: MathFunction, value: &Value) -> Value {
    let Some(x) = known_number(value) else {
        return Value::Float(None);
    };
    let Some(result) = function.apply(x) else {
        return Value::Unknown;
    };
    Value::Float(result.is_finite().then_some(result))
}

/// `sum(xs)` of a list or tuple of numbers: the sum of `int`s as a term
/// (known or not), of floats where all are known; unknown for anything
/// else (a list of tensors, whose sum is a tensor).
pub(super) fn sum(items: &Value) -> Value {
    let (Value::List(items) | Value::Tuple(items)) = items else {
        return Value::Unknown;
    };
    let mut total = Value::Int(Term::int(0));
    for item in items {
        total = match (&total, item) {
            (Value::Int(a), Value::Int(b)) => Value::Int(Term::add(a, b)),
            (Value::Int(_) | Value::Float(_), Value::Int(_) | Value::Float(_)) => {
                arithmetic(BinaryOp::Add, &total, item).unwrap_or(Value::Unknown)
            }
            _ => return Value::Unknown,
        };
    }
    total
}

/// `abs(v)` of a known number.
pub(super) fn absolute(value: &Value) -> Value {
    match value {
        Value::Int(term) => match term.as_const() {
            Some(n) => Value::Int(Term::int(n.abs())),
            None => Value::Unknown,
        },
        Value::Float(Some(x)) => Value::Float(Some(x.abs())),
        _ => Value::Unknown,
    }
}

/// Python's `a ** b` of numbers (`embed_dim * 2 ** i_stage`): an `int`
/// for `int`s and a non-negative exponent (exact; a symbolic base to a
/// small known exponent is its product), a float otherwise; `None` where
/// an operand is not a number (a tensor's power is `torch.pow`'s).
pub(super) fn power(base: &Value, exponent: &Value) -> Option<Value> {
    let is_number = |v: &Value| matches!(v, Value::Int(_) | Value::Float(_));
    if !is_number(base) || !is_number(exponent) {
        return None;
    }
    let most = i64::from(crate::registry::MAX_EXPONENT_AS_PRODUCT);
    if let (Value::Int(b), Value::Int(e)) = (base, exponent) {
        return Some(match (b.as_const(), e.as_const()) {
            (Some(b), Some(e)) if e >= 0 => {
                match u32::try_from(e).ok().and_then(|e| b.checked_pow(e)) {
                    Some(n) => Value::Int(Term::int(n)),
                    None => Value::Unknown,
                }
            }
            // A negative exponent makes a float, as Python's float power
            // of the two; Python raises for `0`.
            (Some(b), Some(e)) if b != 0 => {
                Value::Float(Some((b as f64).powf(e as f64)).filter(|x| x.is_finite()))
            }
            (None, Some(e)) if (1..=most).contains(&e) => {
                Value::Int((1..e).fold(b.clone(), |product, _| Term::mul(&product, b)))
            }
            _ => Value::Unknown,
        });
    }
    let value = match (known_number(base), known_number(exponent)) {
        // Python raises for `0.0 ** -1`.
        (Some(b), Some(e)) if !(b == 0.0 && e < 0.0) => b.powf(e),
        (Some(_), Some(_)) => return Some(Value::Unknown),
        _ => return Some(Value::Float(None)),
    };
    Some(Value::Float(value.is_finite().then_some(value)))
}

#[cfg(test)]
mod tests {
    use super::*;

    // What CPython 3.11's `int(text)` gives, or its `ValueError`.
    #[test]
    fn int_reads_a_decimal_string_as_python_does() {
        let of = |text: &str| int(&Value::Str(text.to_owned()));
        assert_eq!(of("18"), Value::Int(Term::int(18)));
        assert_eq!(of(" -7\n"), Value::Int(Term::int(-7)));
        assert_eq!(of("+1_000"), Value::Int(Term::int(1000)));
        for refused in ["", "1.5", "1__0", "_1", "1_", "0x10", "b"] {
            assert_eq!(of(refused), Value::Unknown, "{refused:?}");
        }
    }

    fn known(x: f64) -> Value {
        Value::Float(Some(x))
    }

    fn int_value(n: i64) -> Value {
        Value::Int(Term::int(n))
    }

    #[test]
    fn make_divisible_arithmetic_matches_python() {
        // torchvision's `_make_divisible(24 * 0.75, 8)`:
        // max(8, int(18.0 + 8 / 2) // 8 * 8) = 16, and 16 < 0.9 * 18.0.
        let v = arithmetic(BinaryOp::Mul, &int_value(24), &known(0.75)).unwrap();
        assert_eq!(v, known(18.0));
        let sum = arithmetic(BinaryOp::Add, &v, &int_value(4)).unwrap();
        assert_eq!(int(&sum), int_value(22));
        let tenth = arithmetic(BinaryOp::Mul, &known(0.9), &v).unwrap();
        assert_eq!(
            compare(CompareOp::Lt, &int_value(16), &tenth),
            Some(Formula::truth(true))
        );
    }

    #[test]
    fn powers_are_pythons() {
        assert_eq!(power(&int_value(2), &int_value(10)), Some(int_value(1024)));
        assert_eq!(power(&int_value(2), &int_value(-1)), Some(known(0.5)));
        assert_eq!(power(&known(2.0), &int_value(3)), Some(known(8.0)));
        assert_eq!(power(&int_value(3), &int_value(100)), Some(Value::Unknown));
        let n = Term::var(7);
        assert_eq!(
            power(&Value::Int(n.clone()), &int_value(2)),
            Some(Value::Int(Term::mul(&n, &n)))
        );
        assert_eq!(
            power(
                &Value::Tensor(crate::shapes::value::Shape::scalar()),
                &int_value(2)
            ),
            None
        );
    }

    #[test]
    fn rounding_is_pythons() {
        assert_eq!(rounded(Rounding::Nearest, &known(2.5)), int_value(2));
        assert_eq!(rounded(Rounding::Nearest, &known(3.5)), int_value(4));
        assert_eq!(rounded(Rounding::Nearest, &known(-2.5)), int_value(-2));
        assert_eq!(rounded(Rounding::Nearest, &known(2.6)), int_value(3));
        assert_eq!(rounded(Rounding::Ceil, &known(2.1)), int_value(3));
        assert_eq!(rounded(Rounding::Floor, &known(-2.1)), int_value(-3));
        assert_eq!(int(&known(-2.7)), int_value(-2));
    }

    #[test]
    fn floats_divide_as_python_does() {
        assert_eq!(
            arithmetic(BinaryOp::TrueDiv, &int_value(7), &known(2.0)),
            Some(known(3.5))
        );
        assert_eq!(
            arithmetic(BinaryOp::FloorDiv, &known(7.0), &int_value(2)),
            Some(known(3.0))
        );
        assert_eq!(
            arithmetic(BinaryOp::Rem, &known(-7.0), &int_value(3)),
            Some(known(2.0))
        );
        assert_eq!(
            arithmetic(BinaryOp::TrueDiv, &known(1.0), &int_value(0)),
            Some(Value::Unknown)
        );
        // Two `int`s are the solver's, not this module's.
        assert_eq!(
            arithmetic(BinaryOp::Add, &int_value(1), &int_value(2)),
            None
        );
    }

    #[test]
    fn min_and_max_keep_the_argument() {
        assert_eq!(extreme(true, &[known(1.0), known(0.5)]), known(1.0));
        assert_eq!(extreme(true, &[int_value(8), known(8.0)]), int_value(8));
        assert_eq!(extreme(false, &[int_value(3), int_value(2)]), int_value(2));
        assert_eq!(
            extreme(true, &[int_value(3), Value::Float(None)]),
            Value::Unknown
        );
    }
}
