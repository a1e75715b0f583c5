//! The fixes the analysis can offer, as plain text edits: fill a hole,
//! annotate a gradual parameter, remove a branch that never runs, state an
//! inferred shape as a `|->` claim, and the edit a diagnostic suggests (a
//! misspelt name, PyTorch's spelling of something). The language server turns them into
//! code actions; tests apply them to text.

use tensorfit_base::TextRange;
use tensorfit_semantics::{DecidedCondition, Migration, ValueRange};

use crate::fix::{Fix, FixKind, TextEdit};
use crate::FileAnalysis;

/// Every fix of the file: the quick fixes, then the rewrites, each by
/// position.
pub fn fixes(analysis: &FileAnalysis) -> Vec<Fix> {
    let mut fixes = Vec::new();
    for hole in &analysis.shapes().holes {
        let lazy = lazy_layer(&analysis.text, hole.range);
        let fill = |value: i64, title: String, preferred: bool| match &lazy {
            Some(lazy) => lazy.made_concrete(value, preferred),
            None => Fix {
                title,
                target: hole.range,
                edits: vec![TextEdit {
                    range: hole.range,
                    new_text: value.to_string(),
                }],
                preferred,
                kind: FixKind::QuickFix,
            },
        };
        match &hole.values {
            ValueRange::Forced(value) => {
                fixes.push(fill(*value, format!("Fill the hole with {value}"), true));
            }
            ValueRange::Range { examples, .. } => {
                for value in examples {
                    fixes.push(fill(
                        *value,
                        format!("Fill the hole with {value} (one of several values that fit)"),
                        false,
                    ));
                }
            }
            ValueRange::Empty | ValueRange::Unknown => {}
        }
    }
    for migration in &analysis.shapes().migrations {
        fixes.extend(migration_fixes(analysis, migration));
    }
    for condition in &analysis.shapes().conditions {
        fixes.push(remove_dead_branch(&analysis.text, condition));
    }
    fixes.extend(crate::claims::claim_fixes(analysis));
    for diagnostic in analysis.diagnostics() {
        if let Some(suggestion) = &diagnostic.suggestion {
            fixes.push(Fix {
                title: suggestion.title.clone(),
                target: diagnostic.range,
                edits: vec![TextEdit {
                    range: suggestion.range,
                    new_text: suggestion.new_text.clone(),
                }],
                preferred: true,
                kind: FixKind::QuickFix,
            });
        }
    }
    // Repairs before rewrites: an editor lists them in this order.
    fixes.sort_by_key(|f| (f.kind != FixKind::QuickFix, f.target.start));
    fixes
}

/// A Python `Lazy*` layer, whose inferred size is a hole with no text just
/// after the call's `(` (the Python front end's `lazy_layer`).
struct LazyLayer {
    /// `LazyLinear` in `nn.LazyLinear(10)`.
    name: TextRange,
    concrete: String,
    hole: TextRange,
    /// More arguments follow the hole.
    followed: bool,
}

fn lazy_layer(text: &str, hole: TextRange) -> Option<LazyLayer> {
    if !hole.is_empty() {
        return None;
    }
    let at = hole.start as usize;
    let before = text.get(..at)?.strip_suffix('(')?.trim_end();
    let start = before
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    let name = &before[start..];
    let concrete = name.strip_prefix("Lazy")?.to_owned();
    let followed = !text[at..].trim_start().starts_with(')');
    Some(LazyLayer {
        name: TextRange::new(start, before.len()),
        concrete,
        hole,
        followed,
    })
}

impl LazyLayer {
    /// `nn.LazyLinear(10)` → `nn.Linear(320, 10)`.
    fn made_concrete(&self, value: i64, preferred: bool) -> Fix {
        let separator = if self.followed { ", " } else { "" };
        let more = if self.followed { ", …" } else { "" };
        Fix {
            title: format!("Replace `Lazy{0}` with `{0}({value}{more})`", self.concrete),
            target: TextRange::new(self.name.start as usize, self.hole.end as usize),
            edits: vec![
                TextEdit {
                    range: self.name,
                    new_text: self.concrete.clone(),
                },
                TextEdit {
                    range: self.hole,
                    new_text: format!("{value}{separator}"),
                },
            ],
            preferred,
            kind: FixKind::QuickFix,
        }
    }
}

fn migration_fixes(analysis: &FileAnalysis, migration: &Migration) -> Vec<Fix> {
    // Offered in words only when the file has no way to write it.
    let Some(writing) = &migration.writing else {
        return Vec::new();
    };
    let written = &analysis.text[migration.type_range.as_usize()];
    let annotate = |annotation: &str, title: String, preferred: bool| Fix {
        title,
        target: migration.range,
        edits: std::iter::once(TextEdit {
            range: migration.type_range,
            new_text: format!("{}{annotation}", writing.lead),
        })
        .chain(writing.also.iter().map(|(range, text)| TextEdit {
            range: *range,
            new_text: text.clone(),
        }))
        .collect(),
        preferred,
        kind: FixKind::QuickFix,
    };
    let mut fixes = Vec::new();
    let determined = without_whitespace(&migration.annotation) != without_whitespace(written);
    if determined {
        fixes.push(annotate(
            &migration.annotation,
            format!(
                "Annotate `{}` as {}",
                migration.parameter, migration.annotation
            ),
            migration.example.is_none(),
        ));
    }
    if let Some(example) = migration.example_for_calls() {
        if without_whitespace(example) != without_whitespace(written) {
            fixes.push(annotate(
                example,
                format!(
                    "Annotate `{}` with the static shape {example}",
                    migration.parameter
                ),
                !determined,
            ));
        }
    }
    fixes
}

fn without_whitespace(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Replaces the `if` with the branch that always runs (its statements,
/// re-indented to the `if`'s level), or deletes it when nothing runs.
fn remove_dead_branch(text: &str, condition: &DecidedCondition) -> Fix {
    let statement = condition.statement;
    let title = match condition.dead_branch {
        Some(_) => "Remove the branch that never runs".to_owned(),
        None => "Remove the condition that is always true".to_owned(),
    };
    let edit = match condition.live_branch {
        Some(live) => TextEdit {
            range: statement,
            new_text: unwrap_branch(text, live, statement),
        },
        None => {
            // The whole `if` goes, with its line when it is alone on it.
            let line_start = text[..statement.start as usize]
                .rfind('\n')
                .map_or(0, |i| i + 1);
            let alone = text[line_start..statement.start as usize]
                .chars()
                .all(char::is_whitespace);
            let after = &text[statement.end as usize..];
            let line_end = match after.find('\n') {
                Some(i) if after[..i].trim().is_empty() => statement.end as usize + i + 1,
                _ => statement.end as usize,
            };
            let start = if alone {
                line_start
            } else {
                statement.start as usize
            };
            TextEdit {
                range: TextRange::new(start, line_end),
                new_text: String::new(),
            }
        }
    };
    Fix {
        title,
        target: condition.range,
        edits: vec![edit],
        preferred: true,
        kind: FixKind::QuickFix,
    }
}

/// The statements of a branch at the indentation of `statement`: a block's
/// inside without its braces, or an `else if` statement as it is.
fn unwrap_branch(text: &str, branch: TextRange, statement: TextRange) -> String {
    let branch_text = &text[branch.as_usize()];
    let indent: String = {
        let line_start = text[..statement.start as usize]
            .rfind('\n')
            .map_or(0, |i| i + 1);
        text[line_start..statement.start as usize]
            .chars()
            .take_while(|c| c.is_whitespace())
            .collect()
    };
    let inner = match (branch_text.strip_prefix('{'), branch_text.ends_with('}')) {
        (Some(rest), true) => &rest[..rest.len() - 1],
        _ => return branch_text.to_owned(),
    };
    let lines: Vec<&str> = inner.lines().skip_while(|l| l.trim().is_empty()).collect();
    let lines: Vec<&str> = {
        let mut lines = lines;
        while lines.last().is_some_and(|l| l.trim().is_empty()) {
            lines.pop();
        }
        lines
    };
    let common = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
            if !line.trim().is_empty() {
                out.push_str(&indent);
            }
        }
        out.push_str(line.get(common..).unwrap_or(line.trim_start()).trim_end());
    }
    out
}
