//! Translation of the constraint language to Z3, confined to this module.
//!
//! The `z3` crate keeps its context in thread-local storage, so every query
//! builds and solves its formulas on the calling thread and returns plain
//! data. Opaque shapes are an integer rank and an uninterpreted function
//! from positions to dimensions (section 3.4 of the Tensors Fitting
//! Perfectly paper); positivity of dimensions is added as an axiom for every
//! position a query mentions.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use z3::ast::{Bool, Int};
use z3::{Config, Context, FuncDecl, Params, SatResult, Solver, Sort};

use crate::term::{Formula, Term, VarId};

pub(crate) enum Answer {
    Sat(HashMap<Term, i64>),
    /// Indices into the tracked facts.
    Unsat(Vec<usize>),
    Unknown,
}

#[derive(Default)]
struct Translator {
    ints: HashMap<VarId, Int>,
    ranks: HashMap<VarId, Int>,
    dims: HashMap<VarId, FuncDecl>,
    bools: HashMap<VarId, Bool>,
    dim_atoms: BTreeSet<(VarId, Term)>,
}

impl Translator {
    fn term(&mut self, term: &Term) -> Int {
        match term {
            Term::Const(c) => Int::from_i64(*c),
            Term::Var(v) => self
                .ints
                .entry(*v)
                .or_insert_with(|| Int::new_const(format!("v{v}")))
                .clone(),
            Term::Rank(s) => self.rank(*s),
            Term::Dim(s, index) => {
                self.dim_atoms.insert((*s, (**index).clone()));
                let index = self.term(index);
                let f = self.dims.entry(*s).or_insert_with(|| {
                    FuncDecl::new(format!("d{s}"), &[&Sort::int()], &Sort::int())
                });
                f.apply(&[&index])
                    .as_int()
                    .expect("dimension functions return integers")
            }
            Term::Add(parts) => {
                let parts: Vec<Int> = parts.iter().map(|p| self.term(p)).collect();
                Int::add(&parts.iter().collect::<Vec<_>>())
            }
            Term::Mul(a, b) => self.term(a) * self.term(b),
            Term::Div(a, b) => {
                let (a, b) = (self.term(a), self.term(b));
                floor_div(&a, &b)
            }
            Term::Rem(a, b) => {
                let (a, b) = (self.term(a), self.term(b));
                let q = floor_div(&a, &b);
                a - b * q
            }
            Term::Ite(c, a, b) => {
                let c = self.formula(c);
                c.ite(&self.term(a), &self.term(b))
            }
        }
    }

    fn rank(&mut self, s: VarId) -> Int {
        self.ranks
            .entry(s)
            .or_insert_with(|| Int::new_const(format!("r{s}")))
            .clone()
    }

    fn formula(&mut self, formula: &Formula) -> Bool {
        match formula {
            Formula::Const(v) => Bool::from_bool(*v),
            Formula::Var(v) => self
                .bools
                .entry(*v)
                .or_insert_with(|| Bool::new_const(format!("b{v}")))
                .clone(),
            Formula::IsZero(t) => self.term(t).eq(Int::from_i64(0)),
            Formula::NonPositive(t) => self.term(t).le(Int::from_i64(0)),
            Formula::Not(inner) => self.formula(inner).not(),
            Formula::And(parts) => {
                let parts: Vec<Bool> = parts.iter().map(|p| self.formula(p)).collect();
                Bool::and(&parts.iter().collect::<Vec<_>>())
            }
            Formula::Or(parts) => {
                let parts: Vec<Bool> = parts.iter().map(|p| self.formula(p)).collect();
                Bool::or(&parts.iter().collect::<Vec<_>>())
            }
        }
    }

    /// Ranks are non-negative; a dimension inside its rank is positive.
    fn axioms(&mut self) -> Vec<Bool> {
        let mut axioms = Vec::new();
        let shapes: BTreeSet<VarId> = self.ranks.keys().chain(self.dims.keys()).copied().collect();
        for s in shapes {
            axioms.push(self.rank(s).ge(Int::from_i64(0)));
        }
        let atoms: Vec<(VarId, Term)> = self.dim_atoms.iter().cloned().collect();
        for (s, index) in atoms {
            let position = self.term(&index);
            let rank = self.rank(s);
            let value = self.term(&Term::dim(s, index));
            let inside = position.ge(Int::from_i64(0)) & position.lt(&rank);
            axioms.push(inside.implies(value.ge(Int::from_i64(1))));
        }
        axioms
    }
}

/// Floor division: Z3's `div` is Euclidean, which differs for negative divisors.
fn floor_div(a: &Int, b: &Int) -> Int {
    let zero = Int::from_i64(0);
    b.gt(&zero).ite(&(a / b), &(-a.clone() / -b.clone()))
}

/// Checks `tracked` facts (reported in a core) together with `untracked`
/// ones; on `Sat`, the values of `wanted` terms in one model.
pub(crate) fn solve(
    tracked: &[&Formula],
    untracked: &[Formula],
    wanted: &[Term],
    timeout_ms: u32,
) -> Answer {
    in_scope_context(|| solve_in_context(tracked, untracked, wanted, timeout_ms))
}

fn solve_in_context(
    tracked: &[&Formula],
    untracked: &[Formula],
    wanted: &[Term],
    timeout_ms: u32,
) -> Answer {
    let solver = Solver::new();
    let mut params = Params::new();
    params.set_u32("timeout", timeout_ms);
    solver.set_params(&params);
    let mut translator = Translator::default();
    let mut literals = Vec::with_capacity(tracked.len());
    for (i, formula) in tracked.iter().enumerate() {
        let literal = Bool::new_const(format!("track{i}"));
        let encoded = translator.formula(formula);
        solver.assert(literal.implies(&encoded));
        literals.push(literal);
    }
    for formula in untracked {
        let encoded = translator.formula(formula);
        solver.assert(&encoded);
    }
    let wanted_ints: Vec<Int> = wanted.iter().map(|t| translator.term(t)).collect();
    for axiom in translator.axioms() {
        solver.assert(&axiom);
    }
    match solver.check_assumptions(&literals) {
        SatResult::Sat => {
            let Some(model) = solver.get_model() else {
                return Answer::Unknown;
            };
            let mut values = HashMap::new();
            for (term, int) in wanted.iter().zip(&wanted_ints) {
                if let Some(value) = model.eval(int, true).and_then(|v| v.as_i64()) {
                    values.insert(term.clone(), value);
                }
            }
            Answer::Sat(values)
        }
        SatResult::Unsat => {
            let core = solver.get_unsat_core();
            let indices = literals
                .iter()
                .enumerate()
                .filter(|(_, l)| core.contains(l))
                .map(|(i, _)| i)
                .collect();
            Answer::Unsat(indices)
        }
        SatResult::Unknown => Answer::Unknown,
    }
}

/// Runs `work` so that the Z3 queries it makes use a context of their own,
/// made when its first query reaches Z3 (most analyses never do), and can
/// be interrupted through `interrupts`. `Err` when they were: the work's
/// result then holds unknowns it would not otherwise, and is to be thrown
/// away.
///
/// Z3 numbers terms in the order a context first sees them, and its search
/// (so the model it finds and the core it reports) follows those numbers.
/// In one context per thread, an answer would depend on the queries that
/// ran before it on that thread: an incremental check and a check from
/// scratch could give different example values. A context per unit of work
/// (one function's analysis) makes its answers depend on that work alone.
/// Making a context costs about half a millisecond, too much to make one
/// per query or per unit of work that does not need one.
pub(crate) fn in_own_context<R>(
    interrupts: &Arc<Interrupts>,
    work: impl FnOnce() -> R,
) -> Result<R, Interrupted> {
    SCOPES.with(|s| {
        s.borrow_mut().push(Scope {
            context: None,
            interrupts: interrupts.clone(),
            interrupted: false,
        })
    });
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
    let scope = SCOPES.with(|s| s.borrow_mut().pop());
    match outcome {
        Ok(_) if scope.is_some_and(|s| s.interrupted) => Err(Interrupted),
        Ok(result) => Ok(result),
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

struct Scope {
    /// `None` until the unit makes its first Z3 query.
    context: Option<Context>,
    interrupts: Arc<Interrupts>,
    interrupted: bool,
}

thread_local! {
    /// The units of work running on this thread, innermost last.
    static SCOPES: RefCell<Vec<Scope>> = const { RefCell::new(Vec::new()) };
}

/// `with_z3_config` and `with_z3_context` ask for `Send + Sync` so that Z3
/// objects cannot be moved to another context's thread. Here the closure
/// runs on this thread before they return, and the only things crossing
/// are plain data and the context handle itself, kept on this thread.
struct OnThisThread<T>(T);
unsafe impl<T> Send for OnThisThread<T> {}
unsafe impl<T> Sync for OnThisThread<T> {}

/// Runs `query` in the innermost unit of work's context (made now if this
/// is its first query), or in the thread's context outside any. A query of
/// a stopped group, or of a unit already interrupted, is not run.
fn in_scope_context(query: impl FnOnce() -> Answer) -> Answer {
    let scope = SCOPES.with(|s| {
        let mut scopes = s.borrow_mut();
        let scope = scopes.last_mut()?;
        let context = scope.context.get_or_insert_with(|| {
            z3::with_z3_config(&Config::new(), || OnThisThread(Context::thread_local())).0
        });
        Some((context.clone(), scope.interrupts.clone(), scope.interrupted))
    });
    let Some((context, interrupts, interrupted)) = scope else {
        return query();
    };
    let mark_interrupted = || {
        SCOPES.with(|s| {
            if let Some(scope) = s.borrow_mut().last_mut() {
                scope.interrupted = true;
            }
        })
    };
    if interrupted {
        return Answer::Unknown;
    }
    let Some(token) = interrupts.register(context.get_z3_context()) else {
        mark_interrupted();
        return Answer::Unknown;
    };
    let query = OnThisThread(query);
    let answer = z3::with_z3_context(&context, move || {
        let query = query;
        OnThisThread((query.0)())
    })
    .0;
    if interrupts.deregister(token) {
        mark_interrupted();
        return Answer::Unknown;
    }
    answer
}

/// The Z3 queries of a group of units of work (one database and its
/// snapshots), which a writer stops before it waits for them to finish.
#[derive(Default)]
pub struct Interrupts {
    state: Mutex<InterruptState>,
}

#[derive(Default)]
struct InterruptState {
    stopped: bool,
    next_token: u64,
    /// The running queries' contexts (as addresses: the pointers are only
    /// used under the lock, while their queries run).
    running: Vec<(u64, usize)>,
}

/// The work was interrupted (see [`Interrupts::stop`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interrupted;

impl Interrupts {
    /// Interrupts the group's running queries and answers every new one
    /// with unknown (marking its unit interrupted) until [`Self::resume`].
    pub fn stop(&self) {
        let mut state = self.lock();
        state.stopped = true;
        for (_, context) in &state.running {
            // Safety: a context stays registered only while its query runs
            // (the unit holds it alive), and deregistering takes this lock.
            if let Some(context) = std::ptr::NonNull::new(*context as *mut z3_sys::_Z3_context) {
                unsafe { z3_sys::Z3_interrupt(context) };
            }
        }
    }

    pub fn resume(&self) {
        self.lock().stopped = false;
    }

    fn register(&self, context: z3_sys::Z3_context) -> Option<u64> {
        let mut state = self.lock();
        if state.stopped {
            return None;
        }
        let token = state.next_token;
        state.next_token += 1;
        state.running.push((token, context.as_ptr() as usize));
        Some(token)
    }

    /// Whether the query may have been interrupted.
    fn deregister(&self, token: u64) -> bool {
        let mut state = self.lock();
        state.running.retain(|(t, _)| *t != token);
        state.stopped
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, InterruptState> {
        // The state stays consistent under a panic: every update is one step.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}
