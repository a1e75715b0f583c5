//! The database's queries, from a file's text to its report.

use std::cell::RefCell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::Arc;

use tensorfit_base::{Code, Diagnostic, LineIndex, TextRange};
use tensorfit_semantics::{
    CallTargets, CalleeSummary, ClaimPart, CycleView, Depth, Environment, FunctionOutcome,
    ItemIndex, LimitKind, Summary, SummarySource,
};
use tensorfit_syntax::{ast, Parse};

use crate::anchors::{self, Anchored};
use crate::items::{self, interface, layout, script};
use crate::layout::Places;
use crate::{Db, SourceFile};

/// The file's syntax tree in text offsets, and its syntax diagnostics.
#[salsa::tracked(returns(ref))]
pub fn parse(db: &dyn Db, file: SourceFile) -> Parse {
    crate::front_end::lower_tree(file.language(db), &file.tree(db).0, file.text(db))
}

/// Lines and UTF-16 columns of the file's text, shared by every request
/// until the text changes.
#[salsa::tracked(returns(clone))]
pub fn line_index(db: &dyn Db, file: SourceFile) -> Arc<LineIndex> {
    Arc::new(LineIndex::new(file.text(db)))
}

/// Which item is placed where: unlike [`layout`], the same after typing
/// that moves text, so results decoded with it are not decoded again.
#[salsa::tracked(returns(ref))]
fn places(db: &dyn Db, file: SourceFile) -> Places {
    layout(db, file).places()
}

/// The interface's items by name, shared by every function's analysis.
#[salsa::tracked(returns(clone))]
pub fn item_index(db: &dyn Db, file: SourceFile) -> Arc<ItemIndex> {
    Arc::new(ItemIndex::new(interface(db, file)))
}

/// A function or method of a file, by key (see [`tensorfit_syntax::ItemHead`]).
#[salsa::interned(debug)]
pub struct FunctionId {
    #[returns(copy)]
    pub file: SourceFile,
    #[returns(ref)]
    pub key: String,
}

/// The function's own definition, body included, at its place.
#[salsa::tracked(returns(ref))]
pub fn function_definition(db: &dyn Db, id: FunctionId<'_>) -> Option<ast::Function> {
    items::function_in(db, id.file(db), id.key(db))
}

/// A function's body alone, for the analyses of its callers that summarise
/// it for their arguments (see `tensorfit_semantics::Summary`).
#[salsa::tracked(returns(clone))]
fn function_body(db: &dyn Db, id: FunctionId<'_>) -> Option<Arc<ast::Block>> {
    function_definition(db, id)
        .as_ref()?
        .body
        .clone()
        .map(Arc::new)
}

/// The keys [`function_outcome`] is asked for, in source order.
#[salsa::tracked(returns(ref))]
pub fn entry_keys(db: &dyn Db, file: SourceFile) -> Vec<String> {
    tensorfit_semantics::entry_keys(interface(db, file))
}

thread_local! {
    /// The functions being analysed on this thread, innermost last: a call
    /// back into one of them is recursion, whose result stays unknown.
    static IN_PROGRESS: RefCell<Vec<(SourceFile, String)>> = const { RefCell::new(Vec::new()) };
}

/// Marks a function as being analysed until dropped (also on unwinding).
struct InProgress;

impl InProgress {
    fn enter(file: SourceFile, key: &str) -> InProgress {
        IN_PROGRESS.with(|s| s.borrow_mut().push((file, key.to_owned())));
        InProgress
    }

    fn contains(file: SourceFile, key: &str) -> bool {
        IN_PROGRESS.with(|s| s.borrow().iter().any(|(f, k)| *f == file && k == key))
    }
}

impl Drop for InProgress {
    fn drop(&mut self) {
        IN_PROGRESS.with(|s| s.borrow_mut().pop());
    }
}

/// The file's functions and methods, which calls are read against.
#[salsa::tracked(returns(ref))]
fn call_targets(db: &dyn Db, file: SourceFile) -> CallTargets {
    CallTargets::new(entry_keys(db, file).iter().cloned())
}

/// The functions of its file a function's body calls (re-run on any edit
/// of the body, cheap; what depends on it is re-run only when they change).
#[salsa::tracked(returns(ref))]
fn calls_of(db: &dyn Db, id: FunctionId<'_>) -> Vec<String> {
    match function_definition(db, id) {
        Some(definition) => call_targets(db, id.file(db)).calls_in(id.key(db), definition),
        None => Vec::new(),
    }
}

/// The members of the function's cycle of calls (see
/// [`tensorfit_semantics::cycle_of`]), read from the bodies it reaches
/// alone: analysing a function of an imported file lowers no body it
/// cannot call.
#[salsa::tracked(returns(ref))]
fn cycle_of(db: &dyn Db, id: FunctionId<'_>) -> Vec<String> {
    let file = id.file(db);
    tensorfit_semantics::cycle_of(id.key(db), call_targets(db, file), &mut |key| {
        calls_of(db, FunctionId::new(db, file, key.to_owned())).clone()
    })
}

/// Summaries of a file's functions, from the database, as one analysis
/// sees them (see [`CycleView`] for those of its own cycle of calls).
struct DbSummaries<'db> {
    db: &'db dyn Db,
    file: SourceFile,
    cycle: CycleView<'db>,
}

impl SummarySource for DbSummaries<'_> {
    fn body(&self, key: &str) -> Option<Arc<ast::Block>> {
        let id = FunctionId::new(self.db, self.file, key.to_owned());
        function_body(self.db, id)
    }

    fn summary(&self, key: &str) -> Option<Arc<Summary>> {
        // The cycle decides recursion whatever the order of analysis; the
        // functions in progress on this thread catch what the cycles read
        // from the text miss (calls through struct instances).
        if InProgress::contains(self.file, key) {
            return None;
        }
        let id = FunctionId::new(self.db, self.file, key.to_owned());
        match self.cycle.callee(key) {
            CalleeSummary::Own => function_summary(self.db, id),
            CalleeSummary::Base => cycle_base_summary(self.db, id),
            CalleeSummary::Unknown => None,
        }
    }

    fn imported_summary(&self, import: usize, key: &str) -> Option<Option<Arc<Summary>>> {
        let imported = (*items::imports(self.db, self.file).files.get(import)?)?;
        let id = FunctionId::new(self.db, imported, key.to_owned());
        Some(imported_summary(self.db, id))
    }

    fn imported_body(&self, import: usize, key: &str) -> Option<Arc<ast::Block>> {
        let imported = (*items::imports(self.db, self.file).files.get(import)?)?;
        function_body(self.db, FunctionId::new(self.db, imported, key.to_owned()))
    }
}

/// The summary of a function as another file that imports it sees it:
/// without shape records, and with its anchors put back to its file's
/// placed offsets (the importing file's anchors would mistake them for its
/// own). Re-run when the function's text moves, which re-solves its
/// callers in other files; typing elsewhere in its file does not.
#[salsa::tracked(returns(clone))]
pub fn imported_summary(db: &dyn Db, id: FunctionId<'_>) -> Option<Arc<Summary>> {
    let summary = function_summary(db, id)?;
    let mut summary = Summary::clone(&summary);
    summary.records.clear();
    let file = id.file(db);
    let table = |key: &str| anchor_table(db, FunctionId::new(db, file, key.to_owned()));
    anchors::decode(&mut summary, places(db, file), &table);
    Some(Arc::new(summary))
}

/// One function analysed: its summary, diagnostics, shapes and what the
/// file-wide questions need, in placed offsets.
#[salsa::tracked(returns(ref), cycle_result = function_outcome_in_cycle)]
pub fn function_outcome(db: &dyn Db, id: FunctionId<'_>) -> FunctionOutcome {
    analyse(db, id, false, &[], Depth::Everything)
}

/// One function's checks (see [`Depth::Checks`]): its summary and
/// diagnostics without the shapes it shows, for a database that publishes
/// diagnostics first ([`crate::Settings::diagnostics_first`]).
#[salsa::tracked(returns(ref), cycle_result = function_outcome_in_cycle)]
fn function_checks_only(db: &dyn Db, id: FunctionId<'_>) -> FunctionOutcome {
    analyse(db, id, false, &[], Depth::Checks)
}

/// What diagnostics and callers read of a function: its checks alone when
/// diagnostics come first, else its whole outcome (the command line asks
/// for everything at once: analysing twice would cost it time).
pub fn function_checks<'db>(db: &'db dyn Db, id: FunctionId<'db>) -> &'db FunctionOutcome {
    match db.settings().diagnostics_first(db) {
        true => function_checks_only(db, id),
        false => function_outcome(db, id),
    }
}

/// What the function's own report is made of (its diagnostics, shapes,
/// holes and migrations): its outcome, or, when some of its claims fail at
/// calls, its analysis again without assuming them (see
/// [`tensorfit_semantics::claims_refuted_at_calls`]).
pub fn own_view<'db>(db: &'db dyn Db, id: FunctionId<'db>) -> &'db FunctionOutcome {
    if refuted_claims(db, id).is_empty() {
        function_outcome(db, id)
    } else {
        function_view(db, id)
    }
}

/// [`own_view`] as far as its diagnostics go: its checks when diagnostics
/// come first.
pub fn own_checked_view<'db>(db: &'db dyn Db, id: FunctionId<'db>) -> &'db FunctionOutcome {
    if !db.settings().diagnostics_first(db) {
        own_view(db, id)
    } else if refuted_claims(db, id).is_empty() {
        function_checks_only(db, id)
    } else {
        function_view_checks(db, id)
    }
}

#[salsa::tracked(returns(ref))]
fn function_view(db: &dyn Db, id: FunctionId<'_>) -> FunctionOutcome {
    analyse(db, id, false, refuted_claims(db, id), Depth::Everything)
}

#[salsa::tracked(returns(ref))]
fn function_view_checks(db: &dyn Db, id: FunctionId<'_>) -> FunctionOutcome {
    analyse(db, id, false, refuted_claims(db, id), Depth::Checks)
}

/// The function's claims that fail for a call made anywhere in its file,
/// in placed offsets: re-run after any edit of the file, and backdated, so
/// that the view is analysed again only when they change.
#[salsa::tracked(returns(ref))]
fn refuted_claims(db: &dyn Db, id: FunctionId<'_>) -> Vec<ClaimPart> {
    let file = id.file(db);
    let parts = refuted_claims_in(db, file);
    tensorfit_semantics::claims_refuted_at_calls(id.key(db), &parts.iter().collect::<Vec<_>>())
}

/// Every entry point's refuted claims of others (the only part of their
/// outcomes read), decoded to placed offsets.
#[salsa::tracked(returns(ref))]
fn refuted_claims_in(db: &dyn Db, file: SourceFile) -> Vec<FunctionOutcome> {
    let part = |outcome: &FunctionOutcome| FunctionOutcome {
        refuted_claims: outcome.refuted_claims.clone(),
        ..FunctionOutcome::default()
    };
    let mut parts: Vec<FunctionOutcome> = entry_keys(db, file)
        .iter()
        .map(|key| part(function_checks(db, FunctionId::new(db, file, key.clone()))))
        .collect();
    parts.extend(
        script_groups(db, file)
            .iter()
            .map(|group| part(script_checks(db, *group))),
    );
    parts
        .into_iter()
        .filter(|part| !part.refuted_claims.is_empty())
        .map(|part| decoded(db, file, part))
        .collect()
}

/// What the other functions of a cycle of calls see of one of them: its
/// summary with every call in the cycle unknown, so that none of their
/// analyses waits for another's, whichever comes first. In placed offsets,
/// not anchored: typing in it re-solves the few others of its cycle.
#[salsa::tracked(returns(clone))]
fn cycle_base_summary(db: &dyn Db, id: FunctionId<'_>) -> Option<Arc<Summary>> {
    // Only the summary is read: the checks give it.
    analyse(db, id, true, &[], Depth::Checks).summary
}

fn analyse(
    db: &dyn Db,
    id: FunctionId<'_>,
    base: bool,
    not_assumed: &[ClaimPart],
    depth: Depth,
) -> FunctionOutcome {
    let file = id.file(db);
    let key = id.key(db);
    let Some(definition) = function_definition(db, id) else {
        return FunctionOutcome::default();
    };
    db.count_function_check();
    let imports = &items::imports(db, file).resolved;
    let prelude = crate::prelude(db);
    let options = file.shape_options(db);
    let _guard = InProgress::enter(file, key);
    let source = DbSummaries {
        db,
        file,
        cycle: CycleView::of_cycle(key, cycle_of(db, id), base),
    };
    let outcome = guarded(definition.range, || {
        solving(db, || {
            tensorfit_semantics::analyse_function_in_interface(
                interface(db, file),
                item_index(db, file),
                (key, definition),
                Environment::new(&prelude, imports),
                (options, depth),
                &source,
                not_assumed,
            )
        })
    });
    again_if_starved(db, &outcome);
    outcome
}

/// An analysis cut short by its file's time budget, which other entry
/// points used up, is done again at the next revision (when that time may
/// be free, the others' results being kept), not kept for good. One cut by
/// its own budget is kept: doing it again would take as long.
fn again_if_starved(db: &dyn Db, outcome: &FunctionOutcome) {
    if outcome.limits.iter().any(|l| l.kind == LimitKind::FileTime) {
        db.report_untracked_read();
    }
}

/// Two threads analysing functions that call each other: both see the
/// other as unknown (a recursive call), as one thread would.
fn function_outcome_in_cycle(
    _db: &dyn Db,
    _id: salsa::Id,
    _function: FunctionId<'_>,
) -> FunctionOutcome {
    FunctionOutcome::default()
}

/// The function's summary with its own offsets anchored (see
/// [`anchors`]), and the anchor table.
#[salsa::tracked(returns(ref))]
fn summary_anchoring(db: &dyn Db, id: FunctionId<'_>) -> Anchored {
    let own = function_definition(db, id)
        .as_ref()
        .map_or(TextRange::empty(0), |f| f.range);
    anchors::anchor(function_checks(db, id).summary.clone(), own)
}

/// What callers of the function need. Its own equality is what keeps an
/// edit that leaves the summary unchanged from re-solving the callers; as
/// it holds anchors rather than offsets, typing that only moves the
/// function's text leaves it unchanged.
#[salsa::tracked(returns(clone))]
pub fn function_summary(db: &dyn Db, id: FunctionId<'_>) -> Option<Arc<Summary>> {
    summary_anchoring(db, id).summary.clone()
}

/// Where the anchors of the function's summary point in this revision.
#[salsa::tracked(returns(clone))]
fn anchor_table(db: &dyn Db, id: FunctionId<'_>) -> Arc<[u32]> {
    summary_anchoring(db, id).offsets.clone()
}

/// A function's or the script's outcome, or a part of it, with the
/// anchors its callees' summaries brought put back to placed offsets. The
/// queries that call it re-run when a callee moves, without re-solving
/// anything.
pub(crate) fn decoded(
    db: &dyn Db,
    file: SourceFile,
    mut outcome: FunctionOutcome,
) -> FunctionOutcome {
    let table = |key: &str| anchor_table(db, FunctionId::new(db, file, key.to_owned()));
    anchors::decode(&mut outcome, places(db, file), &table);
    outcome
}

/// Statements of a file's script that share no variable with the others
/// (see [`tensorfit_semantics::independent_groups`]), at their places.
/// Interned by value: a group whose statements and places did not change
/// is the same group, whose analysis is kept.
#[salsa::interned(debug)]
pub struct ScriptGroup {
    #[returns(copy)]
    pub file: SourceFile,
    #[returns(ref)]
    pub statements: Vec<ast::Stmt>,
}

/// The file's script in groups that are analysed apart, in source order
/// of their first statements.
#[salsa::tracked(returns(ref))]
pub fn script_groups(db: &dyn Db, file: SourceFile) -> Vec<ScriptGroup<'_>> {
    let script = script(db, file);
    tensorfit_semantics::independent_groups(script)
        .into_iter()
        .map(|group| {
            let statements: Vec<ast::Stmt> = group.iter().map(|&i| script[i].clone()).collect();
            ScriptGroup::new(db, file, statements)
        })
        .collect()
}

/// One group of the script analysed: re-run when its statements move or
/// change, or when a summary it uses changes.
#[salsa::tracked(returns(ref))]
pub fn script_outcome<'db>(db: &'db dyn Db, group: ScriptGroup<'db>) -> FunctionOutcome {
    analyse_script(db, group, Depth::Everything)
}

/// A group of the script's checks (see [`function_checks`]).
#[salsa::tracked(returns(ref))]
fn script_checks_only<'db>(db: &'db dyn Db, group: ScriptGroup<'db>) -> FunctionOutcome {
    analyse_script(db, group, Depth::Checks)
}

/// What diagnostics read of a group of the script (see [`function_checks`]).
pub fn script_checks<'db>(db: &'db dyn Db, group: ScriptGroup<'db>) -> &'db FunctionOutcome {
    match db.settings().diagnostics_first(db) {
        true => script_checks_only(db, group),
        false => script_outcome(db, group),
    }
}

fn analyse_script<'db>(db: &'db dyn Db, group: ScriptGroup<'db>, depth: Depth) -> FunctionOutcome {
    let file = group.file(db);
    let statements = group.statements(db);
    db.count_script_check();
    let imports = &items::imports(db, file).resolved;
    let prelude = crate::prelude(db);
    let options = file.shape_options(db);
    let source = DbSummaries {
        db,
        file,
        cycle: CycleView::NONE,
    };
    let start = statements.first().map_or(0, |s| s.range.start as usize);
    let outcome = guarded(TextRange::empty(start), || {
        solving(db, || {
            tensorfit_semantics::analyse_script(
                interface(db, file),
                item_index(db, file),
                statements,
                Environment::new(&prelude, imports),
                (options, depth),
                &source,
            )
        })
    });
    again_if_starved(db, &outcome);
    outcome
}

/// Runs work that may query Z3 in a Z3 context of its own (so that its
/// answers do not depend on what ran before it on this thread), where an
/// edit can interrupt it. Interrupted work has unknowns where it would have
/// answers: it is cancelled, as salsa would cancel it at its next query.
pub(crate) fn solving<R>(db: &dyn Db, work: impl FnOnce() -> R) -> R {
    match tensorfit_solver::in_own_context(db.interrupts(), work) {
        Ok(result) => result,
        Err(tensorfit_solver::Interrupted) => {
            resume_unwind(Box::new(salsa::Cancelled::PendingWrite))
        }
    }
}

/// Runs an analysis so that a defect in the engine costs the shape check of
/// one function, not the editor session; salsa's cancellation unwinds on.
fn guarded(at: TextRange, analyse: impl FnOnce() -> FunctionOutcome) -> FunctionOutcome {
    match catch_unwind(AssertUnwindSafe(analyse)) {
        Ok(outcome) => outcome,
        Err(payload) if payload.is::<salsa::Cancelled>() => resume_unwind(payload),
        Err(_) => {
            let mut outcome = FunctionOutcome::default();
            outcome.report.diagnostics.push(Diagnostic::new(
                Code::InternalError,
                TextRange::empty(at.start as usize),
                "tensorfit failed while checking the shapes here; they are not checked (please report this)",
            ));
            outcome
        }
    }
}
