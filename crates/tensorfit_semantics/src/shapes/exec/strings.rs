//! Python's strings built from values: f-strings (`f"block{i + 1}"`, as
//! `Builtin::Format` of their parts), `%` formatting (`"denselayer%d" %
//! (i + 1)`) and `+`. Module names are made so (`add_module(name, m)`), and
//! a name the analysis knows keeps the layers it registers in order.
//!
//! Only what is certain is computed: an integer whose value is a known
//! constant, a string, `True`/`False`, `None`. Anything else (a float,
//! whose text Python rounds its own way; a symbolic integer; a format
//! spec) makes the string unknown.

use tensorfit_solver::Formula;

use crate::shapes::value::Value;

/// Python's `str(value)`, where the analysis knows it.
pub(super) fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::Str(text) => Some(text.clone()),
        Value::Int(term) => term.as_const().map(|k| k.to_string()),
        Value::Bool(Formula::Const(b)) => Some(if *b { "True" } else { "False" }.to_owned()),
        Value::None => Some("None".to_owned()),
        Value::Member(member) => super::enumerations::member_text(member),
        _ => None,
    }
}

/// An f-string of these parts: each part's text, joined.
pub(super) fn formatted(parts: &[Value]) -> Value {
    parts
        .iter()
        .map(text_of)
        .collect::<Option<String>>()
        .map_or(Value::Unknown, Value::Str)
}

/// `template % values`, for the conversions `%d`, `%i`, `%s` and `%%`
/// without flags or widths; `values` a tuple, or one value.
pub(super) fn percent_formatted(template: &str, values: &Value) -> Value {
    let values: Vec<Value> = match values {
        Value::Tuple(items) => items.clone(),
        one => vec![one.clone()],
    };
    let mut next = values.iter();
    let mut out = String::new();
    let mut chars = template.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let text = match chars.next() {
            Some('%') => Some("%".to_owned()),
            // `%d` of a bool is its number; of a string, an error.
            Some('d' | 'i') => match next.next() {
                Some(Value::Int(term)) => term.as_const().map(|k| k.to_string()),
                _ => None,
            },
            Some('s') => next.next().and_then(text_of),
            _ => None,
        };
        match text {
            Some(text) => out.push_str(&text),
            None => return Value::Unknown,
        }
    }
    // Values left over are Python's `TypeError`: not a name to follow.
    match next.next() {
        Some(_) => Value::Unknown,
        None => Value::Str(out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tensorfit_solver::Term;

    fn int(k: i64) -> Value {
        Value::Int(Term::int(k))
    }

    #[test]
    fn percent_formats_known_integers_and_strings() {
        assert_eq!(
            percent_formatted("denselayer%d", &int(3)),
            Value::Str("denselayer3".to_owned())
        );
        assert_eq!(
            percent_formatted(
                "%s-%d%%",
                &Value::Tuple(vec![Value::Str("a".to_owned()), int(5)])
            ),
            Value::Str("a-5%".to_owned())
        );
        // Too few or too many values, a float, a width: not followed.
        assert_eq!(percent_formatted("%d %d", &int(1)), Value::Unknown);
        assert_eq!(percent_formatted("x", &int(1)), Value::Unknown);
        assert_eq!(
            percent_formatted("%d", &Value::Float(Some(1.0))),
            Value::Unknown
        );
        assert_eq!(percent_formatted("%3d", &int(1)), Value::Unknown);
    }

    #[test]
    fn f_strings_join_what_is_known() {
        assert_eq!(
            formatted(&[
                Value::Str("block".to_owned()),
                int(2),
                Value::Str("-".to_owned())
            ]),
            Value::Str("block2-".to_owned())
        );
        assert_eq!(
            formatted(&[Value::Str("x".to_owned()), Value::Unknown]),
            Value::Unknown
        );
        assert_eq!(formatted(&[Value::Float(Some(0.5))]), Value::Unknown);
    }
}
