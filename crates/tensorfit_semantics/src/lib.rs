//! The semantic model of Tensor programs.
//!
//! Today: the prelude, module scopes with imports, and the name checks of
//! LANGUAGE.md §3 (undeclared, redeclared, immutable, uninitialised, unknown
//! function, argument matching). The shape constraints build on the same
//! scopes.

mod cycles;
mod environment;
mod module_scope;
mod name_check;
mod prelude;
mod pytorch_names;
mod recursion;
pub mod registry;
pub mod resolve;
mod resolved_import;
mod script_groups;
mod shapes;
mod signature;
mod suggest;

use std::collections::BTreeSet;

use tensorfit_base::Diagnostic;
use tensorfit_syntax::ast;

pub use environment::Environment;
pub use prelude::{Prelude, PRELUDE_SOURCE, PRELUDE_VALUES};
pub use recursion::{cycle_of, CallTargets, CalleeSummary, CycleView, RecursiveGroups};
pub use resolved_import::{ImportOutcome, ResolvedImport};
pub use script_groups::independent_groups;
pub use shapes::{
    analyse_function, analyse_function_in_interface, analyse_script, assemble,
    assemble_diagnostics, assemble_findings, check_shapes, check_shapes_whole_script,
    claims_refuted_at_calls, entry_keys, file_time, CallShape, ClaimPart, DecidedCondition, Depth,
    EntryReport, FunctionOutcome, HolePath, HoleSolution, ItemIndex, LimitHit, LimitKind,
    MapRanges, Migration, Place, RangeMap, Requirement, ShapeFindings, ShapeInfo, ShapeOptions,
    ShapeReport, Summary, SummarySource, Writing,
};
pub use signature::{
    argument_names, bind, BindProblem, Binding, Parameter, Signature, SignatureParam, Source,
};

pub use tensorfit_base::Language;
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
    let environment = Environment::builtin(imports);
    let (scope, mut diagnostics) = NameScope::new(file, environment);
    diagnostics.extend(check_names_in(
        &scope,
        environment.prelude,
        file,
        names_in_errors,
    ));
    diagnostics.sort_by_key(|d| (d.range.start, d.range.end));
    diagnostics
}

/// The names every item of a file sees: its items, its imports' and the
/// prelude's. The incremental database builds it once per change of the
/// file's declarations and checks each item's body against it.
pub struct NameScope(module_scope::ModuleScope);

impl NameScope {
    /// The scope of a file, from its items (their bodies are not read),
    /// and the problems of the declarations themselves: names declared
    /// twice, imports that could not be had.
    pub fn new(
        file: &ast::SourceFile,
        environment: Environment<'_>,
    ) -> (NameScope, Vec<Diagnostic>) {
        let mut diagnostics = Vec::new();
        let module = module_scope::ModuleScope::build(file, environment, &mut diagnostics);
        diagnostics.extend(cycles::definition_cycles(file));
        (NameScope(module), diagnostics)
    }
}

/// The name checks of the items and statements of `part`, a part of a file
/// whose scope is `scope` (the script's statements must all be in one
/// part: they share their scopes). `prelude` is the one `scope` was built
/// with.
pub fn check_names_in(
    scope: &NameScope,
    prelude: &Prelude,
    part: &ast::SourceFile,
    names_in_errors: &BTreeSet<String>,
) -> Vec<Diagnostic> {
    name_check::check(&scope.0, prelude, part, names_in_errors)
}
