//! The `//~` comments of a test file (EXPECTATIONS.md).

#[derive(Clone, Debug, PartialEq)]
pub struct Expectation {
    /// 0-based, as in the JSON report.
    pub line: u32,
    /// The expectation as written, e.g. `error: 30`, for messages and the
    /// pending list.
    pub text: String,
    pub kind: Kind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// `error`, `warning` (with an optional message fragment).
    Diagnostic {
        severity: &'static str,
        contains: Option<String>,
    },
    /// `hint: TEXT`: an information or hint diagnostic.
    Hint {
        contains: String,
    },
    Shape {
        name: String,
        shape: String,
    },
    Holes(Vec<HoleValue>),
    Condition {
        always: bool,
    },
    Annotate {
        parameter: String,
        annotation: String,
    },
    NoStatic {
        parameter: String,
    },
    /// A comment this runner does not understand: always a failure.
    Malformed(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum HoleValue {
    Exactly(i64),
    /// `any`: not forced to one value.
    Any,
    /// `A..=B` or `A..` (max `None`).
    Range(i64, Option<i64>),
}

/// The comment that starts an expectation: `//~`, or `#~` in Python
/// (PYTHON.md §7).
pub fn marker_for(path: &std::path::Path) -> &'static str {
    match path.extension().is_some_and(|e| e == "py") {
        true => "#~",
        false => "//~",
    }
}

pub fn parse_file(source: &str, marker: &str) -> Vec<Expectation> {
    let mut expectations = Vec::new();
    for (line, text) in source.lines().enumerate() {
        let Some(at) = text.find(marker) else {
            continue;
        };
        for part in text[at + marker.len()..].split(" ; ") {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            expectations.push(Expectation {
                line: line as u32,
                text: part.to_owned(),
                kind: parse_one(part),
            });
        }
    }
    expectations
}

fn parse_one(text: &str) -> Kind {
    let (head, rest) = match text.split_once(':') {
        Some((head, rest)) => (head.trim(), Some(rest.trim())),
        None => (text.trim(), None),
    };
    let mut words = head.split_whitespace();
    let keyword = words.next().unwrap_or("");
    let argument = words.next();
    let malformed = || Kind::Malformed(text.to_owned());
    match (keyword, argument, rest) {
        ("error" | "warning", None, rest) => Kind::Diagnostic {
            severity: if keyword == "error" {
                "error"
            } else {
                "warning"
            },
            contains: rest.filter(|r| !r.is_empty()).map(str::to_owned),
        },
        ("hint", None, Some(contains)) => Kind::Hint {
            contains: contains.to_owned(),
        },
        ("shape", Some(name), Some(shape)) => Kind::Shape {
            name: name.to_owned(),
            shape: shape.to_owned(),
        },
        ("hole", None, Some(values)) => {
            let values: Option<Vec<HoleValue>> =
                values.split(',').map(|v| parse_hole(v.trim())).collect();
            values.map(Kind::Holes).unwrap_or_else(malformed)
        }
        ("always-true", None, None) => Kind::Condition { always: true },
        ("always-false", None, None) => Kind::Condition { always: false },
        ("annotate", Some(parameter), Some(annotation)) => Kind::Annotate {
            parameter: parameter.to_owned(),
            annotation: annotation.to_owned(),
        },
        ("no-static", Some(parameter), None) => Kind::NoStatic {
            parameter: parameter.to_owned(),
        },
        _ => malformed(),
    }
}

fn parse_hole(text: &str) -> Option<HoleValue> {
    if text == "any" {
        return Some(HoleValue::Any);
    }
    if let Some((min, max)) = text.split_once("..=") {
        return Some(HoleValue::Range(
            min.trim().parse().ok()?,
            Some(max.trim().parse().ok()?),
        ));
    }
    if let Some(min) = text.strip_suffix("..") {
        return Some(HoleValue::Range(min.trim().parse().ok()?, None));
    }
    text.parse().ok().map(HoleValue::Exactly)
}
