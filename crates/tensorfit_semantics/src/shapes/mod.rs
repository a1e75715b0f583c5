//! Shape analysis: symbolic execution of every entry point into facts,
//! checked with the solver (LANGUAGE.md §5).

mod analysis;
mod check;
mod describe;
mod display;
mod exec;
mod fact;
mod program;
mod rules;
mod substitution;
mod value;
mod vars;

use tensorfit_base::{Diagnostic, TextRange};
use tensorfit_solver::Limits;
use tensorfit_syntax::ast;

use crate::module_scope::ResolvedImport;

/// The shape of a binding, as hover and the JSON report show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BindingShape {
    pub name: String,
    pub range: TextRange,
    /// `Struct.method`, a function name, or `None` for the script body.
    pub function: Option<String>,
    pub shape: String,
}

#[derive(Clone, Debug, Default)]
pub struct ShapeReport {
    pub diagnostics: Vec<Diagnostic>,
    pub bindings: Vec<BindingShape>,
}

/// Checks every function, method and the script body of a file.
pub fn check_shapes(
    file: &ast::SourceFile,
    imports: &[ResolvedImport],
    limits: Limits,
) -> ShapeReport {
    let program = program::Program::new(file, imports);
    let analysis = analysis::Analysis::new(program, limits);
    for entry in program::Program::local_entry_points(file) {
        analysis.summary(entry);
    }
    analysis.check_script(&file.script);
    let mut report = ShapeReport::default();
    for entry in analysis.reports.into_inner() {
        report.diagnostics.extend(entry.diagnostics);
        for (binding, shape) in entry.bindings {
            report.bindings.push(BindingShape {
                name: binding.name,
                range: binding.range,
                function: entry.function.clone(),
                shape,
            });
        }
    }
    report
        .diagnostics
        .sort_by_key(|d| (d.range.start, d.range.end));
    report
        .diagnostics
        .dedup_by(|a, b| a.range == b.range && a.message == b.message);
    report.bindings.sort_by_key(|b| b.range.start);
    report
}
