//! Moving a report from placed offsets (see [`Layout`]) to text offsets.

use tensorfit_base::Diagnostic;
use tensorfit_semantics::{ShapeFindings, ShapeInfo};

use crate::layout::Layout;

/// A diagnostic, and the places it relates to, in text offsets.
pub fn diagnostic(mut diagnostic: Diagnostic, layout: &Layout) -> Diagnostic {
    diagnostic.range = layout.range_to_text(diagnostic.range);
    for related in &mut diagnostic.related {
        related.range = layout.range_to_text(related.range);
    }
    if let Some(suggestion) = &mut diagnostic.suggestion {
        suggestion.range = layout.range_to_text(suggestion.range);
    }
    diagnostic
}

/// Findings in text offsets, in text order.
pub fn findings(findings: ShapeFindings, layout: &Layout) -> ShapeFindings {
    let to_text = |r| layout.range_to_text(r);
    let ShapeFindings {
        mut bindings,
        mut expressions,
        mut holes,
        mut conditions,
        mut migrations,
        // Keyed by function, with no places.
        preconditions,
        limits,
    } = findings;
    let shape = |info: &mut ShapeInfo| {
        info.range = to_text(info.range);
        for call in &mut info.at_calls {
            for range in &mut call.calls {
                *range = to_text(*range);
            }
        }
    };
    bindings.iter_mut().for_each(shape);
    expressions.iter_mut().for_each(shape);
    for hole in &mut holes {
        hole.range = to_text(hole.range);
    }
    for condition in &mut conditions {
        condition.range = to_text(condition.range);
        condition.statement = to_text(condition.statement);
        condition.dead_branch = condition.dead_branch.map(to_text);
        condition.live_branch = condition.live_branch.map(to_text);
    }
    for migration in &mut migrations {
        migration.range = to_text(migration.range);
        migration.type_range = to_text(migration.type_range);
        for requirement in &mut migration.reason {
            requirement.at = to_text(requirement.at);
        }
    }
    // Places do not follow the text's order.
    bindings.sort_by_key(|b| b.range.start);
    expressions.sort_by_key(|e| (e.range.start, std::cmp::Reverse(e.range.end)));
    holes.sort_by_key(|h| h.range.start);
    conditions.sort_by_key(|c| c.range);
    migrations.sort_by_key(|m| m.range);
    ShapeFindings {
        bindings,
        expressions,
        holes,
        conditions,
        migrations,
        preconditions,
        limits,
    }
}
