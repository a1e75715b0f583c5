//! The bounds of the analysis, and how reaching one is reported.
//!
//! Every bound is counted in steps or depth, never in time, so the same
//! program gets the same answer on a loaded machine (the solver's time
//! limit is the one exception, and its watchdog the last resort). A part of
//! the program past a bound says nothing (LANGUAGE.md §5): its values are
//! unknown, which is never an error. Each hit is listed in the report
//! (`limits` in `--format json`, the server's log).

use std::cell::Cell;
use std::fmt;
use std::time::Duration;

use tensorfit_solver::{time_cap, Formula, Limits, Term};

/// How many summaries one analysis makes for the values of single calls:
/// a model has at most a few hundred distinct blocks.
pub const MAX_CALL_SUMMARIES: usize = 512;

/// A bound that an analysis reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LimitKind {
    /// Calls nested deeper than [`MAX_SUMMARY_DEPTH`] summaries.
    CallDepth,
    /// More than [`MAX_CALL_SUMMARIES`] summaries made for the values of
    /// single calls (`exec/specialise.rs`).
    CallSummaries,
    /// A function body or script took more than [`STEP_BUDGET`] steps.
    Steps,
    /// A dimension grew past [`MAX_TERM_SIZE`] nodes.
    TermSize,
    /// A rank past [`MAX_RANK`].
    Rank,
    /// A list, tuple or string that would grow past its bound
    /// (`exec/expressions.rs`).
    ContainerSize,
    /// A question (shown shapes, a migration, decided conditions, holes)
    /// past [`QUESTION_NODES`] or its time.
    Question,
    /// The time budget of the entry point ([`entry_time`]) ran out.
    Time,
    /// The time budget of the file ([`file_time`]) ran out before the
    /// entry point was done (the entry points before it took the time).
    FileTime,
    /// The file is longer than [`tensorfit_base::MAX_CHECKED_BYTES`]: its
    /// end is not read.
    FileSize,
    /// The file has more runs of lines holding only `\` than its parse
    /// leaves out (`tensorfit_python::MAX_HIDDEN_RUNS`): its end is not
    /// read.
    Continuations,
}

impl LimitKind {
    pub fn as_str(self) -> &'static str {
        match self {
            LimitKind::CallDepth => "call-depth",
            LimitKind::CallSummaries => "call-summaries",
            LimitKind::Steps => "steps",
            LimitKind::TermSize => "term-size",
            LimitKind::Rank => "rank",
            LimitKind::ContainerSize => "container-size",
            LimitKind::Question => "question",
            LimitKind::Time => "time",
            LimitKind::FileTime => "file-time",
            LimitKind::FileSize => "file-size",
            LimitKind::Continuations => "continuations",
        }
    }

    /// What was left unchecked, for people.
    pub fn explain(self) -> String {
        match self {
            LimitKind::CallDepth => format!(
                "calls nested more than {MAX_SUMMARY_DEPTH} deep: the results of the deeper calls are unknown"
            ),
            LimitKind::CallSummaries => format!(
                "more than {MAX_CALL_SUMMARIES} functions summarised for the values of single calls: the results of further such calls are unknown"
            ),
            LimitKind::Steps => format!(
                "the analysis took more than {STEP_BUDGET} steps: the rest of this body is not checked"
            ),
            LimitKind::TermSize => format!(
                "a dimension's expression grew past {MAX_TERM_SIZE} terms: that shape is unknown"
            ),
            LimitKind::Rank => {
                format!("a rank over {MAX_RANK}: that shape is unknown")
            }
            LimitKind::ContainerSize => format!(
                "a list, tuple or string grew past {MAX_CONTAINER_ITEMS} items: that value is unknown"
            ),
            LimitKind::Question => "showing shapes, solving holes or finding a migration took more than its allowance: that answer is left out".to_owned(),
            LimitKind::Time => format!(
                "the analysis took more than {ENTRY_TIME_QUERIES} solver time-outs: what it did not decide is unknown"
            ),
            LimitKind::FileTime => format!(
                "the file's check took more than {FILE_TIME_QUERIES} solver time-outs before this was done: what it did not decide is unknown"
            ),
            LimitKind::FileSize => format!(
                "the file is longer than {} bytes: its end is not read",
                tensorfit_base::MAX_CHECKED_BYTES
            ),
            LimitKind::Continuations => "the file has more than 256 runs of lines that hold only `\\`: its end is not read".to_owned(),
        }
    }
}

impl fmt::Display for LimitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A bound reached while analysing the entry point `function` (`None`: the
/// script body).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LimitHit {
    pub kind: LimitKind,
    pub function: Option<String>,
    /// For a limit that leaves the end of the file unread, the first line
    /// not read (1-based).
    pub from_line: Option<u32>,
}

impl LimitHit {
    /// What was left unchecked, for people, with where.
    pub fn message(&self) -> String {
        match self.from_line {
            Some(line) => format!("{} (from line {line} on)", self.kind.explain()),
            None => self.kind.explain(),
        }
    }
}

/// How many summaries may be made inside one another (a call chain
/// `f0 → f1 → … → fN` summarises `f1` inside `f0`'s analysis). Chosen for
/// [`tensorfit_base::ANALYSIS_STACK_BYTES`]: under 32 KiB of stack and about 200 KiB of memory a level
/// through the incremental database, measured.
pub const MAX_SUMMARY_DEPTH: usize = 1_000;

/// Steps (expressions evaluated, facts and shapes taken over from callees)
/// one function body or the script may take: ResNet-50's largest body takes
/// a few thousand.
pub const STEP_BUDGET: u64 = 2_000_000;

/// Nodes one dimension's expression may have. Real shapes stay under a
/// hundred; a chain of operations whose dimensions depend on unknowns can
/// double them at each step.
pub const MAX_TERM_SIZE: usize = 4_000;

/// Terms one question may rewrite (see `tensorfit_solver::with_allowance`),
/// over all of its queries.
pub const QUESTION_NODES: u64 = 2_000_000;

/// The most values a list or tuple made by `+` or `*` holds (nested items
/// counted), and the most bytes of a string made by `+`: a larger one is
/// unknown, as no model's configuration needs more, and `s = s + s` would
/// double it at each step (24 steps took 5 GB).
pub const MAX_CONTAINER_ITEMS: usize = 10_000;

/// A question may take the time of this many solver time-outs.
pub const QUESTION_QUERIES: u32 = 3;

/// An entry point (its check, shown shapes and questions together) may
/// take the time of this many solver time-outs.
pub const ENTRY_TIME_QUERIES: u32 = 3;

/// A file's check (all its entry points, holes included) may take the
/// time of this many solver time-outs: the example models take a
/// fortieth of it at the default time-out.
pub const FILE_TIME_QUERIES: u32 = 4;

/// Budgets have a floor, so that a short time-out per query does not cut
/// a large file whose many queries are each quick.
const MIN_ENTRY_TIME: Duration = Duration::from_secs(1);
const MIN_FILE_TIME: Duration = Duration::from_secs(2);

fn timeouts(limits: Limits, count: u32) -> Duration {
    Duration::from_millis(u64::from(limits.timeout_ms) * u64::from(count))
}

/// The time budget of one entry point.
pub fn entry_time(limits: Limits) -> Duration {
    timeouts(limits, ENTRY_TIME_QUERIES).max(MIN_ENTRY_TIME)
}

/// The time budget of the check of one file.
pub fn file_time(limits: Limits) -> Duration {
    timeouts(limits, FILE_TIME_QUERIES).max(MIN_FILE_TIME)
}

/// Runs the analysis of an entry point within [`entry_time`]; notes which
/// budget cut it short, if one did.
pub fn within_entry_time<R>(
    limits: Limits,
    hit: impl FnOnce(LimitKind),
    work: impl FnOnce() -> R,
) -> R {
    let cuts = time_cap::cuts();
    let result = time_cap::for_entry(entry_time(limits), work);
    if time_cap::cuts() > cuts {
        // The file's deadline passed during this analysis: it, not the
        // entry point's own work, may be what cut it.
        hit(if time_cap::file_is_up() {
            LimitKind::FileTime
        } else {
            LimitKind::Time
        });
    }
    result
}

/// The largest rank a tensor may have for its dimensions to be spelt out.
/// PyTorch allows at most 64.
pub const MAX_RANK: i64 = 1_024;

/// `rank` if a shape of that rank may be spelt out dimension by dimension
/// (at most [`MAX_RANK`]): the one test of every place that turns a rank
/// into a list of dimensions. (A negative rank spells out no dimension.)
pub fn spelt_rank(rank: i64) -> Option<i64> {
    (rank <= MAX_RANK).then_some(rank)
}

thread_local! {
    static SUMMARY_DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// One level of nested summarising, left when dropped.
pub struct SummaryDepth(());

impl SummaryDepth {
    /// `None` when [`MAX_SUMMARY_DEPTH`] levels are already open on this
    /// thread.
    pub fn enter() -> Option<SummaryDepth> {
        SUMMARY_DEPTH.with(|depth| {
            if depth.get() >= MAX_SUMMARY_DEPTH {
                return None;
            }
            depth.set(depth.get() + 1);
            Some(SummaryDepth(()))
        })
    }
}

impl Drop for SummaryDepth {
    fn drop(&mut self) {
        SUMMARY_DEPTH.with(|depth| depth.set(depth.get() - 1));
    }
}

/// Nodes past which a dimension that broadcasting gives, or that a call
/// returns, is a new unknown defined by its expression rather than the
/// expression itself (chains of residual blocks would double it at each
/// step).
pub const MAX_JOINED_DIM: usize = 64;

/// Whether `term` has more than `bound` nodes.
pub fn term_over(term: &Term, bound: usize) -> bool {
    nodes_over(Node::Term(term), bound)
}

/// Whether `term` has more than [`MAX_TERM_SIZE`] nodes.
pub fn term_too_large(term: &Term) -> bool {
    nodes_over_bound(Node::Term(term))
}

/// Whether `formula` has more than [`MAX_TERM_SIZE`] nodes.
pub fn formula_too_large(formula: &Formula) -> bool {
    nodes_over_bound(Node::Formula(formula))
}

enum Node<'t> {
    Term(&'t Term),
    Formula(&'t Formula),
}

fn nodes_over_bound(root: Node<'_>) -> bool {
    nodes_over(root, MAX_TERM_SIZE)
}

fn nodes_over(root: Node<'_>, bound: usize) -> bool {
    let mut stack = vec![root];
    let mut seen = 0;
    while let Some(node) = stack.pop() {
        seen += 1;
        if seen > bound {
            return true;
        }
        match node {
            Node::Term(term) => match term {
                Term::Const(_) | Term::Var(_) | Term::Rank(_) => {}
                Term::Dim(_, index) => stack.push(Node::Term(index)),
                Term::Add(terms) => stack.extend(terms.iter().map(Node::Term)),
                Term::Mul(a, b) | Term::Div(a, b) | Term::Rem(a, b) => {
                    stack.extend([Node::Term(a), Node::Term(b)])
                }
                Term::Ite(c, a, b) => {
                    stack.extend([Node::Formula(c), Node::Term(a), Node::Term(b)])
                }
            },
            Node::Formula(formula) => match formula {
                Formula::Const(_) | Formula::Var(_) => {}
                Formula::IsZero(t) | Formula::NonPositive(t) => stack.push(Node::Term(t)),
                Formula::Not(f) => stack.push(Node::Formula(f)),
                Formula::And(fs) | Formula::Or(fs) => stack.extend(fs.iter().map(Node::Formula)),
            },
        }
    }
    false
}
