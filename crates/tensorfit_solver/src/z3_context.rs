//! A Z3 context, and the terms and formulas built in it, through Z3's C API.
//!
//! The `z3` crate keeps a context of its own for every thread and swaps
//! ours in for each query, which makes one more context per thread than
//! the analysis uses (about 16 MiB, and 5–15 ms to make; the peak of a
//! ResNet-50 check went from 56 to 40 MiB without it). Driving the C API
//! directly, a context exists only while its unit of work does.
//!
//! Contexts are made with `Z3_mk_context`, not `Z3_mk_context_rc`: terms
//! then live as long as their context, with no reference counts to keep.
//! A context serves one unit of work (one function's analysis) and is
//! dropped with it, so what its terms hold is bounded by that work. Every
//! builder returns `None` where Z3 reports an error (the error handler is
//! unset, so Z3 returns a null term instead of aborting); a query with
//! such a term answers "unknown".

use std::ffi::CString;

use z3_sys::*;

/// A term or formula of a [`Z3Context`], valid while the context lives.
pub(crate) type Ast = Z3_ast;

pub(crate) struct Z3Context {
    raw: Z3_context,
    int_sort: Z3_sort,
    bool_sort: Z3_sort,
}

impl Z3Context {
    pub fn new() -> Option<Z3Context> {
        // SAFETY: the configuration is deleted once the context is made
        // (Z3 copies it); the context is deleted in `drop`, and nothing
        // made in it outlives it (`Ast`s are used only by its owner).
        unsafe {
            let config = Z3_mk_config()?;
            let raw = Z3_mk_context(config);
            Z3_del_config(config);
            let raw = raw?;
            Z3_set_error_handler(raw, None);
            let context = Z3Context {
                raw,
                int_sort: Z3_mk_int_sort(raw)?,
                bool_sort: Z3_mk_bool_sort(raw)?,
            };
            Some(context)
        }
    }

    pub fn raw(&self) -> Z3_context {
        self.raw
    }

    fn symbol(&self, name: &str) -> Option<Z3_symbol> {
        let name = CString::new(name).ok()?;
        // SAFETY: Z3 copies the string into its symbol table.
        unsafe { Z3_mk_string_symbol(self.raw, name.as_ptr()) }
    }

    pub fn int_const(&self, name: &str) -> Option<Ast> {
        let symbol = self.symbol(name)?;
        unsafe { Z3_mk_const(self.raw, symbol, self.int_sort) }
    }

    pub fn bool_const(&self, name: &str) -> Option<Ast> {
        let symbol = self.symbol(name)?;
        unsafe { Z3_mk_const(self.raw, symbol, self.bool_sort) }
    }

    /// A function from integers to integers (a shape's dimensions).
    pub fn int_function(&self, name: &str) -> Option<Z3_func_decl> {
        let symbol = self.symbol(name)?;
        let domain = [self.int_sort];
        unsafe { Z3_mk_func_decl(self.raw, symbol, 1, domain.as_ptr(), self.int_sort) }
    }

    pub fn apply(&self, function: Z3_func_decl, argument: Ast) -> Option<Ast> {
        let arguments = [argument];
        unsafe { Z3_mk_app(self.raw, function, 1, arguments.as_ptr()) }
    }

    pub fn int(&self, value: i64) -> Option<Ast> {
        unsafe { Z3_mk_int64(self.raw, value, self.int_sort) }
    }

    pub fn boolean(&self, value: bool) -> Option<Ast> {
        unsafe {
            match value {
                true => Z3_mk_true(self.raw),
                false => Z3_mk_false(self.raw),
            }
        }
    }

    pub fn add(&self, parts: &[Ast]) -> Option<Ast> {
        unsafe { Z3_mk_add(self.raw, parts.len() as u32, parts.as_ptr()) }
    }

    pub fn mul(&self, a: Ast, b: Ast) -> Option<Ast> {
        let parts = [a, b];
        unsafe { Z3_mk_mul(self.raw, 2, parts.as_ptr()) }
    }

    pub fn sub(&self, a: Ast, b: Ast) -> Option<Ast> {
        let parts = [a, b];
        unsafe { Z3_mk_sub(self.raw, 2, parts.as_ptr()) }
    }

    pub fn neg(&self, a: Ast) -> Option<Ast> {
        unsafe { Z3_mk_unary_minus(self.raw, a) }
    }

    /// Z3's integer division (Euclidean: it differs from floor division
    /// for negative divisors).
    pub fn euclidean_div(&self, a: Ast, b: Ast) -> Option<Ast> {
        unsafe { Z3_mk_div(self.raw, a, b) }
    }

    pub fn ite(&self, condition: Ast, then: Ast, otherwise: Ast) -> Option<Ast> {
        unsafe { Z3_mk_ite(self.raw, condition, then, otherwise) }
    }

    pub fn eq(&self, a: Ast, b: Ast) -> Option<Ast> {
        unsafe { Z3_mk_eq(self.raw, a, b) }
    }

    pub fn le(&self, a: Ast, b: Ast) -> Option<Ast> {
        unsafe { Z3_mk_le(self.raw, a, b) }
    }

    pub fn lt(&self, a: Ast, b: Ast) -> Option<Ast> {
        unsafe { Z3_mk_lt(self.raw, a, b) }
    }

    pub fn ge(&self, a: Ast, b: Ast) -> Option<Ast> {
        unsafe { Z3_mk_ge(self.raw, a, b) }
    }

    pub fn gt(&self, a: Ast, b: Ast) -> Option<Ast> {
        unsafe { Z3_mk_gt(self.raw, a, b) }
    }

    pub fn not(&self, a: Ast) -> Option<Ast> {
        unsafe { Z3_mk_not(self.raw, a) }
    }

    pub fn and(&self, parts: &[Ast]) -> Option<Ast> {
        unsafe { Z3_mk_and(self.raw, parts.len() as u32, parts.as_ptr()) }
    }

    pub fn or(&self, parts: &[Ast]) -> Option<Ast> {
        unsafe { Z3_mk_or(self.raw, parts.len() as u32, parts.as_ptr()) }
    }

    pub fn implies(&self, a: Ast, b: Ast) -> Option<Ast> {
        unsafe { Z3_mk_implies(self.raw, a, b) }
    }

    /// The value of an integer numeral, if it fits in 64 bits.
    pub fn numeral(&self, a: Ast) -> Option<i64> {
        let mut value = 0i64;
        unsafe { Z3_get_numeral_int64(self.raw, a, &mut value) }.then_some(value)
    }
}

impl Drop for Z3Context {
    fn drop(&mut self) {
        // SAFETY: the owner drops its solver first (see `Session`).
        unsafe { Z3_del_context(self.raw) };
    }
}

#[cfg(test)]
mod tests {
    //! Each C API function tensorfit uses, against the system libz3.

    use super::*;
    use crate::simple_solver::{Satisfiable, SimpleSolver};

    fn setup() -> (Z3Context, SimpleSolver) {
        let context = Z3Context::new().expect("a context");
        let solver = SimpleSolver::new(&context).expect("a solver");
        (context, solver)
    }

    #[test]
    fn integer_arithmetic_division_and_models() {
        let (z3, solver) = setup();
        let h = z3.int_const("h").unwrap();
        // (h - 2) / 2 + 1 == 16, h >= 1
        let half = z3.euclidean_div(z3.sub(h, z3.int(2).unwrap()).unwrap(), z3.int(2).unwrap());
        let out = z3.add(&[half.unwrap(), z3.int(1).unwrap()]).unwrap();
        let scope = solver.scope();
        scope.assert(z3.eq(out, z3.int(16).unwrap()).unwrap());
        scope.assert(z3.ge(h, z3.int(1).unwrap()).unwrap());
        assert!(matches!(scope.check_assumptions(&[]), Satisfiable::Yes));
        let values = scope.model_values(&z3, &[h]).unwrap();
        assert!(matches!(values[0], Some(32 | 33)), "{values:?}");
        let product = z3.mul(h, z3.neg(h).unwrap()).unwrap();
        let bounded = z3
            .ite(z3.lt(h, z3.int(0).unwrap()).unwrap(), product, h)
            .unwrap();
        assert!(z3.le(bounded, h).is_some() && z3.gt(bounded, h).is_some());
        assert_eq!(z3.numeral(z3.int(-7).unwrap()), Some(-7));
    }

    #[test]
    fn uninterpreted_dimension_functions() {
        let (z3, solver) = setup();
        let dims = z3.int_function("dims").unwrap();
        let rank = z3.int_const("rank").unwrap();
        let position = z3.sub(rank, z3.int(3).unwrap()).unwrap();
        let channel = z3.apply(dims, position).unwrap();
        let scope = solver.scope();
        let in_range = [
            z3.ge(rank, z3.int(3).unwrap()).unwrap(),
            z3.le(rank, z3.int(4).unwrap()).unwrap(),
        ];
        scope.assert(z3.and(&in_range).unwrap());
        scope.assert(z3.eq(channel, z3.int(2).unwrap()).unwrap());
        let again = z3
            .apply(dims, z3.sub(rank, z3.int(3).unwrap()).unwrap())
            .unwrap();
        scope.assert(z3.eq(again, z3.int(4).unwrap()).unwrap());
        assert!(matches!(scope.check_assumptions(&[]), Satisfiable::No));
    }

    #[test]
    fn a_scope_is_taken_back_when_its_query_unwinds() {
        // A query out of work unwinds from inside its scope
        // (`crate::work::charge`): what it asserted must not stay.
        let (z3, solver) = setup();
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let scope = solver.scope();
            scope.assert(z3.boolean(false).unwrap());
            std::panic::resume_unwind(Box::new("out of work"));
        }));
        assert!(unwound.is_err());
        assert!(matches!(solver.check_assumptions(&[]), Satisfiable::Yes));
    }

    #[test]
    fn tracked_assumptions_give_a_core_and_scopes_take_facts_back() {
        let (z3, solver) = setup();
        let x = z3.int_const("x").unwrap();
        let [a, b, c] = ["a", "b", "c"].map(|n| z3.bool_const(n).unwrap());
        {
            let scope = solver.scope();
            scope.assert(
                z3.implies(a, z3.eq(x, z3.int(10).unwrap()).unwrap())
                    .unwrap(),
            );
            scope.assert(
                z3.implies(b, z3.eq(x, z3.int(30).unwrap()).unwrap())
                    .unwrap(),
            );
            scope.assert(
                z3.implies(c, z3.ge(x, z3.int(0).unwrap()).unwrap())
                    .unwrap(),
            );
            assert!(matches!(
                scope.check_assumptions(&[a, b, c]),
                Satisfiable::No
            ));
            assert_eq!(scope.core_indices(&[a, b, c]), vec![0, 1]);
        }
        // The scope is gone: a and b together no longer clash.
        let either = z3.or(&[a, z3.not(b).unwrap()]).unwrap();
        let scope = solver.scope();
        scope.assert(either);
        assert!(matches!(scope.check_assumptions(&[a, b]), Satisfiable::Yes));
        assert_eq!(z3.boolean(true).map(|t| z3.not(t).is_some()), Some(true));
    }
}
