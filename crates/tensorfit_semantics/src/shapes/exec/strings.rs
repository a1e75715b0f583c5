//! Python's strings built from values: f-strings (`f"block{i + 1}"`, as
//! `Builtin::Format` of their parts), `%` formatting (`"denselayer%d" %
//! (i + 1)`) and `+`. Module names are made so (`add_module(name, m)`), and
//! a name the analysis knows keeps the layers it registers in order.
//!
//! Only what is certain is computed: an integer whose value is a known
//! constant, a string, `True`/`False`, `None`. Anything else (a float,
//! whose text Python rounds its own way; a symbolic integer; a format
//! spec) makes the string unknown.

use super::str_format::text_of;
use crate::shapes::value::Value;

/// An f-string of these parts: each part's text, joined.
pub(super) fn formatted(parts: &[Value]) -> Value {
    parts
        .iter()
        .map(text_of)
        .collect::<Option<String>>()
        .map_or(Value::Unknown, Value::Str)
}

/// `template % values` (printf-style formatting), for the conversions
/// `d`, `i`, `s`, `r`, `x`, `X`, `o` and `%%` with the flags `-`, `0`,
/// `+`, ` ` and `#`, a width and a precision; `values` a tuple, or one
/// value. A float, `%(name)s` and `*` widths are not followed.
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
        let mut flags = String::new();
        let mut conversion = None;
        for c in chars.by_ref() {
            if c.is_ascii_alphabetic() || c == '%' {
                conversion = Some(c);
                break;
            }
            flags.push(c);
        }
        let text = match conversion {
            Some('%') if flags.is_empty() => Some("%".to_owned()),
            Some(kind) => next
                .next()
                .and_then(|value| percent_conversion(&flags, kind, value)),
            None => None,
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

/// One `%` conversion of `value`: its flags, width and precision
/// (`flags`, as written between `%` and the letter) turned into the
/// format spec that gives the same text. Unlike `format`, `%` aligns
/// strings right by default, and `0` pads numbers only.
fn percent_conversion(flags: &str, kind: char, value: &Value) -> Option<String> {
    let start = flags.find(|c: char| !matches!(c, '-' | '0' | '+' | ' ' | '#'));
    let (marks, size) = flags.split_at(start.unwrap_or(flags.len()));
    if !size.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let left = marks.contains('-');
    let number = matches!(kind, 'd' | 'i' | 'x' | 'X' | 'o');
    let mut spec = String::new();
    match (left, number && marks.contains('0')) {
        (true, _) => spec.push('<'),
        // `0` pads after the sign, as the spec's `0` does without an
        // alignment.
        (false, true) => {}
        (false, false) => spec.push('>'),
    }
    if number {
        spec.extend(marks.chars().filter(|c| matches!(c, '+' | ' ')).take(1));
        if marks.contains('#') {
            spec.push('#');
        }
        if marks.contains('0') && !left {
            spec.push('0');
        }
    }
    spec.push_str(size);
    match kind {
        // `%d` of a bool is its number; of a string, Python's `TypeError`.
        'd' | 'i' | 'x' | 'X' | 'o' => match value {
            Value::Int(_) | Value::Bool(_) => {
                let kind = if kind == 'i' { 'd' } else { kind };
                super::str_format::format_value(value, &format!("{spec}{kind}"))
            }
            _ => None,
        },
        's' => super::str_format::format_value(&Value::Str(text_of(value)?), &spec),
        'r' => super::str_format::format_value(&Value::Str(super::str_format::repr(value)?), &spec),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tensorfit_solver::{Formula, Term};

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
        assert_eq!(
            percent_formatted("%5.2f", &Value::Float(Some(1.0))),
            Value::Unknown
        );
        assert_eq!(percent_formatted("%(name)s", &int(1)), Value::Unknown);
    }

    // What CPython 3.11 prints for each.
    #[test]
    fn percent_flags_widths_and_types_are_pythons() {
        let s = |text: &str| Value::Str(text.to_owned());
        let cases: &[(&str, Value, &str)] = &[
            ("%3d", int(1), "  1"),
            ("%05d", int(-42), "-0042"),
            ("%-4s|", s("ab"), "ab  |"),
            ("%5s", s("ab"), "   ab"),
            ("%05s", s("ab"), "   ab"),
            ("%x", int(255), "ff"),
            ("%#x", int(255), "0xff"),
            ("%+d", int(3), "+3"),
            ("%.2s", s("abc"), "ab"),
            ("%r", s("a"), "'a'"),
            ("%d", Value::Bool(Formula::Const(true)), "1"),
        ];
        for (template, value, expected) in cases {
            assert_eq!(
                percent_formatted(template, value),
                s(expected),
                "{template}"
            );
        }
        assert_eq!(percent_formatted("%d", &s("a")), Value::Unknown);
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
