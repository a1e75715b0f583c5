//! Substitution of a summary's placeholders by a call's arguments.
//!
//! A placeholder is a variable (an `Int` parameter, a dimension name) or an
//! opaque shape (a bare `Tensor` parameter, a segment). Instantiating a
//! summary maps each placeholder to what the call passes and every other
//! variable the summary created to a fresh one, so that two calls never
//! share their internals. Holes are program constants and stay as they are.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use tensorfit_solver::{Formula, Term, VarId};

use super::value::{Rest, Shape, Value};
use super::vars::VarGen;

#[derive(Default)]
pub struct Substitution {
    pub ints: HashMap<VarId, Term>,
    pub bools: HashMap<VarId, Formula>,
    pub shapes: HashMap<VarId, Shape>,
    /// Variables created by the summary: renamed fresh on first sight.
    pub internal: HashSet<VarId>,
    /// When set, every variable but these is renamed (to copy a set of
    /// facts apart from another, sharing only these).
    pub keep_only: Option<HashSet<VarId>>,
    /// The names of the renamed variables, when they come from a summary
    /// made by another analysis (whose names this one does not know).
    pub names: Option<Arc<BTreeMap<VarId, String>>>,
    renamed: HashMap<VarId, VarId>,
}

impl Substitution {
    /// Renames every variable except `keep`.
    pub fn apart_from(keep: HashSet<VarId>) -> Substitution {
        Substitution {
            keep_only: Some(keep),
            ..Substitution::default()
        }
    }

    fn rename(&mut self, var: VarId, vars: &VarGen) -> VarId {
        let renamed = match &self.keep_only {
            Some(keep) => !keep.contains(&var),
            None => self.internal.contains(&var),
        };
        if !renamed {
            return var;
        }
        let names = &self.names;
        *self.renamed.entry(var).or_insert_with(|| match names {
            Some(names) => vars.fresh_with(names.get(&var).cloned()),
            None => vars.fresh_like(var),
        })
    }

    pub fn term(&mut self, term: &Term, vars: &VarGen) -> Term {
        let term = self.bools_in_term(term, vars);
        term.rewrite(&mut |atom| Some(self.atom(atom, vars)))
    }

    pub fn formula(&mut self, formula: &Formula, vars: &VarGen) -> Formula {
        let formula = self.bools_in_formula(formula, vars);
        formula.rewrite(&mut |atom| Some(self.atom(atom, vars)))
    }

    /// One atom, whose parts (a `Dim`'s position) are already substituted:
    /// the rewrite goes bottom-up, so substituting them here again would
    /// rename a variable twice.
    fn atom(&mut self, atom: &Term, vars: &VarGen) -> Term {
        match atom {
            Term::Var(v) => match self.ints.get(v) {
                Some(t) => t.clone(),
                None => Term::var(self.rename(*v, vars)),
            },
            Term::Rank(b) => match self.shapes.get(b) {
                Some(shape) => shape.rank(),
                None => Term::rank(self.rename(*b, vars)),
            },
            Term::Dim(b, index) => match self.shapes.get(b).cloned() {
                Some(shape) => shape.dim_at(index),
                None => Term::dim(self.rename(*b, vars), (**index).clone()),
            },
            other => other.clone(),
        }
    }

    /// What a boolean variable becomes: the argument's condition, a fresh
    /// copy, or itself.
    fn bool_var(&mut self, v: VarId, vars: &VarGen) -> Formula {
        if let Some(f) = self.bools.get(&v) {
            return f.clone();
        }
        Formula::var(self.rename(v, vars))
    }

    // Most terms and facts have no condition: rewriting their boolean
    // variables would rebuild them for nothing (the atoms' rewrite after
    // it rebuilds them anyway, folded the same way).

    fn bools_in_formula<'f>(&mut self, formula: &'f Formula, vars: &VarGen) -> Cow<'f, Formula> {
        if !formula.mentions_bool_vars() {
            return Cow::Borrowed(formula);
        }
        Cow::Owned(formula.rewrite_bools(&mut |v| Some(self.bool_var(v, vars))))
    }

    fn bools_in_term<'t>(&mut self, term: &'t Term, vars: &VarGen) -> Cow<'t, Term> {
        if !term.mentions_bool_vars() {
            return Cow::Borrowed(term);
        }
        Cow::Owned(term.rewrite_bools(&mut |v| Some(self.bool_var(v, vars))))
    }

    pub fn shape(&mut self, shape: &Shape, vars: &VarGen) -> Shape {
        let head: Vec<Term> = shape.head.iter().map(|t| self.term(t, vars)).collect();
        let Some(rest) = &shape.rest else {
            return Shape::known(head);
        };
        let tail: Vec<Term> = rest.tail.iter().map(|t| self.term(t, vars)).collect();
        let middle = match self.shapes.get(&rest.base).cloned() {
            Some(replacement) => replacement
                .slice_exact(rest.skip_front as usize, rest.skip_back as usize)
                .unwrap_or_else(|| Shape::opaque(vars.fresh())),
            None => Shape {
                head: Vec::new(),
                rest: Some(Rest {
                    base: self.rename(rest.base, vars),
                    tail: Vec::new(),
                    ..rest.clone()
                }),
            },
        };
        let with_head = Shape::known(head)
            .concat(&middle)
            .unwrap_or_else(|| Shape::opaque(vars.fresh()));
        with_head
            .concat(&Shape::known(tail))
            .unwrap_or_else(|| Shape::opaque(vars.fresh()))
    }

    pub fn value(&mut self, value: &Value, vars: &VarGen) -> Value {
        // Terms and shapes are rewritten by the same substitution; the two
        // closures cannot both borrow `self`, so shapes go through a cell.
        let cell = std::cell::RefCell::new(self);
        value.map_terms(
            &mut |t| cell.borrow_mut().term(t, vars),
            &mut |s| cell.borrow_mut().shape(s, vars),
            &mut |f| cell.borrow_mut().formula(f, vars),
        )
    }
}
