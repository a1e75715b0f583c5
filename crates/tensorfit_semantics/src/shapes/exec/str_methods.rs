//! The methods of a known `str` (Python's "String Methods"): configuration
//! code picks builders and names modules with them
//! (`arch.startswith("efficientnet_b")`, `"unit{}".format(i + 1)`,
//! `"_".join(parts)`, `name.split(".")[-1]`).
//!
//! Each result is Python's where the receiver and arguments are known
//! strings and integers; anything else, or a call Python refuses, is
//! unknown. Methods whose meaning depends on Unicode tables Python and Rust
//! may not share (`isdigit`, `title`, ...) are computed for ASCII text only.

use tensorfit_solver::{Formula, Term};

use crate::shapes::value::{GivenArg, Value};

use super::str_format;

/// `text.method(*args)`.
pub(super) fn call(text: &str, method: &str, args: &[GivenArg]) -> Value {
    let positional: Vec<&Value> = args
        .iter()
        .filter(|a| a.name.is_none())
        .map(|a| &a.value)
        .collect();
    if method == "format" {
        return str_format::format(text, args).map_or(Value::Unknown, Value::Str);
    }
    // Only `format` and `split`'s own keywords are followed.
    let keyword = |name: &str| {
        args.iter()
            .find(|a| a.name.as_deref() == Some(name))
            .map(|a| &a.value)
    };
    if args.iter().any(|a| {
        a.name
            .as_deref()
            .is_some_and(|n| !matches!(n, "sep" | "maxsplit"))
    }) {
        return Value::Unknown;
    }
    let result = match method {
        "split" | "rsplit" => {
            let sep = keyword("sep").or(positional.first().copied());
            let maxsplit = keyword("maxsplit").or(positional.get(1).copied());
            split(text, sep, maxsplit, method == "rsplit")
        }
        _ if !args.iter().all(|a| a.name.is_none()) => None,
        _ => plain_method(text, method, &positional),
    };
    result.unwrap_or(Value::Unknown)
}

fn plain_method(text: &str, method: &str, args: &[&Value]) -> Option<Value> {
    let string = |s: String| Some(Value::Str(s));
    let truth = |b: bool| Some(Value::Bool(Formula::Const(b)));
    let number = |k: usize| Some(Value::Int(Term::int(k as i64)));
    let ascii = text.is_ascii();
    match (method, args) {
        ("startswith" | "endswith", [affixes]) => {
            let affixes = strings_of(affixes)?;
            let found = affixes.iter().any(|a| match method {
                "startswith" => text.starts_with(a.as_str()),
                _ => text.ends_with(a.as_str()),
            });
            truth(found)
        }
        ("lower", []) => string(text.to_lowercase()),
        ("upper", []) => string(text.to_uppercase()),
        ("casefold", []) if ascii => string(text.to_ascii_lowercase()),
        ("swapcase", []) if ascii => string(
            text.chars()
                .map(|c| match c.is_ascii_uppercase() {
                    true => c.to_ascii_lowercase(),
                    false => c.to_ascii_uppercase(),
                })
                .collect(),
        ),
        ("capitalize", []) if ascii => {
            let mut chars = text.chars();
            let first = chars.next().map(|c| c.to_ascii_uppercase());
            string(
                first
                    .into_iter()
                    .chain(chars.map(|c| c.to_ascii_lowercase()))
                    .collect(),
            )
        }
        ("title", []) if ascii => string(title(text)),
        ("strip" | "lstrip" | "rstrip", []) => string(stripped(text, method, None).to_owned()),
        ("strip" | "lstrip" | "rstrip", [Value::None]) => {
            string(stripped(text, method, None).to_owned())
        }
        ("strip" | "lstrip" | "rstrip", [Value::Str(chars)]) => {
            string(stripped(text, method, Some(chars)).to_owned())
        }
        ("removeprefix", [Value::Str(p)]) => {
            string(text.strip_prefix(p.as_str()).unwrap_or(text).to_owned())
        }
        ("removesuffix", [Value::Str(s)]) => {
            string(text.strip_suffix(s.as_str()).unwrap_or(text).to_owned())
        }
        ("replace", [Value::Str(old), Value::Str(new)]) => string(replaced(text, old, new, None)),
        ("replace", [Value::Str(old), Value::Str(new), count]) => {
            let count = integer(count)?;
            // A negative count replaces every occurrence.
            let count = usize::try_from(count).ok();
            string(replaced(text, old, new, count))
        }
        ("join", [items]) => {
            let parts = strings_of_sequence(items)?;
            string(parts.join(text))
        }
        ("count", [Value::Str(part)]) => number(count(text, part)),
        ("find" | "index", [Value::Str(part)]) => match text.find(part.as_str()) {
            Some(at) => number(text[..at].chars().count()),
            // `index` raises where `find` gives -1.
            None if method == "find" => Some(Value::Int(Term::int(-1))),
            None => None,
        },
        ("rfind" | "rindex", [Value::Str(part)]) => match text.rfind(part.as_str()) {
            Some(at) => number(text[..at].chars().count()),
            None if method == "rfind" => Some(Value::Int(Term::int(-1))),
            None => None,
        },
        ("partition" | "rpartition", [Value::Str(sep)]) if !sep.is_empty() => {
            let found = match method {
                "partition" => text.find(sep.as_str()),
                _ => text.rfind(sep.as_str()),
            };
            let parts = match (found, method) {
                (Some(at), _) => [&text[..at], sep.as_str(), &text[at + sep.len()..]],
                (None, "partition") => [text, "", ""],
                (None, _) => ["", "", text],
            };
            Some(Value::Tuple(
                parts.iter().map(|p| Value::Str((*p).to_owned())).collect(),
            ))
        }
        ("zfill", [width]) => string(zero_filled(text, integer(width)?)),
        ("ljust" | "rjust" | "center", [width]) => {
            string(justified(text, method, integer(width)?, ' ')?)
        }
        ("ljust" | "rjust" | "center", [width, Value::Str(fill)]) => {
            let mut chars = fill.chars();
            let (Some(fill), None) = (chars.next(), chars.next()) else {
                return None;
            };
            string(justified(text, method, integer(width)?, fill)?)
        }
        ("splitlines", []) => Some(Value::List(
            text.lines().map(|l| Value::Str(l.to_owned())).collect(),
        )),
        ("isdigit" | "isdecimal" | "isnumeric", []) if ascii => {
            truth(!text.is_empty() && text.chars().all(|c| c.is_ascii_digit()))
        }
        ("isalpha", []) if ascii => {
            truth(!text.is_empty() && text.chars().all(|c| c.is_ascii_alphabetic()))
        }
        ("isalnum", []) if ascii => {
            truth(!text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric()))
        }
        ("isspace", []) if ascii => {
            truth(!text.is_empty() && text.chars().all(|c| c.is_ascii_whitespace()))
        }
        ("islower" | "isupper", []) if ascii => {
            let cased = text.chars().any(|c| c.is_ascii_alphabetic());
            let wrong_case = text.chars().any(|c| match method {
                "islower" => c.is_ascii_uppercase(),
                _ => c.is_ascii_lowercase(),
            });
            truth(cased && !wrong_case)
        }
        ("isidentifier", []) if ascii => {
            let mut chars = text.chars();
            let first = chars
                .next()
                .is_some_and(|c| c == '_' || c.is_ascii_alphabetic());
            truth(first && chars.all(|c| c == '_' || c.is_ascii_alphanumeric()))
        }
        _ => None,
    }
}

/// `str.split` and `str.rsplit`: by runs of whitespace without a
/// separator (leading and trailing ones dropped), by each occurrence of it
/// otherwise; at most `maxsplit` splits where one is given and not -1.
fn split(
    text: &str,
    sep: Option<&Value>,
    maxsplit: Option<&Value>,
    from_right: bool,
) -> Option<Value> {
    let limit = match maxsplit {
        None => None,
        Some(value) => usize::try_from(integer(value)?).ok(),
    };
    let parts: Vec<String> = match sep {
        None | Some(Value::None) => whitespace_split(text, limit, from_right),
        // An empty separator is Python's `ValueError`.
        Some(Value::Str(sep)) if sep.is_empty() => return None,
        Some(Value::Str(sep)) => match (limit, from_right) {
            (None, _) => text.split(sep.as_str()).map(str::to_owned).collect(),
            (Some(n), false) => text
                .splitn(n + 1, sep.as_str())
                .map(str::to_owned)
                .collect(),
            (Some(n), true) => {
                let mut parts: Vec<String> = text
                    .rsplitn(n + 1, sep.as_str())
                    .map(str::to_owned)
                    .collect();
                parts.reverse();
                parts
            }
        },
        Some(_) => return None,
    };
    Some(Value::List(parts.into_iter().map(Value::Str).collect()))
}

fn whitespace_split(text: &str, limit: Option<usize>, from_right: bool) -> Vec<String> {
    let Some(limit) = limit else {
        return text.split_whitespace().map(str::to_owned).collect();
    };
    // With a limit, the rest after the last split keeps its inner
    // whitespace but loses what leads it (trails it, from the right).
    let mut parts = Vec::new();
    let mut rest = match from_right {
        false => text.trim_start(),
        true => text.trim_end(),
    };
    while parts.len() < limit && !rest.is_empty() {
        let cut = match from_right {
            false => rest.find(char::is_whitespace),
            true => rest.rfind(char::is_whitespace),
        };
        let Some(at) = cut else { break };
        let width = rest[at..].chars().next().map_or(1, char::len_utf8);
        match from_right {
            false => {
                parts.push(rest[..at].to_owned());
                rest = rest[at + width..].trim_start();
            }
            true => {
                parts.push(rest[at + width..].to_owned());
                rest = rest[..at].trim_end();
            }
        }
    }
    if !rest.is_empty() {
        parts.push(rest.to_owned());
    }
    if from_right {
        parts.reverse();
    }
    parts
}

fn stripped<'t>(text: &'t str, method: &str, chars: Option<&str>) -> &'t str {
    let strip = |c: char| match chars {
        Some(set) => set.contains(c),
        None => c.is_whitespace(),
    };
    match method {
        "lstrip" => text.trim_start_matches(strip),
        "rstrip" => text.trim_end_matches(strip),
        _ => text.trim_matches(strip),
    }
}

fn replaced(text: &str, old: &str, new: &str, count: Option<usize>) -> String {
    match count {
        None => text.replace(old, new),
        Some(n) if old.is_empty() => {
            // Python inserts `new` before each character (and at the end),
            // `n` times at most.
            let mut out = String::new();
            let mut inserted = 0;
            for c in text.chars() {
                if inserted < n {
                    out.push_str(new);
                    inserted += 1;
                }
                out.push(c);
            }
            if inserted < n {
                out.push_str(new);
            }
            out
        }
        Some(n) => text.replacen(old, new, n),
    }
}

/// Non-overlapping occurrences; an empty part occurs between every
/// character and at both ends.
fn count(text: &str, part: &str) -> usize {
    match part.is_empty() {
        true => text.chars().count() + 1,
        false => text.matches(part).count(),
    }
}

fn title(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut after_letter = false;
    for c in text.chars() {
        out.push(match after_letter {
            true => c.to_ascii_lowercase(),
            false => c.to_ascii_uppercase(),
        });
        after_letter = c.is_ascii_alphabetic();
    }
    out
}

fn zero_filled(text: &str, width: i64) -> String {
    let length = text.chars().count();
    let width = usize::try_from(width).unwrap_or(0);
    if width <= length {
        return text.to_owned();
    }
    let zeros = "0".repeat(width - length);
    match text.chars().next() {
        Some(sign @ ('+' | '-')) => format!("{sign}{zeros}{}", &text[1..]),
        _ => format!("{zeros}{text}"),
    }
}

fn justified(text: &str, method: &str, width: i64, fill: char) -> Option<String> {
    // A width past this makes no name a program uses: not followed.
    let width = usize::try_from(width).unwrap_or(0);
    if width > 10_000 {
        return None;
    }
    let padding = width.saturating_sub(text.chars().count());
    let run = |n: usize| fill.to_string().repeat(n);
    Some(match method {
        "ljust" => format!("{text}{}", run(padding)),
        "rjust" => format!("{}{text}", run(padding)),
        // Python's `center` puts the odd fill character on the left when
        // the width asked for is odd, on the right otherwise.
        _ => {
            let left = padding / 2 + (padding & width & 1);
            format!("{}{text}{}", run(left), run(padding - left))
        }
    })
}

fn integer(value: &Value) -> Option<i64> {
    match value {
        Value::Int(term) => term.as_const(),
        Value::Bool(Formula::Const(b)) => Some(i64::from(*b)),
        _ => None,
    }
}

/// A string, or a tuple of strings (`startswith(("a", "b"))`).
fn strings_of(value: &Value) -> Option<Vec<String>> {
    match value {
        Value::Str(text) => Some(vec![text.clone()]),
        Value::Tuple(items) => texts(items),
        _ => None,
    }
}

/// The strings a list or tuple of known strings holds.
fn strings_of_sequence(value: &Value) -> Option<Vec<String>> {
    match value {
        Value::List(items) | Value::Tuple(items) => texts(items),
        _ => None,
    }
}

/// The texts of items that are all known strings.
fn texts(items: &[Value]) -> Option<Vec<String>> {
    items
        .iter()
        .map(|item| match item {
            Value::Str(text) => Some(text.clone()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> Value {
        Value::Str(text.to_owned())
    }

    fn int(k: i64) -> Value {
        Value::Int(Term::int(k))
    }

    fn list(items: &[&str]) -> Value {
        Value::List(items.iter().map(|t| s(t)).collect())
    }

    fn args(values: &[Value]) -> Vec<GivenArg> {
        values.iter().cloned().map(GivenArg::positional).collect()
    }

    fn on(text: &str, method: &str, values: &[Value]) -> Value {
        call(text, method, &args(values))
    }

    // Each expectation is what CPython 3.11 gives for the same call.
    #[test]
    fn splitting_and_joining_are_pythons() {
        assert_eq!(on("a.b.c", "split", &[s(".")]), list(&["a", "b", "c"]));
        assert_eq!(on("  a  b ", "split", &[]), list(&["a", "b"]));
        assert_eq!(on("a.b.c", "split", &[s("."), int(1)]), list(&["a", "b.c"]));
        assert_eq!(
            on("a.b.c", "rsplit", &[s("."), int(1)]),
            list(&["a.b", "c"])
        );
        assert_eq!(
            on("  a b  c ", "split", &[Value::None, int(1)]),
            list(&["a", "b  c "])
        );
        assert_eq!(
            on(" a b  c  ", "rsplit", &[Value::None, int(1)]),
            list(&[" a b", "c"])
        );
        assert_eq!(on("a,,b", "split", &[s(",")]), list(&["a", "", "b"]));
        assert_eq!(on("", "split", &[]), list(&[]));
        assert_eq!(on("x", "split", &[s("")]), Value::Unknown);
        assert_eq!(on("_", "join", &[list(&["layer", "1"])]), s("layer_1"));
        assert_eq!(
            on("_", "join", &[Value::List(vec![int(1)])]),
            Value::Unknown
        );
        let keywords = vec![
            GivenArg {
                name: Some("sep".to_owned()),
                value: s("-"),
                text: String::new(),
            },
            GivenArg {
                name: Some("maxsplit".to_owned()),
                value: int(1),
                text: String::new(),
            },
        ];
        assert_eq!(call("a-b-c", "split", &keywords), list(&["a", "b-c"]));
        assert_eq!(
            on("a-b", "partition", &[s("-")]),
            Value::Tuple(vec![s("a"), s("-"), s("b")])
        );
        assert_eq!(
            on("ab", "rpartition", &[s("-")]),
            Value::Tuple(vec![s(""), s(""), s("ab")])
        );
    }

    #[test]
    fn searching_testing_and_changing_case_are_pythons() {
        let yes = Value::Bool(Formula::Const(true));
        let no = Value::Bool(Formula::Const(false));
        assert_eq!(on("resnet50", "startswith", &[s("res")]), yes);
        assert_eq!(
            on(
                "vit_b",
                "startswith",
                &[Value::Tuple(vec![s("res"), s("vit")])]
            ),
            yes
        );
        assert_eq!(on("vit_b", "endswith", &[s("_l")]), no);
        assert_eq!(on("abcabc", "find", &[s("c")]), int(2));
        assert_eq!(on("abcabc", "rfind", &[s("c")]), int(5));
        assert_eq!(on("abc", "find", &[s("z")]), int(-1));
        assert_eq!(on("abc", "index", &[s("z")]), Value::Unknown);
        assert_eq!(on("aaaa", "count", &[s("aa")]), int(2));
        assert_eq!(on("ab", "count", &[s("")]), int(3));
        assert_eq!(on("123", "isdigit", &[]), yes);
        assert_eq!(on("", "isdigit", &[]), no);
        assert_eq!(on("ab1", "isalpha", &[]), no);
        assert_eq!(on("a1!", "islower", &[]), yes);
        assert_eq!(on("1", "islower", &[]), no);
        assert_eq!(on("conv_1", "isidentifier", &[]), yes);
        assert_eq!(on("hello world", "title", &[]), s("Hello World"));
        assert_eq!(on("they're", "title", &[]), s("They'Re"));
        assert_eq!(on("hELLO", "capitalize", &[]), s("Hello"));
        assert_eq!(on("Ab", "swapcase", &[]), s("aB"));
        assert_eq!(on("ReLU", "lower", &[]), s("relu"));
    }

    #[test]
    fn trimming_replacing_and_padding_are_pythons() {
        assert_eq!(on("  x \n", "strip", &[]), s("x"));
        assert_eq!(on("xxaxx", "lstrip", &[s("x")]), s("axx"));
        assert_eq!(on("xxaxx", "rstrip", &[s("x")]), s("xxa"));
        assert_eq!(on("model.fc", "removeprefix", &[s("model.")]), s("fc"));
        assert_eq!(
            on("fc.weight", "removesuffix", &[s(".bias")]),
            s("fc.weight")
        );
        assert_eq!(on("a.b.c", "replace", &[s("."), s("_")]), s("a_b_c"));
        assert_eq!(
            on("a.b.c", "replace", &[s("."), s("_"), int(1)]),
            s("a_b.c")
        );
        assert_eq!(on("ab", "replace", &[s(""), s("-")]), s("-a-b-"));
        assert_eq!(on("ab", "replace", &[s(""), s("-"), int(2)]), s("-a-b"));
        assert_eq!(on("7", "zfill", &[int(3)]), s("007"));
        assert_eq!(on("-7", "zfill", &[int(4)]), s("-007"));
        assert_eq!(on("ab", "ljust", &[int(4), s(".")]), s("ab.."));
        assert_eq!(on("ab", "rjust", &[int(4)]), s("  ab"));
        assert_eq!(on("abc", "center", &[int(6), s("*")]), s("*abc**"));
        assert_eq!(on("ab", "center", &[int(5), s("*")]), s("**ab*"));
        assert_eq!(on("abc", "center", &[int(4), s("*")]), s("abc*"));
        assert_eq!(on("ab", "center", &[int(6), s("*")]), s("**ab**"));
        assert_eq!(on("a\nb\r\n", "splitlines", &[]), list(&["a", "b"]));
        assert_eq!(on("x", "encode", &[]), Value::Unknown);
    }
}
