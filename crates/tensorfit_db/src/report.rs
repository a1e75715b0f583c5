//! What the database reports of a file, in text offsets: its diagnostics,
//! which the editor shows after every edit, and its findings (shapes,
//! holes, decided conditions, migrations), which only hover, inlay hints,
//! code actions and the command line read. They are separate queries so
//! that publishing diagnostics never waits for holes to be solved or
//! shapes to be written.

use std::collections::BTreeSet;
use std::sync::Arc;

use tensorfit_base::{Code, Diagnostic};
use tensorfit_semantics::{Environment, FunctionOutcome, LimitHit, ShapeFindings};

use tensorfit_syntax::ast;

use crate::items::{self, interface, layout};
use crate::queries::{
    decoded, entry_keys, own_checked_view, own_view, script_checks, script_groups, script_outcome,
    solving, FunctionId, ScriptGroup,
};
use crate::{relocate, Db, SourceFile};

/// Everything found in one file, in text offsets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileReport {
    /// Sorted by position.
    pub diagnostics: Vec<Diagnostic>,
    pub findings: Arc<ShapeFindings>,
}

/// The file's report: syntax, names and shapes.
#[salsa::tracked(returns(clone))]
pub fn file_report(db: &dyn Db, file: SourceFile) -> Arc<FileReport> {
    // One budget for the whole report: the diagnostics' and the
    // findings' own budgets below do not extend it.
    within_file_time(db, || {
        Arc::new(FileReport {
            diagnostics: file_diagnostics(db, file).to_vec(),
            findings: findings(db, file),
        })
    })
}

/// Runs the shape checks of a file within its time budget
/// ([`tensorfit_semantics::file_time`]): the entry points analysed inside
/// share it, and past it they leave what they did not decide unknown.
/// (An entry point computed here is kept for later requests, which is
/// what the per-query time limit already does with an undecided query.)
fn within_file_time<R>(db: &dyn Db, work: impl FnOnce() -> R) -> R {
    let limits = db.settings().options(db).limits;
    tensorfit_solver::time_cap::for_file(tensorfit_semantics::file_time(limits), work)
}

/// The file's diagnostics (syntax, names and shapes), sorted by position.
#[salsa::tracked(returns(clone))]
pub fn file_diagnostics(db: &dyn Db, file: SourceFile) -> Arc<[Diagnostic]> {
    let layout = layout(db, file);
    let mut diagnostics = items::syntax_diagnostics(db, file).clone();
    diagnostics.extend(
        items::placed_diagnostics(db, file)
            .iter()
            .chain(shape_diagnostics(db, file))
            .map(|d| relocate::diagnostic(d.clone(), layout)),
    );
    if file.language(db).is_python() {
        diagnostics.retain(|d| !is_python_type_error(d.code));
    }
    diagnostics.sort_by_key(|d| (d.range.start, d.range.end));
    diagnostics.into()
}

/// A call's arguments that do not fit its parameters: on Python a
/// `TypeError`, the Python server's to report, not a shape error (PYTHON.md
/// §6). Python's `*args` and `**kwargs` are not parameters tensorfit binds,
/// so it could not count them right anyway.
fn is_python_type_error(code: Code) -> bool {
    matches!(
        code,
        Code::WrongArgumentCount
            | Code::MissingArgument
            | Code::UnknownArgument
            | Code::DuplicateArgument
    )
}

/// The entry points' analyses, each once, in source order (the script
/// apart).
fn entries<'db>(db: &'db dyn Db, file: SourceFile) -> Vec<FunctionId<'db>> {
    let mut seen = BTreeSet::new();
    entry_keys(db, file)
        .iter()
        .filter(|key| seen.insert(key.as_str()))
        .map(|key| FunctionId::new(db, file, key.clone()))
        .collect()
}

/// The bounds the checks behind [`file_diagnostics`] reached (questions
/// asked for findings are not asked here), for the server's log.
pub fn file_limits(db: &dyn Db, file: SourceFile) -> Vec<LimitHit> {
    let mut limits: Vec<LimitHit> = entries(db, file)
        .into_iter()
        .flat_map(|id| own_checked_view(db, id).limits.iter().cloned())
        .collect();
    for group in script_groups(db, file).iter() {
        limits.extend(script_checks(db, *group).limits.iter().cloned());
    }
    limits.extend(unread_part(db, file));
    limits.sort();
    limits.dedup();
    limits
}

/// The paths of the files `file`'s analysis reads through its imports,
/// transitively: an edit of one of them may change its diagnostics.
pub fn files_read(db: &dyn Db, file: SourceFile) -> Vec<std::path::PathBuf> {
    let mut seen = BTreeSet::new();
    let mut work = vec![file];
    let mut paths = Vec::new();
    while let Some(next) = work.pop() {
        for imported in items::imports(db, next).files.iter().flatten() {
            if seen.insert(imported.path(db).clone()) {
                paths.push(imported.path(db).clone());
                work.push(*imported);
            }
        }
    }
    paths
}

/// The end of the file its parse leaves unread, as a limit reached.
fn unread_part(db: &dyn Db, file: SourceFile) -> Option<LimitHit> {
    let text = file.text(db);
    let (kind, offset) = crate::front_end::unread_from(file.language(db), text)?;
    let line = text.as_bytes()[..offset]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1;
    Some(LimitHit {
        kind,
        function: None,
        from_line: Some(line as u32),
    })
}

/// What diagnostics read of an outcome: its diagnostics and decided
/// conditions, a small part of it, so that a callee's move decodes little.
fn diagnostics_part(outcome: &FunctionOutcome) -> FunctionOutcome {
    let mut part = FunctionOutcome::default();
    part.report.diagnostics = outcome.report.diagnostics.clone();
    part.report.conditions = outcome.report.conditions.clone();
    part
}

#[salsa::tracked(returns(ref))]
fn placed_diagnostics_of(db: &dyn Db, id: FunctionId<'_>) -> FunctionOutcome {
    decoded(db, id.file(db), diagnostics_part(own_checked_view(db, id)))
}

#[salsa::tracked(returns(ref))]
fn placed_script_diagnostics<'db>(db: &'db dyn Db, group: ScriptGroup<'db>) -> FunctionOutcome {
    decoded(
        db,
        group.file(db),
        diagnostics_part(script_checks(db, group)),
    )
}

/// The shape diagnostics of every function and script group, in the
/// analysis's offsets.
#[salsa::tracked(returns(ref))]
fn shape_diagnostics(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    within_file_time(db, || {
        let mut parts: Vec<&FunctionOutcome> = entries(db, file)
            .into_iter()
            .map(|id| placed_diagnostics_of(db, id))
            .collect();
        parts.extend(
            script_groups(db, file)
                .iter()
                .map(|group| placed_script_diagnostics(db, *group)),
        );
        tensorfit_semantics::assemble_diagnostics(&parts)
    })
}

/// A function's outcome, decoded, without its summary (assembly does not
/// need it, and callers take the anchored one).
#[salsa::tracked(returns(ref))]
fn placed_outcome(db: &dyn Db, id: FunctionId<'_>) -> FunctionOutcome {
    let outcome = FunctionOutcome {
        summary: None,
        ..own_view(db, id).clone()
    };
    decoded(db, id.file(db), outcome)
}

#[salsa::tracked(returns(ref))]
fn placed_script_outcome<'db>(db: &'db dyn Db, group: ScriptGroup<'db>) -> FunctionOutcome {
    decoded(db, group.file(db), script_outcome(db, group).clone())
}

/// The findings of every function and the script, put together (holes
/// solved), in the analysis's offsets.
#[salsa::tracked(returns(ref))]
fn assembled_findings(db: &dyn Db, file: SourceFile) -> ShapeFindings {
    within_file_time(db, || assemble_findings_of(db, file))
}

fn assemble_findings_of(db: &dyn Db, file: SourceFile) -> ShapeFindings {
    let mut outcomes: Vec<&FunctionOutcome> = entries(db, file)
        .into_iter()
        .map(|id| placed_outcome(db, id))
        .collect();
    outcomes.extend(
        script_groups(db, file)
            .iter()
            .map(|group| placed_script_outcome(db, *group)),
    );
    let mut program = interface(db, file).clone();
    program.holes = items::holes(db, file).clone();
    let options = file.shape_options(db);
    let imports = &items::imports(db, file).resolved;
    let prelude = crate::prelude(db);
    solving(db, || {
        tensorfit_semantics::assemble_findings(
            &program,
            Environment::new(&prelude, imports),
            &outcomes,
            options,
        )
    })
}

/// The findings in text offsets: re-run after every edit that moves text,
/// without assembling again.
#[salsa::tracked(returns(clone))]
pub fn findings(db: &dyn Db, file: SourceFile) -> Arc<ShapeFindings> {
    let mut findings = relocate::findings(assembled_findings(db, file).clone(), layout(db, file));
    if let Some(unread) = unread_part(db, file) {
        findings.limits.push(unread);
        findings.limits.sort();
    }
    if file.language(db).is_python() {
        python_findings(db, file, &mut findings);
    }
    Arc::new(findings)
}

/// What is shown of a Python file's findings: not the temporaries the front
/// end made for destructuring nor the bindings it made without text (the
/// `var`s that carry a script's names into an `if`), and migrations in the
/// file's own style (PYTHON.md §6): jaxtyping if it imports jaxtyping, else
/// in words only.
fn python_findings(db: &dyn Db, file: SourceFile, findings: &mut ShapeFindings) {
    findings.bindings.retain(|b| {
        let temporary = b
            .name
            .as_deref()
            .is_some_and(|n| n.starts_with(tensorfit_python::TEMPORARY_PREFIX));
        !temporary && !b.range.is_empty()
    });
    // A class method's function (`Config::heads`) as Python names it.
    let python_name = |name: &mut String| {
        if let std::borrow::Cow::Owned(spelled) = ast::python_function_name(name) {
            *name = spelled;
        }
    };
    for binding in &mut findings.bindings {
        binding.function.iter_mut().for_each(python_name);
    }
    for migration in &mut findings.migrations {
        python_name(&mut migration.function);
    }
    // A parameter whose rank neither the body nor a call fixes taught
    // nothing: in Python most such parameters are not even tensors (sizes,
    // modules, configs), and an example of rank 0 would be noise.
    findings
        .migrations
        .retain(|m| m.annotation != "Tensor" || !m.call_shapes.is_empty());
    let text = file.text(db);
    let style = items::module_context(db, file)
        .as_deref()
        .and_then(|context| tensorfit_python::annotation_style(&file.tree(db).0, text, context));
    for migration in &mut findings.migrations {
        let written = style.as_ref().is_some_and(|s| s.write(migration, text));
        if !written {
            migration.writing = None;
        }
    }
}
