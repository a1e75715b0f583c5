//! The methods of a known dict, list or tuple that read it (the Python
//! documentation's "Mapping Types" and "Common Sequence Operations"):
//! `kwargs.get("num_classes", 1000)`, `cfg.get("width")`, `xs.index(v)`,
//! `xs.count(v)`, `d.copy()`. Those that change it (`append`, `update`,
//! `pop`, ...) are the front end's statements (`Builtin::SetItem`,
//! `Builtin::Pop`, ...).
//!
//! A dict the analysis holds knows its keys: one set on one path only is
//! there with an unknown value. So a key it does not hold is absent, and
//! `get` gives the default.

use tensorfit_solver::Term;
use tensorfit_syntax::ast::CompareOp;

use super::comparisons::compare;
use crate::shapes::value::{GivenArg, Value};

/// Whether `method` is a reading method of `receiver`'s kind.
pub(super) fn reads(receiver: &Value, method: &str) -> bool {
    match receiver {
        Value::Instance(dict) if dict.is_dict() => matches!(method, "get" | "copy"),
        Value::List(_) => matches!(method, "index" | "count" | "copy"),
        Value::Tuple(_) => matches!(method, "index" | "count"),
        _ => false,
    }
}

/// `receiver.method(*args)` of a method [`reads`] names.
pub(super) fn call(receiver: &Value, method: &str, args: &[GivenArg]) -> Value {
    // These methods take no keywords.
    if args.iter().any(|a| a.name.is_some()) {
        return Value::Unknown;
    }
    let values: Vec<&Value> = args.iter().map(|a| &a.value).collect();
    let answer = match (receiver, method, values.as_slice()) {
        (Value::Instance(dict), "get", [Value::Str(key), rest @ ..]) if rest.len() <= 1 => {
            match dict.fields.iter().find(|(name, _)| name == key) {
                Some((_, value)) => Some(value.clone()),
                None => Some(rest.first().map_or(Value::None, |d| (*d).clone())),
            }
        }
        (Value::Instance(_) | Value::List(_), "copy", []) => Some(receiver.clone()),
        (Value::List(items) | Value::Tuple(items), "index", [item]) => position(items, item),
        (Value::List(items) | Value::Tuple(items), "count", [item]) => count(items, item),
        _ => None,
    };
    answer.unwrap_or(Value::Unknown)
}

/// The first position of an item equal to `item`, where every item before
/// it is certainly unequal; `None` where none is (Python's `ValueError`).
fn position(items: &[Value], item: &Value) -> Option<Value> {
    for (at, candidate) in items.iter().enumerate() {
        match compare(CompareOp::Eq, candidate, item)?.as_const()? {
            true => return Some(Value::Int(Term::int(at as i64))),
            false => continue,
        }
    }
    None
}

fn count(items: &[Value], item: &Value) -> Option<Value> {
    let mut found = 0;
    for candidate in items {
        if compare(CompareOp::Eq, candidate, item)?.as_const()? {
            found += 1;
        }
    }
    Some(Value::Int(Term::int(found)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shapes::value::Instance;

    fn int(k: i64) -> Value {
        Value::Int(Term::int(k))
    }

    fn args(values: &[Value]) -> Vec<GivenArg> {
        values.iter().cloned().map(GivenArg::positional).collect()
    }

    fn s(text: &str) -> Value {
        Value::Str(text.to_owned())
    }

    // What CPython 3.11 gives for `d = {"width": 8, "flag": <unknown>}`
    // and `xs = [5, 6, 7, 6]`.
    #[test]
    fn get_gives_the_value_or_the_default_of_an_absent_key() {
        let d = Instance::dict(vec![
            ("width".to_owned(), int(8)),
            ("flag".to_owned(), Value::Unknown),
        ]);
        assert_eq!(call(&d, "get", &args(&[s("width")])), int(8));
        assert_eq!(call(&d, "get", &args(&[s("width"), int(64)])), int(8));
        assert_eq!(call(&d, "get", &args(&[s("depth"), int(3)])), int(3));
        assert_eq!(call(&d, "get", &args(&[s("depth")])), Value::None);
        assert_eq!(call(&d, "get", &args(&[s("flag"), int(1)])), Value::Unknown);
        assert_eq!(call(&d, "get", &args(&[int(0)])), Value::Unknown);
        assert_eq!(call(&d, "copy", &[]), d);
    }

    #[test]
    fn index_and_count_compare_as_equality_does() {
        let xs = Value::List(vec![int(5), int(6), int(7), int(6)]);
        assert_eq!(call(&xs, "index", &args(&[int(6)])), int(1));
        assert_eq!(call(&xs, "count", &args(&[int(6)])), int(2));
        assert_eq!(call(&xs, "count", &args(&[int(9)])), int(0));
        // Python's `ValueError`.
        assert_eq!(call(&xs, "index", &args(&[int(9)])), Value::Unknown);
        // An item that may be equal decides nothing after it.
        let symbolic = Value::List(vec![Value::Int(Term::var(2)), int(6)]);
        assert_eq!(call(&symbolic, "index", &args(&[int(6)])), Value::Unknown);
    }
}
