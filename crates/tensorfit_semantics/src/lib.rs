//! The semantic model of Tensor programs.
//!
//! Today: the prelude, module scopes with imports, and the name checks of
//! LANGUAGE.md §3 (undeclared, redeclared, immutable, uninitialised, unknown
//! function, argument matching). The shape constraints build on the same
//! scopes.

mod module_scope;
mod name_check;
mod prelude;
mod shapes;
mod signature;
mod suggest;

use std::collections::BTreeSet;

use tensorfit_base::Diagnostic;
use tensorfit_syntax::ast;

pub use module_scope::{ImportOutcome, ResolvedImport};
pub use prelude::{Prelude, PRELUDE_SOURCE, PRELUDE_VALUES};
pub use shapes::{
    analyse_function, analyse_function_in_interface, analyse_script, assemble, check_shapes,
    entry_keys, CallShape, DecidedCondition, EntryReport, FunctionOutcome, HolePath, HoleSolution,
    ItemIndex, MapRanges, Migration, Place, Requirement, ShapeFindings, ShapeInfo, ShapeOptions,
    ShapeReport, Summary, SummarySource,
};
pub use signature::{Signature, SignatureParam};
pub use tensorfit_solver::Limits;
pub use tensorfit_solver::ValueRange;

/// Runs the name checks on one file. `imports` are the file's imports as
/// resolved by the caller; `names_in_errors` are names seen inside syntax
/// errors, which are never reported as undeclared.
pub fn check_names(
    file: &ast::SourceFile,
    imports: &[ResolvedImport],
    names_in_errors: &BTreeSet<String>,
) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    let module = module_scope::ModuleScope::build(file, imports, &mut diagnostics);
    let mut checker = name_check::NameChecker::new(&module, names_in_errors);
    checker.check_file(file);
    diagnostics.append(&mut checker.diagnostics);
    diagnostics.sort_by_key(|d| (d.range.start, d.range.end));
    diagnostics
}
