//! Migrations in words, with line numbers: `x.shape[1] must be 2 (line 19)
//! and 4 (line 20)`.

use tensorfit_semantics::Migration;

use crate::FileAnalysis;

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
