//! Python's `a is b`: whether two values are one object, as CPython decides
//! it. `None`, `True` and `False` are single objects; so are the integers
//! -5 to 256, the empty string, one-character strings of Latin-1 and every
//! string written as an identifier, which CPython interns
//! (`block_type is "proj"` holds when `block_type` came from the literal
//! `"proj"`). Values of different types are never one object. Anything
//! else (two lists, two large numbers, two strings with spaces) depends on
//! where the objects were made, and is not known.

use tensorfit_solver::Formula;

use crate::shapes::value::Value;

/// `a is b` as a formula, where CPython's answer is certain.
pub(super) fn identical(a: &Value, b: &Value) -> Option<Formula> {
    // A tensor of unknown rank is an unannotated parameter's placeholder,
    // which may be `None` or a number at a call.
    let unknown = |v: &Value| match v {
        Value::Unknown => true,
        Value::Tensor(shape) => shape.dims().is_none(),
        _ => false,
    };
    if unknown(a) || unknown(b) {
        return None;
    }
    let decided = |same: bool| Some(Formula::Const(same));
    match (a, b) {
        (Value::None, Value::None) => decided(true),
        (Value::None, _) | (_, Value::None) => decided(false),
        (Value::Bool(x), Value::Bool(y)) => Some(Formula::iff(x, y)),
        (Value::Int(x), Value::Int(y)) => {
            let (x, y) = (x.as_const()?, y.as_const()?);
            match x == y {
                false => decided(false),
                true if (-5..=256).contains(&x) => decided(true),
                true => None,
            }
        }
        (Value::Str(x), Value::Str(y)) => match x == y {
            false => decided(false),
            true if is_interned(x) => decided(true),
            true => None,
        },
        (Value::Member(x), Value::Member(y)) => decided(x.is(y)),
        (Value::Member(_), other) | (other, Value::Member(_)) if python_type(other).is_some() => {
            decided(false)
        }
        // A class or function named twice is the one object.
        (Value::Callable(x), Value::Callable(y)) if x == y => decided(true),
        _ => match (python_type(a), python_type(b)) {
            (Some(x), Some(y)) if x != y => decided(false),
            _ => None,
        },
    }
}

/// Strings CPython keeps one object of: the empty string, one Latin-1
/// character, and those made of identifier characters (interned when
/// written in code, as names are).
fn is_interned(text: &str) -> bool {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (None, _) => true,
        (Some(c), None) => u32::from(c) < 256,
        _ => text.chars().all(|c| c == '_' || c.is_ascii_alphanumeric()),
    }
}

/// The Python type of a value whose type is certain. A symbolic integer
/// has none: an unannotated parameter read as a number because it is only
/// stored may hold any value at a call.
fn python_type(value: &Value) -> Option<&'static str> {
    Some(match value {
        Value::Int(term) if term.as_const().is_some() => "int",
        Value::Bool(Formula::Const(_)) => "bool",
        Value::Float(Some(_)) => "float",
        Value::Str(_) => "str",
        Value::List(_) => "list",
        Value::Tuple(_) => "tuple",
        Value::Tensor(shape) if shape.dims().is_some() => "Tensor",
        Value::Closure(_) => "function",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tensorfit_solver::Term;

    fn int(k: i64) -> Value {
        Value::Int(Term::int(k))
    }

    fn s(text: &str) -> Value {
        Value::Str(text.to_owned())
    }

    fn truth(b: bool) -> Value {
        Value::Bool(Formula::Const(b))
    }

    fn is(a: &Value, b: &Value) -> Option<bool> {
        identical(a, b).and_then(|f| f.as_const())
    }

    // What CPython 3.11 answers for each pair (literals passed through a
    // variable, as a program compares them).
    #[test]
    fn singletons_small_integers_and_interned_strings_are_one_object() {
        assert_eq!(is(&Value::None, &Value::None), Some(true));
        assert_eq!(is(&int(0), &Value::None), Some(false));
        assert_eq!(is(&truth(true), &truth(true)), Some(true));
        assert_eq!(is(&truth(true), &truth(false)), Some(false));
        assert_eq!(is(&int(1), &truth(true)), Some(false));
        assert_eq!(is(&int(256), &int(256)), Some(true));
        assert_eq!(is(&int(-5), &int(-5)), Some(true));
        assert_eq!(is(&int(3), &int(4)), Some(false));
        assert_eq!(is(&s("proj"), &s("proj")), Some(true));
        assert_eq!(is(&s("proj"), &s("conv")), Some(false));
        assert_eq!(is(&s(""), &s("")), Some(true));
        assert_eq!(is(&s("-"), &s("-")), Some(true));
        assert_eq!(is(&s("proj"), &int(1)), Some(false));
        assert_eq!(is(&s("a"), &Value::List(vec![])), Some(false));
    }

    #[test]
    fn what_depends_on_where_objects_were_made_is_not_known() {
        assert_eq!(is(&int(257), &int(257)), None);
        assert_eq!(is(&s("a b"), &s("a b")), None);
        assert_eq!(is(&Value::List(vec![]), &Value::List(vec![])), None);
        assert_eq!(is(&Value::Unknown, &Value::None), None);
        let symbolic = Value::Int(Term::var(7));
        assert_eq!(is(&symbolic, &s("proj")), None);
        assert_eq!(is(&symbolic, &Value::None), Some(false));
    }
}
