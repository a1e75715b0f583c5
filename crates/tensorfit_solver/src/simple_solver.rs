//! Z3's simple solver: the SMT kernel alone.
//!
//! Z3's default solver (what `Z3_mk_solver` makes) is a combined solver:
//! on its first check it builds the default strategy for whatever logic the
//! facts fall in, a tree of tactics that costs 6–9 ms to make and 1–2 ms to
//! tear down (issue 25 measured it at 85 % of the Z3 time of a ResNet-50
//! check), against 1–5 ms of solving. Our queries are small and mostly
//! decided by elimination before they get here, so the strategy only ever
//! cost time.
//!
//! One solver serves every query of its context (see `crate::contexts`):
//! each query is asserted in a scope of its own ([`SimpleSolver::scope`])
//! and taken back after, so the kernel and its theories are set up once per
//! context rather than once per query.

use z3_sys::*;

use crate::z3_context::{Ast, Z3Context};

/// What a check found.
pub(crate) enum Satisfiable {
    Yes,
    No,
    Unknown,
}

pub(crate) struct SimpleSolver {
    context: Z3_context,
    raw: Z3_solver,
}

impl SimpleSolver {
    /// A new simple solver in `context`, which must outlive it.
    pub fn new(context: &Z3Context) -> Option<SimpleSolver> {
        let context = context.raw();
        // SAFETY: the context is alive; the reference taken here is
        // released in `drop`, before the owner drops the context.
        let raw = unsafe { Z3_mk_simple_solver(context) }?;
        unsafe { Z3_solver_inc_ref(context, raw) };
        Some(SimpleSolver { context, raw })
    }

    /// Opens a scope: what is asserted until the guard drops is taken back
    /// then, even when the query unwinds (out of work) half-way.
    pub fn scope(&self) -> ScopeGuard<'_> {
        // SAFETY: the solver is alive; the guard pops what this pushes.
        unsafe { Z3_solver_push(self.context, self.raw) };
        ScopeGuard { solver: self }
    }

    pub fn assert(&self, formula: Ast) {
        // SAFETY: the formula belongs to this solver's context.
        unsafe { Z3_solver_assert(self.context, self.raw, formula) };
    }

    pub fn check_assumptions(&self, assumptions: &[Ast]) -> Satisfiable {
        // SAFETY: Z3 reads the assumptions during the call.
        let answer = unsafe {
            Z3_solver_check_assumptions(
                self.context,
                self.raw,
                assumptions.len() as u32,
                assumptions.as_ptr(),
            )
        };
        match answer {
            Z3_L_TRUE => Satisfiable::Yes,
            Z3_L_FALSE => Satisfiable::No,
            _ => Satisfiable::Unknown,
        }
    }

    /// The values of `terms` in the model of the last satisfiable check
    /// (completed: a term the model leaves free gets some value); `None`
    /// for a term whose value is not a 64-bit integer.
    pub fn model_values(&self, context: &Z3Context, terms: &[Ast]) -> Option<Vec<Option<i64>>> {
        // SAFETY: the model is referenced while it is read and released
        // after; evaluated terms live in the context (no counts to keep).
        unsafe {
            let model = Z3_solver_get_model(self.context, self.raw)?;
            Z3_model_inc_ref(self.context, model);
            let values = terms
                .iter()
                .map(|term| {
                    let mut value: Option<Ast> = None;
                    let out = &mut value as *mut Option<Ast> as *mut Ast;
                    if !Z3_model_eval(self.context, model, *term, true, out) {
                        return None;
                    }
                    context.numeral(value?)
                })
                .collect();
            Z3_model_dec_ref(self.context, model);
            Some(values)
        }
    }

    /// Which of `assumptions` the last unsatisfiable check's core holds,
    /// as indices.
    pub fn core_indices(&self, assumptions: &[Ast]) -> Vec<usize> {
        // SAFETY: the core vector is referenced while it is read; Z3 shares
        // equal terms, so its members are compared by address.
        unsafe {
            let Some(core) = Z3_solver_get_unsat_core(self.context, self.raw) else {
                return Vec::new();
            };
            Z3_ast_vector_inc_ref(self.context, core);
            let members: Vec<Ast> = (0..Z3_ast_vector_size(self.context, core))
                .filter_map(|i| Z3_ast_vector_get(self.context, core, i))
                .collect();
            Z3_ast_vector_dec_ref(self.context, core);
            assumptions
                .iter()
                .enumerate()
                .filter(|(_, a)| members.contains(a))
                .map(|(i, _)| i)
                .collect()
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
        unsafe { Z3_solver_pop(self.solver.context, self.solver.raw, 1) };
    }
}

impl Drop for SimpleSolver {
    fn drop(&mut self) {
        // SAFETY: releases the reference taken in `new`.
        unsafe { Z3_solver_dec_ref(self.context, self.raw) };
    }
}
