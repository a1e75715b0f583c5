//! Python's `str.format` (the format string syntax of the `string` module's
//! documentation): `"unit{}".format(i + 1)`, `"{0}_{name}".format(a,
//! name=b)`, `"{:02d}".format(k)`. Module names are made so, and a name the
//! analysis knows keeps the layers it registers in order.
//!
//! What is certain is computed: replacement fields numbered automatically
//! or by position, or named by a keyword; `{{` and `}}`; the conversions
//! `!s` and `!r` of what `str()` knows; the format specification's fill,
//! alignment, sign, `0`, width, precision of a string, and the types `s`,
//! `d`, `x`, `X`, `o`, `b` and `c` of integers. Anything else (a float, an
//! attribute or item of an argument, a nested field, a symbolic integer)
//! makes the result unknown, as does what Python raises on (a missing
//! argument, mixing `{}` with `{0}`).

use tensorfit_solver::Formula;

use crate::shapes::value::{GivenArg, Value};

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

/// `template.format(*args)`: the text, or `None` where it is not certain.
pub(super) fn format(template: &str, args: &[GivenArg]) -> Option<String> {
    let positional: Vec<&Value> = args
        .iter()
        .filter(|a| a.name.is_none())
        .map(|a| &a.value)
        .collect();
    let named = |name: &str| {
        args.iter()
            .find(|a| a.name.as_deref() == Some(name))
            .map(|a| &a.value)
    };
    let mut out = String::new();
    let mut chars = template.chars().peekable();
    // Python refuses to mix `{}` with `{0}`: `None` for either once the
    // other is seen.
    let mut automatic: Option<usize> = None;
    let mut numbered = false;
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            // A lone `}` is Python's `ValueError`.
            '}' => return None,
            '{' => {
                let mut field = String::new();
                loop {
                    match chars.next()? {
                        '}' => break,
                        // A nested field (`{:{width}}`): not followed.
                        '{' => return None,
                        c => field.push(c),
                    }
                }
                let (name, conversion, spec) = split_field(&field)?;
                let value = if name.is_empty() {
                    if numbered {
                        return None;
                    }
                    let next = automatic.map_or(0, |k| k + 1);
                    automatic = Some(next);
                    *positional.get(next)?
                } else if let Ok(index) = name.parse::<usize>() {
                    if automatic.is_some() {
                        return None;
                    }
                    numbered = true;
                    *positional.get(index)?
                } else if is_identifier(name) {
                    named(name)?
                } else {
                    // `{0.attr}`, `{a[0]}`.
                    return None;
                };
                let text = match conversion {
                    None => format_value(value, spec)?,
                    Some('s') => pad_text(&text_of(value)?, &Spec::parse(spec)?)?,
                    Some('r') => pad_text(&repr(value)?, &Spec::parse(spec)?)?,
                    Some(_) => return None,
                };
                out.push_str(&text);
            }
            c => out.push(c),
        }
    }
    Some(out)
}

/// A replacement field's name, conversion and format specification:
/// `name!r:>4` is `("name", Some('r'), ">4")`.
fn split_field(field: &str) -> Option<(&str, Option<char>, &str)> {
    let (head, spec) = match field.find(':') {
        Some(at) => (&field[..at], &field[at + 1..]),
        None => (field, ""),
    };
    match head.split_once('!') {
        Some((name, conversion)) => {
            let mut chars = conversion.chars();
            let c = chars.next()?;
            chars.next().is_none().then_some((name, Some(c), spec))
        }
        None => Some((head, None, spec)),
    }
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// Python's `repr` of a value whose text is certain.
pub(super) fn repr(value: &Value) -> Option<String> {
    match value {
        Value::Str(text) => {
            if text.chars().any(|c| c.is_control()) {
                return None;
            }
            // Python quotes with `'` unless the text holds `'` and no `"`.
            let quote = match text.contains('\'') && !text.contains('"') {
                true => '"',
                false => '\'',
            };
            let mut out = String::from(quote);
            for c in text.chars() {
                if c == '\\' || c == quote {
                    out.push('\\');
                }
                out.push(c);
            }
            out.push(quote);
            Some(out)
        }
        other => text_of(other),
    }
}

/// `format(value, spec)` of a string, an integer or a truth value; with
/// an empty spec, `str(value)` of what the analysis knows the text of.
pub(super) fn format_value(value: &Value, spec: &str) -> Option<String> {
    if spec.is_empty() {
        return text_of(value);
    }
    let spec = Spec::parse(spec)?;
    match value {
        Value::Str(text) => {
            if !matches!(spec.kind, None | Some('s')) || spec.sign.is_some() || spec.alternate {
                return None;
            }
            let text = match spec.precision {
                Some(n) => text.chars().take(n).collect(),
                None => text.clone(),
            };
            pad_text(&text, &spec)
        }
        Value::Int(term) => format_int(term.as_const()?, &spec),
        // A bool formats as `True` without a spec (above), as its number
        // with one.
        Value::Bool(tensorfit_solver::Formula::Const(b)) => format_int(i64::from(*b), &spec),
        _ => None,
    }
}

/// A format specification: `[[fill]align][sign][#][0][width][.precision][type]`.
#[derive(Debug, Default)]
struct Spec {
    fill: Option<char>,
    align: Option<char>,
    sign: Option<char>,
    alternate: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    kind: Option<char>,
}

impl Spec {
    fn parse(spec: &str) -> Option<Spec> {
        let chars: Vec<char> = spec.chars().collect();
        let mut at = 0;
        let mut parsed = Spec::default();
        let is_align = |c: char| matches!(c, '<' | '>' | '^' | '=');
        if chars.len() >= 2 && is_align(chars[1]) {
            parsed.fill = Some(chars[0]);
            parsed.align = Some(chars[1]);
            at = 2;
        } else if chars.first().copied().is_some_and(is_align) {
            parsed.align = Some(chars[0]);
            at = 1;
        }
        if let Some(&c @ ('+' | '-' | ' ')) = chars.get(at) {
            parsed.sign = Some(c);
            at += 1;
        }
        if chars.get(at) == Some(&'#') {
            parsed.alternate = true;
            at += 1;
        }
        if chars.get(at) == Some(&'0') {
            parsed.zero = true;
            at += 1;
        }
        let digits = |at: &mut usize| -> Option<usize> {
            let start = *at;
            while chars.get(*at).is_some_and(char::is_ascii_digit) {
                *at += 1;
            }
            let text: String = chars[start..*at].iter().collect();
            match text.is_empty() {
                true => Some(0),
                // A width past this is no module name: not followed.
                false => text.parse().ok().filter(|&n: &usize| n <= 1_000),
            }
        };
        parsed.width = digits(&mut at)?;
        // `,` and `_` group digits: not followed.
        if chars.get(at) == Some(&'.') {
            at += 1;
            let start = at;
            parsed.precision = Some(digits(&mut at)?);
            if at == start {
                return None;
            }
        }
        if let Some(&c) = chars.get(at) {
            parsed.kind = Some(c);
            at += 1;
        }
        (at == chars.len()).then_some(parsed)
    }
}

fn format_int(k: i64, spec: &Spec) -> Option<String> {
    if spec.precision.is_some() {
        return None;
    }
    let magnitude = k.unsigned_abs();
    let (digits, prefix) = match spec.kind {
        None | Some('d') => (magnitude.to_string(), ""),
        Some('x') => (format!("{magnitude:x}"), "0x"),
        Some('X') => (format!("{magnitude:X}"), "0X"),
        Some('o') => (format!("{magnitude:o}"), "0o"),
        Some('b') => (format!("{magnitude:b}"), "0b"),
        Some('c') if spec.sign.is_none() && !spec.alternate => {
            let c = char::from_u32(u32::try_from(k).ok()?)?;
            return pad_text(&c.to_string(), spec);
        }
        _ => return None,
    };
    let sign = match (k < 0, spec.sign) {
        (true, _) => "-",
        (false, Some('+')) => "+",
        (false, Some(' ')) => " ",
        _ => "",
    };
    let prefix = if spec.alternate { prefix } else { "" };
    let lead = format!("{sign}{prefix}");
    let length = lead.chars().count() + digits.chars().count();
    let padding = spec.width.saturating_sub(length);
    // `0` (without an explicit alignment) pads after the sign, as `=` does.
    let align = spec.align.unwrap_or(if spec.zero { '=' } else { '>' });
    let fill = spec.fill.unwrap_or(if spec.zero { '0' } else { ' ' });
    let run = |n: usize| fill.to_string().repeat(n);
    Some(match align {
        '=' => format!("{lead}{}{digits}", run(padding)),
        '<' => format!("{lead}{digits}{}", run(padding)),
        '^' => format!(
            "{}{lead}{digits}{}",
            run(padding / 2),
            run(padding - padding / 2)
        ),
        _ => format!("{}{lead}{digits}", run(padding)),
    })
}

/// A text padded to the spec's width (strings align left by default).
fn pad_text(text: &str, spec: &Spec) -> Option<String> {
    if spec.align == Some('=') {
        return None;
    }
    let padding = spec.width.saturating_sub(text.chars().count());
    let fill = spec.fill.unwrap_or(' ');
    let run = |n: usize| fill.to_string().repeat(n);
    Some(match spec.align.unwrap_or('<') {
        '>' => format!("{}{text}", run(padding)),
        '^' => format!("{}{text}{}", run(padding / 2), run(padding - padding / 2)),
        _ => format!("{text}{}", run(padding)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tensorfit_solver::Term;

    fn int(k: i64) -> GivenArg {
        GivenArg {
            name: None,
            value: Value::Int(Term::int(k)),
            text: k.to_string(),
        }
    }

    fn text(s: &str) -> GivenArg {
        GivenArg {
            name: None,
            value: Value::Str(s.to_owned()),
            text: format!("{s:?}"),
        }
    }

    fn named(name: &str, mut arg: GivenArg) -> GivenArg {
        arg.name = Some(name.to_owned());
        arg
    }

    // Each expectation is what CPython 3.11 prints for the same call.
    #[test]
    fn fields_are_numbered_automatically_by_position_or_named() {
        assert_eq!(format("unit{}", &[int(3)]).as_deref(), Some("unit3"));
        assert_eq!(
            format("{1}-{0}-{1}", &[int(1), int(2)]).as_deref(),
            Some("2-1-2")
        );
        assert_eq!(
            format("{a}/{}", &[int(7), named("a", text("x"))]).as_deref(),
            Some("x/7")
        );
        assert_eq!(format("{{}}{}", &[int(0)]).as_deref(), Some("{}0"));
        // Python's errors: too few arguments, mixed numbering, a lone `}`.
        assert_eq!(format("{} {}", &[int(1)]), None);
        assert_eq!(format("{} {0}", &[int(1)]), None);
        assert_eq!(format("a}", &[]), None);
        // An attribute or item of an argument, a nested field.
        assert_eq!(format("{0.real}", &[int(1)]), None);
        assert_eq!(format("{:{}}", &[int(1), int(3)]), None);
    }

    #[test]
    fn specs_pad_align_and_convert_integers_and_strings() {
        let cases: &[(&str, GivenArg, &str)] = &[
            ("{:02d}", int(5), "05"),
            ("{:>4}", int(42), "  42"),
            ("{:<4}|", int(42), "42  |"),
            ("{:^5}", text("ab"), " ab  "),
            ("{:*>5}", text("ab"), "***ab"),
            ("{:+d}", int(3), "+3"),
            ("{:05d}", int(-42), "-0042"),
            ("{:x}", int(255), "ff"),
            ("{:#x}", int(255), "0xff"),
            ("{:#06b}", int(5), "0b0101"),
            ("{:.2}", text("layer"), "la"),
            ("{:5}|", text("ab"), "ab   |"),
            ("{!r}", text("it's"), "\"it's\""),
            ("{!r}", text("a"), "'a'"),
            ("{:c}", int(65), "A"),
        ];
        for (template, arg, expected) in cases {
            assert_eq!(
                format(template, std::slice::from_ref(arg)).as_deref(),
                Some(*expected),
                "{template}"
            );
        }
        // A float's digits are Python's own rounding: not followed.
        let float = GivenArg {
            name: None,
            value: Value::Float(Some(0.5)),
            text: "0.5".to_owned(),
        };
        assert_eq!(format("{}", &[float]), None);
        assert_eq!(format("{:.2f}", &[int(1)]), None);
        assert_eq!(format("{:,}", &[int(1000)]), None);
    }
}
