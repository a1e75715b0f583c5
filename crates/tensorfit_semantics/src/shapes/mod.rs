//! Shape analysis: symbolic execution of every entry point into facts,
//! checked with the solver (LANGUAGE.md §5).

mod analysis;
mod check;
mod conditions;
mod describe;
mod display;
mod exec;
mod fact;
mod holes;
mod migration;
mod program;
mod rules;
mod shown;
mod substitution;
mod value;
mod vars;

use tensorfit_base::{Diagnostic, TextRange};
use tensorfit_solver::Limits;
use tensorfit_syntax::ast;

use crate::module_scope::ResolvedImport;

pub use conditions::DecidedCondition;
pub use holes::HoleSolution;
pub use migration::{Migration, Requirement};

/// The shape of a binding or an expression, as hover and the JSON report
/// show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeInfo {
    /// The bound name; `None` for an expression.
    pub name: Option<String>,
    pub range: TextRange,
    /// `Struct.method`, a function name, or `None` for the script body.
    pub function: Option<String>,
    /// The shape that holds for every call (and every path reaching here).
    pub shape: String,
    /// The concrete shapes at the calls whose arguments fix them.
    pub at_calls: Vec<CallShape>,
}

/// A shape fixed by a call: `calls` leads from the outermost call (in the
/// entry point that makes it) to the call of the function itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallShape {
    pub calls: Vec<TextRange>,
    pub shape: String,
}

#[derive(Clone, Debug, Default)]
pub struct ShapeReport {
    pub diagnostics: Vec<Diagnostic>,
    pub findings: ShapeFindings,
}

/// What the shape check finds besides diagnostics: the data hover, the
/// JSON report and the fixes are made of.
#[derive(Clone, Debug, Default)]
pub struct ShapeFindings {
    /// Parameters, `let`s and assignments, in source order.
    pub bindings: Vec<ShapeInfo>,
    /// Every tensor-valued expression, in source order.
    pub expressions: Vec<ShapeInfo>,
    /// Every `__` of the file, in source order.
    pub holes: Vec<HoleSolution>,
    /// Branch conditions on shapes with one possible outcome.
    pub conditions: Vec<DecidedCondition>,
    /// One per parameter written with `?` or as a bare `Tensor`.
    pub migrations: Vec<Migration>,
}

/// What a shape check computes beyond errors and shapes.
#[derive(Clone, Copy, Debug)]
pub struct ShapeOptions {
    pub limits: Limits,
    /// Solve holes, migrations and decided conditions (LANGUAGE.md §9).
    pub questions: bool,
}

/// Checks every function, method and the script body of a file.
pub fn check_shapes(
    file: &ast::SourceFile,
    imports: &[ResolvedImport],
    options: ShapeOptions,
) -> ShapeReport {
    let program = program::Program::new(file, imports);
    let analysis = analysis::Analysis::new(program, options.limits, options.questions);
    for entry in program::Program::local_entry_points(file) {
        analysis.summary(entry);
    }
    analysis.check_script(&file.script);
    let deadline = std::time::Instant::now() + check::entry_budget(&analysis);
    let holes = if options.questions {
        holes::solve(
            &analysis,
            &file.holes,
            &analysis.hole_paths.borrow(),
            &analysis.set_aside_places.borrow(),
            deadline,
        )
    } else {
        Vec::new()
    };
    let migrations = analysis.migrations.take();
    let entries = analysis.reports.into_inner();
    let mut diagnostics = Vec::new();
    let mut findings = ShapeFindings {
        holes,
        migrations,
        ..ShapeFindings::default()
    };
    let mut at_calls: Vec<(TextRange, Option<String>, CallShape)> = Vec::new();
    for entry in entries {
        diagnostics.extend(entry.diagnostics);
        for decided in entry.conditions {
            diagnostics.push(decided_hint(&decided));
            findings.conditions.push(decided);
        }
        for shown in entry.shapes {
            let shape = shown::format(&shown.dims);
            if !shown.calls.is_empty() {
                let call = CallShape {
                    calls: shown.calls,
                    shape,
                };
                at_calls.push((shown.range, shown.name, call));
                continue;
            }
            let info = ShapeInfo {
                name: shown.name,
                range: shown.range,
                function: entry.function.clone(),
                shape,
                at_calls: Vec::new(),
            };
            if info.name.is_some() {
                findings.bindings.push(info);
            } else {
                findings.expressions.push(info);
            }
        }
    }
    for (range, name, call) in at_calls {
        let list = if name.is_some() {
            &mut findings.bindings
        } else {
            &mut findings.expressions
        };
        if let Some(info) = list.iter_mut().find(|i| i.range == range && i.name == name) {
            if !info.at_calls.contains(&call) {
                info.at_calls.push(call);
            }
        }
    }
    diagnostics.sort_by_key(|d| (d.range.start, d.range.end));
    diagnostics.dedup_by(|a, b| a.range == b.range && a.message == b.message);
    findings.bindings.sort_by_key(|b| b.range.start);
    findings.conditions.sort_by_key(|c| c.range);
    findings.migrations.sort_by_key(|m| m.range);
    findings
        .expressions
        .sort_by_key(|e| (e.range.start, std::cmp::Reverse(e.range.end)));
    ShapeReport {
        diagnostics,
        findings,
    }
}

fn decided_hint(decided: &DecidedCondition) -> Diagnostic {
    let outcome = if decided.always { "true" } else { "false" };
    let consequence = match (decided.always, decided.dead_branch.is_some()) {
        (true, true) => ": the `else` branch never runs",
        (true, false) => "",
        (false, true) if decided.live_branch.is_some() => ": the `if` branch never runs",
        (false, _) => ": the `if` never runs its body",
    };
    let mut hint = Diagnostic::new(
        tensorfit_base::Code::DecidedCondition,
        decided.range,
        format!("this condition is always {outcome}{consequence}"),
    );
    if let Some(dead) = decided.dead_branch {
        hint = hint.with_related(dead, "this branch never runs");
    }
    hint
}
