//! Z3's simple solver, which the `z3` crate does not offer.
//!
//! `z3::Solver::new()` is Z3's combined solver: on its first check it
//! builds the default strategy for whatever logic the facts fall in, a tree
//! of tactics that costs 6–9 ms to make and 1–2 ms to tear down (issue 25
//! measured it at 85 % of the Z3 time of a ResNet-50 check), against 1–5 ms
//! of solving. The simple solver is Z3's SMT kernel alone, which is what
//! the combined solver runs for queries with assumptions anyway; our
//! queries are small and mostly decided by elimination before they get
//! here, so the strategy only ever cost time.
//!
//! One solver serves every query of its context (see `crate::contexts`):
//! each query is asserted in a scope of its own ([`SimpleSolver::scope`])
//! and taken back after, so the kernel and its theories are set up once per
//! context rather than once per query.
//!
//! Formulas are built with the `z3` crate as before; only the solver is
//! driven through `z3_sys`, in the context the formulas belong to.

use z3::ast::{Ast, Bool, Int};
use z3::{Context, SatResult};
use z3_sys::*;

pub(crate) struct SimpleSolver {
    context: Context,
    raw: Z3_solver,
}

impl SimpleSolver {
    /// A new simple solver in `context`.
    pub fn new(context: &Context) -> Option<SimpleSolver> {
        let context = context.clone();
        // SAFETY: the context is alive (held by `context`); the solver's
        // reference keeps it alive until `drop` releases it.
        let raw = unsafe { Z3_mk_simple_solver(context.get_z3_context()) }?;
        unsafe { Z3_solver_inc_ref(context.get_z3_context(), raw) };
        Some(SimpleSolver { context, raw })
    }

    fn c(&self) -> Z3_context {
        self.context.get_z3_context()
    }

    /// Opens a scope: what is asserted until the guard drops is taken back
    /// then, even when the query unwinds (out of work) half-way.
    pub fn scope(&self) -> ScopeGuard<'_> {
        // SAFETY: the solver is alive; the guard pops what this pushes.
        unsafe { Z3_solver_push(self.c(), self.raw) };
        ScopeGuard { solver: self }
    }

    pub fn assert(&self, formula: &Bool) {
        // SAFETY: the formula belongs to this solver's context (both are the
        // thread's current one) and is alive for the call.
        unsafe { Z3_solver_assert(self.c(), self.raw, formula.get_z3_ast()) };
    }

    pub fn check_assumptions(&self, assumptions: &[Bool]) -> SatResult {
        let raw: Vec<Z3_ast> = assumptions.iter().map(Ast::get_z3_ast).collect();
        // SAFETY: the assumptions are alive for the call; Z3 copies them.
        let answer = unsafe {
            Z3_solver_check_assumptions(self.c(), self.raw, raw.len() as u32, raw.as_ptr())
        };
        match answer {
            Z3_L_TRUE => SatResult::Sat,
            Z3_L_FALSE => SatResult::Unsat,
            _ => SatResult::Unknown,
        }
    }

    /// The values of `terms` in the model of the last satisfiable check
    /// (completed: a term the model leaves free gets some value). `None`
    /// for a term whose value is not a 64-bit integer.
    pub fn model_values(&self, terms: &[Int]) -> Option<Vec<Option<i64>>> {
        // SAFETY: the model is referenced while it is read and released
        // after; each evaluated term is wrapped (so referenced) at once.
        unsafe {
            let model = Z3_solver_get_model(self.c(), self.raw)?;
            Z3_model_inc_ref(self.c(), model);
            let values = terms
                .iter()
                .map(|term| {
                    let mut out: Option<Z3_ast> = None;
                    let out_ptr = &mut out as *mut Option<Z3_ast> as *mut Z3_ast;
                    if !Z3_model_eval(self.c(), model, term.get_z3_ast(), true, out_ptr) {
                        return None;
                    }
                    let value = Int::wrap(&self.context, out?);
                    value.as_i64()
                })
                .collect();
            Z3_model_dec_ref(self.c(), model);
            Some(values)
        }
    }

    /// Which of `assumptions` the last unsatisfiable check's core holds,
    /// as indices.
    pub fn core_indices(&self, assumptions: &[Bool]) -> Vec<usize> {
        // SAFETY: the core vector is referenced while it is read; its
        // elements are compared by address only (Z3 shares equal terms, and
        // the assumptions themselves are alive).
        unsafe {
            let Some(core) = Z3_solver_get_unsat_core(self.c(), self.raw) else {
                return Vec::new();
            };
            Z3_ast_vector_inc_ref(self.c(), core);
            let members: Vec<Z3_ast> = (0..Z3_ast_vector_size(self.c(), core))
                .filter_map(|i| Z3_ast_vector_get(self.c(), core, i))
                .collect();
            let indices = assumptions
                .iter()
                .enumerate()
                .filter(|(_, a)| members.contains(&a.get_z3_ast()))
                .map(|(i, _)| i)
                .collect();
            Z3_ast_vector_dec_ref(self.c(), core);
            indices
        }
    }
}

pub(crate) struct ScopeGuard<'s> {
    solver: &'s SimpleSolver,
}

impl std::ops::Deref for ScopeGuard<'_> {
    type Target = SimpleSolver;
    fn deref(&self) -> &SimpleSolver {
        self.solver
    }
}

impl Drop for ScopeGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: pops the scope `scope` pushed.
        unsafe { Z3_solver_pop(self.solver.c(), self.solver.raw, 1) };
    }
}

impl Drop for SimpleSolver {
    fn drop(&mut self) {
        // SAFETY: releases the reference taken in `new`.
        unsafe { Z3_solver_dec_ref(self.c(), self.raw) };
    }
}
