//! The database's queries, from a file's text to its report.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::Arc;

use tensorfit_base::{Code, Diagnostic, LineIndex, TextRange};
use tensorfit_semantics::{FunctionOutcome, ItemIndex, ShapeFindings, Summary, SummarySource};
use tensorfit_syntax::{ast, Parse};

use crate::anchors::{self, Anchored};
use crate::imports::resolved_imports;
use crate::layout::{ItemSpan, Layout, Places};
use crate::{relocate, Db, SourceFile};

/// The file's syntax tree in text offsets, and its syntax diagnostics.
#[salsa::tracked(returns(ref))]
pub fn parse(db: &dyn Db, file: SourceFile) -> Parse {
    tensorfit_syntax::lower_tree(&file.tree(db).0, file.text(db))
}

/// Lines and UTF-16 columns of the file's text, shared by every request
/// until the text changes.
#[salsa::tracked(returns(clone))]
pub fn line_index(db: &dyn Db, file: SourceFile) -> Arc<LineIndex> {
    Arc::new(LineIndex::new(file.text(db)))
}

/// Where each function and method is placed (see [`Layout`]).
#[salsa::tracked(returns(ref))]
pub fn layout(db: &dyn Db, file: SourceFile) -> Layout {
    Layout::new(&item_spans(&parse(db, file).file), file.text(db).len())
}

/// Which item is placed where: unlike [`layout`], the same after typing
/// that moves text, so results decoded with it are not decoded again.
#[salsa::tracked(returns(ref))]
fn places(db: &dyn Db, file: SourceFile) -> Places {
    layout(db, file).places()
}

/// The items and methods of a file with unique keys: `f`, `S`, `S.forward`;
/// a repeated name gets `#2`, `#3` (its analysis is that of the first).
pub fn item_spans(file: &ast::SourceFile) -> Vec<ItemSpan> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut unique = |key: String| {
        let count = seen.entry(key.clone()).or_insert(0);
        *count += 1;
        match *count {
            1 => key,
            n => format!("{key}#{n}"),
        }
    };
    let name = |n: &Option<ast::Name>| n.as_ref().map_or("?", |n| n.text.as_str()).to_owned();
    let mut spans = Vec::new();
    for item in &file.items {
        let (key, range) = match item {
            ast::Item::Function(f) => (name(&f.name), f.range),
            ast::Item::Struct(s) => {
                for method in &s.methods {
                    spans.push(ItemSpan {
                        key: unique(format!("{}.{}", name(&s.name), name(&method.name))),
                        range: method.range,
                    });
                }
                (format!("struct {}", name(&s.name)), s.range)
            }
            ast::Item::Const(c) => (format!("const {}", name(&c.name)), c.range),
            ast::Item::Import(i) => (format!("import {:?}", i.path), i.range),
        };
        spans.push(ItemSpan {
            key: unique(key),
            range,
        });
    }
    spans
}

/// The file lowered with every item at its place.
#[salsa::tracked(returns(ref))]
pub fn placed_file(db: &dyn Db, file: SourceFile) -> ast::SourceFile {
    let layout = layout(db, file);
    let place = |range: TextRange| layout.place(range.start as usize);
    tensorfit_syntax::lower_placed(&file.tree(db).0, file.text(db), &place)
}

/// What an analysis may see of the file's items: everything but function
/// and method bodies (whose meaning reaches callers through summaries) and
/// the script. Equal across edits inside bodies, so that such edits do not
/// re-run other functions' analyses.
#[salsa::tracked(returns(ref))]
pub fn interface(db: &dyn Db, file: SourceFile) -> ast::SourceFile {
    let placed = placed_file(db, file);
    // The ranges that cover a body end where the body starts: typing in a
    // body changes its length, which must not change the interface.
    let strip = |f: &ast::Function| ast::Function {
        body: None,
        range: match &f.body {
            Some(body) => TextRange::new(f.range.start as usize, body.range.start as usize),
            None => f.range,
        },
        ..f.clone()
    };
    let items = placed
        .items
        .iter()
        .map(|item| match item {
            ast::Item::Function(f) => ast::Item::Function(strip(f)),
            ast::Item::Struct(s) => ast::Item::Struct(ast::Struct {
                methods: s.methods.iter().map(strip).collect(),
                range: TextRange::empty(s.range.start as usize),
                ..s.clone()
            }),
            other => other.clone(),
        })
        .collect();
    ast::SourceFile {
        items,
        script: Vec::new(),
        holes: Vec::new(),
    }
}

/// The interface's items by name, shared by every function's analysis.
#[salsa::tracked(returns(clone))]
pub fn item_index(db: &dyn Db, file: SourceFile) -> Arc<ItemIndex> {
    Arc::new(ItemIndex::new(interface(db, file)))
}

/// Where each function and method of the placed file is, by key: built
/// once per edit instead of a search per function.
#[salsa::tracked(returns(ref))]
fn function_places(db: &dyn Db, file: SourceFile) -> HashMap<String, (usize, Option<usize>)> {
    let mut places = HashMap::new();
    let name = |n: &Option<ast::Name>| n.as_ref().map(|n| n.text.clone());
    for (i, item) in placed_file(db, file).items.iter().enumerate() {
        match item {
            ast::Item::Function(f) => {
                if let Some(name) = name(&f.name) {
                    places.entry(name).or_insert((i, None));
                }
            }
            ast::Item::Struct(s) => {
                let Some(owner) = name(&s.name) else { continue };
                for (m, method) in s.methods.iter().enumerate() {
                    if let Some(method) = name(&method.name) {
                        places
                            .entry(format!("{owner}.{method}"))
                            .or_insert((i, Some(m)));
                    }
                }
            }
            _ => {}
        }
    }
    places
}

/// A function or method of a file, by key (see [`item_spans`]).
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
    let placed = placed_file(db, id.file(db));
    match *function_places(db, id.file(db)).get(id.key(db))? {
        (item, None) => match &placed.items[item] {
            ast::Item::Function(f) => Some(f.clone()),
            _ => None,
        },
        (item, Some(method)) => match &placed.items[item] {
            ast::Item::Struct(s) => Some(s.methods[method].clone()),
            _ => None,
        },
    }
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

/// Summaries of a file's functions, from the database.
struct DbSummaries<'db> {
    db: &'db dyn Db,
    file: SourceFile,
}

impl SummarySource for DbSummaries<'_> {
    fn summary(&self, key: &str) -> Option<Arc<Summary>> {
        if InProgress::contains(self.file, key) {
            return None;
        }
        function_summary(self.db, FunctionId::new(self.db, self.file, key.to_owned()))
    }
}

/// One function analysed: its summary, diagnostics, shapes and what the
/// file-wide questions need, in placed offsets.
#[salsa::tracked(returns(ref), cycle_result = function_outcome_in_cycle)]
pub fn function_outcome(db: &dyn Db, id: FunctionId<'_>) -> FunctionOutcome {
    let file = id.file(db);
    let key = id.key(db);
    let Some(definition) = function_definition(db, id) else {
        return FunctionOutcome::default();
    };
    db.count_function_check();
    let imports = resolved_imports(db, file);
    let options = db.settings().options(db);
    let _guard = InProgress::enter(file, key);
    let source = DbSummaries { db, file };
    guarded(definition.range, || {
        solving(db, || {
            tensorfit_semantics::analyse_function_in_interface(
                interface(db, file),
                item_index(db, file),
                definition,
                imports,
                key,
                options,
                &source,
            )
        })
    })
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
    anchors::anchor(function_outcome(db, id).summary.clone(), own)
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

/// A function's outcome with the anchors its callees' summaries brought
/// put back to placed offsets: re-run when a callee moves, without
/// re-solving anything. The summary is left out (assembly does not need
/// it, and callers take the anchored one).
#[salsa::tracked(returns(ref))]
fn placed_outcome(db: &dyn Db, id: FunctionId<'_>) -> FunctionOutcome {
    decoded(db, id.file(db), function_outcome(db, id))
}

#[salsa::tracked(returns(ref))]
fn placed_script_outcome(db: &dyn Db, file: SourceFile) -> FunctionOutcome {
    decoded(db, file, script_outcome(db, file))
}

fn decoded(db: &dyn Db, file: SourceFile, outcome: &FunctionOutcome) -> FunctionOutcome {
    let mut outcome = FunctionOutcome {
        summary: None,
        ..outcome.clone()
    };
    let table = |key: &str| anchor_table(db, FunctionId::new(db, file, key.to_owned()));
    anchors::decode(&mut outcome, places(db, file), &table);
    outcome
}

/// The script body (top-level statements), which keeps text offsets.
#[salsa::tracked(returns(ref))]
fn script(db: &dyn Db, file: SourceFile) -> Vec<ast::Stmt> {
    placed_file(db, file).script.clone()
}

#[salsa::tracked(returns(ref))]
pub fn script_outcome(db: &dyn Db, file: SourceFile) -> FunctionOutcome {
    let mut program = interface(db, file).clone();
    program.script = script(db, file).clone();
    let imports = resolved_imports(db, file);
    let options = db.settings().options(db);
    let source = DbSummaries { db, file };
    let start = program.script.first().map_or(0, |s| s.range.start as usize);
    guarded(TextRange::empty(start), || {
        solving(db, || {
            tensorfit_semantics::analyse_script(&program, imports, options, &source)
        })
    })
}

/// Runs work that may query Z3 in a Z3 context of its own (so that its
/// answers do not depend on what ran before it on this thread), where an
/// edit can interrupt it. Interrupted work has unknowns where it would have
/// answers: it is cancelled, as salsa would cancel it at its next query.
fn solving<R>(db: &dyn Db, work: impl FnOnce() -> R) -> R {
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

/// Everything found in one file, in text offsets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileReport {
    /// Sorted by position.
    pub diagnostics: Vec<Diagnostic>,
    pub findings: ShapeFindings,
}

/// The file's report: syntax, names and shapes.
#[salsa::tracked(returns(clone))]
pub fn file_report(db: &dyn Db, file: SourceFile) -> Arc<FileReport> {
    let parsed = parse(db, file);
    let imports = resolved_imports(db, file);
    let mut diagnostics = parsed.diagnostics.clone();
    diagnostics.extend(tensorfit_semantics::check_names(
        &parsed.file,
        imports,
        &parsed.names_in_errors,
    ));
    let shapes = shape_report(db, file);
    diagnostics.extend(shapes.diagnostics.iter().cloned());
    diagnostics.sort_by_key(|d| (d.range.start, d.range.end));
    Arc::new(FileReport {
        diagnostics,
        findings: shapes.findings.clone(),
    })
}

/// The shape findings of every function and the script, put together and
/// moved to text offsets.
#[salsa::tracked(returns(ref))]
fn shape_report(db: &dyn Db, file: SourceFile) -> tensorfit_semantics::ShapeReport {
    let keys = entry_keys(db, file);
    let mut outcomes: Vec<&FunctionOutcome> = Vec::new();
    let mut seen = BTreeSet::new();
    for key in keys {
        if seen.insert(key.as_str()) {
            outcomes.push(placed_outcome(db, FunctionId::new(db, file, key.clone())));
        }
    }
    outcomes.push(placed_script_outcome(db, file));
    let mut program = interface(db, file).clone();
    program.holes = placed_file(db, file).holes.clone();
    let options = db.settings().options(db);
    let imports = resolved_imports(db, file);
    let report = solving(db, || {
        tensorfit_semantics::assemble(&program, imports, &outcomes, options)
    });
    relocate::report(report, layout(db, file))
}
