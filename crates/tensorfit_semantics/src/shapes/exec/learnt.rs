//! What a path has learnt from its own facts, to spell shapes out while
//! executing: ranks fixed to a number (an opaque shape then has that many
//! dimensions), and integer variables fixed to a term (`where d == 3 * k`
//! makes `chunk(x, 3, dim: 1)` three parts of `k`).
//!
//! Only facts stated on the path itself are learnt, and what a branch or a
//! loop iteration learns is forgotten after it (the executor saves and
//! restores this whole value).

use std::collections::HashMap;

use tensorfit_solver::{Formula, Term, VarId};

use crate::shapes::limits;

#[derive(Clone, Debug, Default)]
pub struct Learnt {
    pub ranks: HashMap<VarId, i64>,
    values: HashMap<VarId, Term>,
}

/// Rewrites applied to a term at most: a learnt value may mention a
/// variable learnt later (`a == b`, then `b == 4`).
const MAX_REWRITES: usize = 4;

/// What a formula says that is learnt, besides an over-large rank.
pub enum Lesson {
    Nothing,
    RankTooLarge,
}

impl Learnt {
    /// Learns from a fact that holds from here on (`values`: on this very
    /// path, not only on a branch of a callee).
    pub fn learn(&mut self, formula: &Formula, values: bool) -> Lesson {
        let parts: Vec<&Formula> = match formula {
            Formula::And(parts) => parts.iter().collect(),
            other => vec![other],
        };
        let mut lesson = Lesson::Nothing;
        for part in parts {
            let Formula::IsZero(term) = part else {
                continue;
            };
            if let Term::Add(terms) = term {
                if let [Term::Rank(base), Term::Const(c)] = terms.as_slice() {
                    // A rank past the bound stays opaque (Shape::refine).
                    match c.checked_neg().and_then(limits::spelt_rank) {
                        Some(rank) => {
                            self.ranks.insert(*base, rank);
                        }
                        None => lesson = Lesson::RankTooLarge,
                    }
                    continue;
                }
            }
            if let Some((var, value)) = solved_for_a_variable(term).filter(|_| values) {
                self.values.entry(var).or_insert(value);
            }
        }
        lesson
    }

    /// `term` with the variables learnt replaced by their values.
    pub fn known(&self, term: &Term) -> Term {
        let mut term = term.clone();
        for _ in 0..MAX_REWRITES {
            let mut changed = false;
            let rewritten = term.rewrite(&mut |atom| match atom {
                Term::Var(v) => self.values.get(v).map(|value| {
                    changed = true;
                    value.clone()
                }),
                _ => None,
            });
            term = rewritten;
            if !changed {
                break;
            }
        }
        term
    }
}

/// `v - t == 0` as `v := t`, for the first variable `v` that appears alone
/// (coefficient 1) in the sum and not in `t`.
fn solved_for_a_variable(term: &Term) -> Option<(VarId, Term)> {
    let Term::Add(parts) = term else {
        return None;
    };
    parts.iter().find_map(|part| {
        let Term::Var(v) = part else {
            return None;
        };
        let value = Term::neg(&Term::sub(term, part));
        let mut mentions = false;
        value.visit_atoms(&mut |atom| mentions |= atom == part);
        (!mentions).then_some((*v, value))
    })
}
