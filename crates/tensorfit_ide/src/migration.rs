//! Migrations in words, with line numbers: `x.shape[1] must be 2 (line 19)
//! and 4 (line 20)`.

use tensorfit_semantics::Migration;

use crate::FileAnalysis;

/// What a migration concludes beyond the annotation the body determines:
/// a static annotation and an example of it, or why none exists.
pub fn verdict_text(analysis: &FileAnalysis, migration: &Migration) -> String {
    match (&migration.example, reason_text(analysis, migration)) {
        (Some(example), _) if migration.call_shapes.len() > 1 => format!(
            "a static annotation exists (e.g. {example}), but the calls pass {}",
            migration.call_shapes.join(" and ")
        ),
        (Some(example), _) => format!("a static annotation exists, e.g. {example}"),
        (None, Some(reason)) => format!("no static annotation: {reason}"),
        (None, None) => "whether a static annotation exists could not be determined".to_owned(),
    }
}

/// The lines a hover on the parameter adds.
pub fn hover_text(analysis: &FileAnalysis, migration: &Migration) -> String {
    let annotated = format!("can be annotated {}", migration.annotation);
    // Not knowing is not news in a hover.
    if migration.example.is_none() && migration.reason.is_empty() {
        return annotated;
    }
    format!("{annotated}; {}", verdict_text(analysis, migration))
}

/// Why a parameter has no fully static annotation; `None` when it has one
/// (or when the solver could not tell).
pub fn reason_text(analysis: &FileAnalysis, migration: &Migration) -> Option<String> {
    if migration.reason.is_empty() {
        return None;
    }
    let line = |at: tensorfit_base::TextRange| analysis.line_index.position(at.start).line + 1;
    // Requirements on the same subject read as one clause.
    let mut clauses: Vec<(Option<&str>, Vec<String>)> = Vec::new();
    for requirement in &migration.reason {
        let part = format!("{} (line {})", requirement.text, line(requirement.at));
        match requirement.subject.as_deref() {
            Some(subject) => match clauses.iter_mut().find(|(s, _)| *s == Some(subject)) {
                Some((_, parts)) => parts.push(part),
                None => clauses.push((Some(subject), vec![part])),
            },
            None => clauses.push((None, vec![part])),
        }
    }
    let text: Vec<String> = clauses
        .into_iter()
        .map(|(subject, parts)| match subject {
            Some(subject) => format!("{subject} must be {}", parts.join(" and ")),
            None => parts.join("; "),
        })
        .collect();
    Some(text.join("; "))
}
