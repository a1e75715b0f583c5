//! Compares a report with a file's expectations.

use crate::expectation::{Expectation, HoleValue, Kind};
use crate::pending::FilePending;
use crate::report::{Hole, Report};

/// Every disagreement, as a line for the failure message.
pub fn compare(
    expectations: &[Expectation],
    report: &Report,
    pending: &FilePending,
) -> Vec<String> {
    let mut problems = Vec::new();

    for expectation in expectations {
        let outcome = holds(expectation, report);
        let is_pending = pending.contains(expectation.line, &expectation.text);
        let at = format!("line {}: `{}`", expectation.line + 1, expectation.text);
        match (outcome, is_pending) {
            (Ok(()), false) | (Err(_), true) => {}
            (Ok(()), true) => {
                problems.push(format!("{at} now holds: remove it from tests/pending.txt"))
            }
            (Err(why), false) => problems.push(format!("{at} does not hold: {why}")),
        }
    }

    // Exactness: every error and warning is expected on its line.
    for diagnostic in &report.diagnostics {
        if diagnostic.severity != "error" && diagnostic.severity != "warning" {
            continue;
        }
        let expected = expectations.iter().any(|e| match &e.kind {
            Kind::Diagnostic { severity, contains } => {
                e.line == diagnostic.line
                    && *severity == diagnostic.severity
                    && contains
                        .as_ref()
                        .is_none_or(|text| contains_ignore_case(&diagnostic.message, text))
            }
            _ => false,
        });
        if !expected {
            problems.push(format!(
                "line {}: unexpected {} [{}]: {}",
                diagnostic.line + 1,
                diagnostic.severity,
                diagnostic.code,
                diagnostic.message
            ));
        }
    }
    problems
}

fn contains_ignore_case(haystack: &str, needle: &str) -> bool {
    haystack.to_lowercase().contains(&needle.to_lowercase())
}

fn without_whitespace(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

fn holds(expectation: &Expectation, report: &Report) -> Result<(), String> {
    let line = expectation.line;
    match &expectation.kind {
        Kind::Diagnostic { severity, contains } => {
            let on_line: Vec<_> = report
                .diagnostics
                .iter()
                .filter(|d| d.line == line && d.severity == *severity)
                .collect();
            match contains {
                _ if on_line.is_empty() => Err(format!("no {severity} on this line")),
                None => Ok(()),
                Some(text)
                    if on_line
                        .iter()
                        .any(|d| contains_ignore_case(&d.message, text)) =>
                {
                    Ok(())
                }
                Some(text) => Err(format!(
                    "no {severity} here mentions `{text}`; found: {}",
                    on_line
                        .iter()
                        .map(|d| d.message.as_str())
                        .collect::<Vec<_>>()
                        .join(" | ")
                )),
            }
        }
        Kind::Hint { contains } => {
            let found = report.diagnostics.iter().any(|d| {
                d.line == line
                    && (d.severity == "hint" || d.severity == "information")
                    && contains_ignore_case(&d.message, contains)
            });
            found
                .then_some(())
                .ok_or_else(|| format!("no hint mentioning `{contains}`"))
        }
        Kind::Shape { name, shape } => {
            let bindings: Vec<_> = report
                .bindings
                .iter()
                .filter(|b| b.line == line && b.name == *name)
                .collect();
            if bindings.is_empty() {
                return Err(format!("no binding `{name}` on this line"));
            }
            let wanted = without_whitespace(shape);
            if bindings
                .iter()
                .any(|b| without_whitespace(&b.shape) == wanted)
            {
                Ok(())
            } else {
                Err(format!("`{name}` has shape {}", bindings[0].shape))
            }
        }
        Kind::Holes(values) => {
            let mut holes: Vec<&Hole> = report.holes.iter().filter(|h| h.line == line).collect();
            holes.sort_by_key(|h| h.character);
            if holes.len() < values.len() {
                return Err(format!(
                    "{} holes on this line, expected {}",
                    holes.len(),
                    values.len()
                ));
            }
            for (index, (hole, wanted)) in holes.iter().zip(values).enumerate() {
                let ok = match wanted {
                    HoleValue::Exactly(v) => hole.value == Some(*v),
                    HoleValue::Any => hole.value.is_none(),
                    HoleValue::Range(min, max) => {
                        hole.value.is_none() && hole.min == Some(*min) && hole.max == *max
                    }
                };
                if !ok {
                    return Err(format!(
                        "hole {} is value={:?} min={:?} max={:?}",
                        index + 1,
                        hole.value,
                        hole.min,
                        hole.max
                    ));
                }
            }
            Ok(())
        }
        Kind::Condition { always } => {
            let found = report
                .conditions
                .iter()
                .any(|c| c.line == line && c.always == *always);
            found
                .then_some(())
                .ok_or_else(|| "no decided condition on this line".to_owned())
        }
        Kind::Annotate {
            parameter,
            annotation,
        } => {
            let migration = report
                .migrations
                .iter()
                .find(|m| m.line == line && m.parameter == *parameter);
            match migration {
                None => Err(format!("no migration for `{parameter}`")),
                Some(m) if without_whitespace(&m.annotation) == without_whitespace(annotation) => {
                    Ok(())
                }
                Some(m) => Err(format!("migration proposes {}", m.annotation)),
            }
        }
        Kind::NoStatic { parameter } => {
            let migration = report
                .migrations
                .iter()
                .find(|m| m.line == line && m.parameter == *parameter);
            match migration {
                None => Err(format!("no migration for `{parameter}`")),
                Some(m) if !m.is_static => Ok(()),
                Some(_) => Err(format!(
                    "`{parameter}` is reported to have a static annotation"
                )),
            }
        }
        Kind::Malformed(text) => Err(format!("cannot read the expectation `{text}`")),
    }
}
