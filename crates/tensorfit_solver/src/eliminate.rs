//! The fast path: eliminate equalities by substitution before solving.
//!
//! An equality `atom = term` (with `atom` a variable, a rank or a dimension
//! at a constant index, of coefficient ±1) is turned into a substitution and
//! applied to every other fact. Most facts about concrete shapes fold to
//! `true` or `false` this way and never reach Z3; what remains is smaller and
//! free of the equalities that make the solver slow (section 3.4 of the
//! Tensors Fitting Perfectly paper). Every derived fact remembers the
//! assertions it depends on, so a contradiction found here has a core too.

use std::collections::BTreeSet;

use rustc_hash::FxHashMap;

use crate::term::{Formula, Linear, Term};

pub type Deps = BTreeSet<u32>;

#[derive(Clone, Debug)]
pub struct Derived {
    pub formula: Formula,
    pub deps: Deps,
}

/// The result of elimination.
#[derive(Clone, Debug, Default)]
pub struct Eliminated {
    /// Facts that still need a solver, already substituted.
    pub remaining: Vec<Derived>,
    substitution: Substitution,
}

/// Each eliminated atom and what it equals.
#[derive(Clone, Debug, Default)]
struct Substitution {
    values: FxHashMap<Term, Value>,
    /// How many equalities were added: a value resolved since the last one
    /// is final.
    equalities: u64,
}

#[derive(Clone, Debug)]
struct Value {
    term: Term,
    /// The assertions the equality (and its resolution) relies on.
    deps: Deps,
    /// The count of equalities when `term` was resolved through all of
    /// them (not cut at [`MAX_CHAIN`]): while no equality is added, a
    /// lookup takes it as it is. Resolving it again rebuilt the same term
    /// on every lookup (with the change below, U-Net's check went from
    /// about 63 to 52 ms as a process).
    resolved_at: Option<u64>,
}

impl Substitution {
    /// Whether `formula` has an atom this replaces. A formula without one
    /// is left as it is: substituting would rebuild the same formula
    /// (the facts are built folded), at the cost of a rebuild.
    fn touches(&self, formula: &Formula) -> bool {
        if self.values.is_empty() {
            return false;
        }
        let mut touched = false;
        formula.visit_atoms(&mut |atom| touched |= self.values.contains_key(atom));
        touched
    }

    fn add(&mut self, atom: Term, term: Term, deps: Deps) {
        self.equalities += 1;
        let value = Value {
            term,
            deps,
            resolved_at: None,
        };
        self.values.insert(atom, value);
    }
}

impl Eliminated {
    /// `term` with every eliminated atom replaced, and the assertions that
    /// replacement relied on.
    pub fn resolve(&mut self, term: &Term) -> (Term, Deps) {
        let mut deps = Deps::new();
        let resolved = resolve(&mut self.substitution, term, &mut deps, 0, &mut false);
        (resolved, deps)
    }

    /// What eliminating these facts and then `formula` (as fact `id`)
    /// gives, from a copy of these: `None` when `formula` is or holds an
    /// equality to eliminate, which would change how the facts before it
    /// are substituted (call [`eliminate`] with all of them then).
    pub fn with_last(&self, id: u32, formula: &Formula) -> Option<Result<Eliminated, Deps>> {
        let mut result = self.clone();
        let mut parts = Vec::new();
        push_conjuncts(formula.clone(), &mut parts);
        // As in `eliminate`: each part is substituted once among the
        // equalities, and again with the facts that are not.
        let mut others = Vec::new();
        for part in parts {
            let fact = Derived {
                formula: part,
                deps: Deps::from([id]),
            };
            let substituted = match result.substitute(fact) {
                Ok(Some(substituted)) => substituted,
                Ok(None) => continue,
                Err(core) => return Some(Err(core)),
            };
            if let Formula::IsZero(difference) = &substituted.formula {
                if solve_for_atom(difference).is_some() {
                    return None;
                }
            }
            others.push(substituted);
        }
        Some(result.keep_remaining(others).map(|()| result))
    }

    /// Substitutes the facts that are not equalities, now that every
    /// equality is known, and keeps those that do not become true.
    fn keep_remaining(&mut self, others: Vec<Derived>) -> Result<(), Deps> {
        for fact in others {
            if let Some(derived) = self.substitute(fact)? {
                self.remaining.push(derived);
            }
        }
        Ok(())
    }

    /// A fact with the substitution applied: `None` when it became true,
    /// `Err(core)` when it became false.
    fn substitute(&mut self, fact: Derived) -> Result<Option<Derived>, Deps> {
        let settled = matches!(fact.formula, Formula::Const(_));
        if !settled && !self.substitution.touches(&fact.formula) {
            return Ok(Some(fact));
        }
        let (formula, used) = self.resolve_formula(&fact.formula);
        let mut deps = fact.deps;
        deps.extend(used);
        match formula {
            Formula::Const(true) => Ok(None),
            Formula::Const(false) => Err(deps),
            formula => Ok(Some(Derived { formula, deps })),
        }
    }

    /// The atoms replaced by what they equal.
    pub(crate) fn eliminated_atoms(&self) -> impl Iterator<Item = &Term> {
        self.substitution.values.keys()
    }

    pub fn resolve_formula(&mut self, formula: &Formula) -> (Formula, Deps) {
        let mut deps = Deps::new();
        let substitution = &mut self.substitution;
        let resolved =
            formula.rewrite(&mut |atom| lookup(substitution, atom, &mut deps, 0, &mut false));
        (resolved, deps)
    }
}

/// Beyond this depth of chained substitutions, atoms are left in place (the
/// solver still sees the equalities that define them).
const MAX_CHAIN: usize = 200;

/// What `atom` equals, resolved; `cut` is set when a chain was cut at
/// [`MAX_CHAIN`] on the way.
fn lookup(
    substitution: &mut Substitution,
    atom: &Term,
    deps: &mut Deps,
    depth: usize,
    cut: &mut bool,
) -> Option<Term> {
    if depth > MAX_CHAIN {
        *cut = true;
        return None;
    }
    let value = substitution.values.get(atom)?;
    if value.resolved_at == Some(substitution.equalities) {
        deps.extend(value.deps.iter().copied());
        return Some(value.term.clone());
    }
    let (term, value_deps) = (value.term.clone(), value.deps.clone());
    let mut inner = Deps::new();
    let mut inner_cut = false;
    let resolved = resolve(substitution, &term, &mut inner, depth + 1, &mut inner_cut);
    inner.extend(value_deps);
    // Path compression: later lookups get the fully resolved value.
    let compressed = Value {
        term: resolved.clone(),
        deps: inner.clone(),
        resolved_at: (!inner_cut).then_some(substitution.equalities),
    };
    substitution.values.insert(atom.clone(), compressed);
    *cut |= inner_cut;
    deps.extend(inner);
    Some(resolved)
}

fn resolve(
    substitution: &mut Substitution,
    term: &Term,
    deps: &mut Deps,
    depth: usize,
    cut: &mut bool,
) -> Term {
    term.rewrite(&mut |atom| lookup(substitution, atom, deps, depth, cut))
}

fn eliminable(atom: &Term) -> bool {
    match atom {
        Term::Var(_) | Term::Rank(_) => true,
        Term::Dim(_, index) => index.as_const().is_some(),
        _ => false,
    }
}

/// Whether `atom` occurs in `term`.
fn occurs(atom: &Term, term: &Term) -> bool {
    let mut found = false;
    term.visit_atoms(&mut |a| found |= a == atom);
    found
}

/// Runs elimination. `Err(core)` when the facts are contradictory already.
pub fn eliminate(facts: impl IntoIterator<Item = (u32, Formula)>) -> Result<Eliminated, Deps> {
    let mut result = Eliminated::default();
    let mut pending: Vec<Derived> = Vec::new();
    for (id, formula) in facts {
        let mut parts = Vec::new();
        push_conjuncts(formula, &mut parts);
        pending.extend(parts.into_iter().map(|formula| Derived {
            formula,
            deps: Deps::from([id]),
        }));
    }
    // Equalities first, in order; everything else is substituted at the end.
    let mut others = Vec::new();
    for fact in pending {
        let Some(Derived { formula, deps }) = result.substitute(fact)? else {
            continue;
        };
        match formula {
            Formula::IsZero(difference) => match solve_for_atom(&difference) {
                Some((atom, value)) => result.substitution.add(atom, value, deps),
                None => others.push(Derived {
                    formula: Formula::IsZero(difference),
                    deps,
                }),
            },
            formula => others.push(Derived { formula, deps }),
        }
    }
    result.keep_remaining(others)?;
    Ok(result)
}

/// The parts of a conjunction, each on its own: `a and b`, and `not (a
/// or b)` as `not a` and `not b` (the path past `if g != 1 or w != 64:
/// raise` is `g == 1` and `w == 64`, two equalities to substitute).
fn push_conjuncts(formula: Formula, parts: &mut Vec<Formula>) {
    match formula {
        Formula::And(inner) => {
            for part in inner {
                push_conjuncts(part, parts);
            }
        }
        Formula::Not(inner) => match &*inner {
            Formula::Or(disjuncts) => {
                for part in disjuncts {
                    push_conjuncts(Formula::not(part), parts);
                }
            }
            _ => parts.push(Formula::Not(inner)),
        },
        formula => parts.push(formula),
    }
}

/// For `difference = 0`, an atom of coefficient ±1 and what it equals.
fn solve_for_atom(difference: &Term) -> Option<(Term, Term)> {
    let linear = Linear::of(difference)?;
    let (atom, coefficient) = linear
        .atoms
        .iter()
        .filter(|(atom, c)| c.abs() == 1 && eliminable(atom))
        // Prefer eliminating dimensions and ranks, keeping named variables
        // (holes, parameters) as what others are expressed in.
        .min_by_key(|(atom, _)| match atom {
            Term::Dim(..) => 0,
            Term::Rank(_) => 1,
            _ => 2,
        })?;
    let (atom, coefficient) = (atom.clone(), *coefficient);
    let mut rest = linear;
    rest.atoms.remove(&atom);
    // coefficient·atom + rest = 0  ⇒  atom = -rest / coefficient
    let value = if coefficient == 1 {
        Term::neg(&rest.into_term())
    } else {
        rest.into_term()
    };
    if occurs(&atom, &value) {
        return None;
    }
    Some((atom, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x(i: u32) -> Term {
        Term::var(i)
    }

    #[test]
    fn contradictions_are_found_with_their_core() {
        // 0: x1 = 10   1: x2 = 30   2: x3 >= 0   3: x1 = x2
        let facts = vec![
            (0, Formula::eq(&x(1), &Term::int(10))),
            (1, Formula::eq(&x(2), &Term::int(30))),
            (2, Formula::ge(&x(3), &Term::int(0))),
            (3, Formula::eq(&x(1), &x(2))),
        ];
        let core = eliminate(facts).unwrap_err();
        assert_eq!(core, Deps::from([0, 1, 3]));
    }

    #[test]
    fn the_path_past_a_raise_on_either_of_two_values_substitutes_both() {
        // `if groups != 1 or width != 64: raise`, not taken.
        let either = Formula::or([
            Formula::ne(&x(1), &Term::int(1)),
            Formula::ne(&x(2), &Term::int(64)),
        ]);
        let facts = vec![
            (0, Formula::not(&either)),
            (1, Formula::ge(&Term::mul(&x(1), &x(2)), &x(3))),
        ];
        let mut eliminated = eliminate(facts).unwrap();
        assert_eq!(eliminated.resolve(&x(2)).0, Term::int(64));
        assert_eq!(
            eliminated.remaining[0].formula,
            Formula::le(&x(3), &Term::int(64))
        );
        assert_eq!(eliminated.remaining[0].deps, Deps::from([0, 1]));
    }

    #[test]
    fn substitution_resolves_terms() {
        let facts = vec![
            (0, Formula::eq(&Term::rank(5), &Term::int(2))),
            (1, Formula::eq(&Term::dim(5, Term::int(1)), &x(9))),
            (2, Formula::eq(&x(9), &Term::int(320))),
        ];
        let mut eliminated = eliminate(facts).unwrap();
        assert!(eliminated.remaining.is_empty());
        let last = Term::dim(5, Term::sub(&Term::rank(5), &Term::int(1)));
        let (value, deps) = eliminated.resolve(&last);
        assert_eq!(value, Term::int(320));
        assert_eq!(deps, Deps::from([0, 1, 2]));
    }

    /// A value resolved before a later equality is resolved again through
    /// it: what a lookup keeps is final only until the next equality.
    #[test]
    fn a_value_resolved_early_sees_the_equalities_added_after() {
        let facts = vec![
            (0, Formula::eq(&x(1), &Term::add(&x(2), &Term::int(1)))),
            // Substituted before x2 is known: x1 is resolved to x2 + 1.
            (1, Formula::ge(&x(3), &x(1))),
            (2, Formula::eq(&x(2), &Term::int(5))),
        ];
        let mut eliminated = eliminate(facts).unwrap();
        assert_eq!(
            eliminated.remaining[0].formula,
            Formula::ge(&x(3), &Term::int(6))
        );
        assert_eq!(eliminated.remaining[0].deps, Deps::from([0, 1, 2]));
        for _ in 0..2 {
            let (value, deps) = eliminated.resolve(&Term::mul(&Term::int(2), &x(1)));
            assert_eq!(value, Term::int(12));
            assert_eq!(deps, Deps::from([0, 2]));
        }
    }

    /// Adding a last fact to eliminated facts gives what eliminating them
    /// all gives: the same remaining facts with the same dependencies, or
    /// the same contradiction; an equality is left to `eliminate`.
    #[test]
    fn a_last_fact_added_to_eliminated_facts_is_eliminating_them_all() {
        let base = vec![
            (0, Formula::eq(&x(1), &Term::add(&x(2), &Term::int(1)))),
            (1, Formula::ge(&x(3), &x(1))),
            (2, Formula::eq(&x(2), &Term::int(5))),
            (3, Formula::le(&Term::mul(&x(4), &x(5)), &x(1))),
        ];
        let last = [
            Formula::or([Formula::ne(&x(3), &Term::int(7)), Formula::ne(&x(4), &x(1))]),
            Formula::and([Formula::ge(&x(4), &Term::int(2)), Formula::le(&x(5), &x(2))]),
            Formula::ne(&x(1), &Term::int(6)),
            Formula::ge(&x(2), &Term::int(9)),
            Formula::ge(&x(2), &Term::int(0)),
        ];
        let eliminated = eliminate(base.clone()).unwrap();
        for formula in last {
            let mut all = base.clone();
            all.push((9, formula.clone()));
            let at_once = eliminate(all);
            let added = eliminated.with_last(9, &formula).expect("no equality");
            match (added, at_once) {
                (Ok(added), Ok(at_once)) => {
                    let facts = |e: &Eliminated| {
                        e.remaining
                            .iter()
                            .map(|d| (d.formula.clone(), d.deps.clone()))
                            .collect::<Vec<_>>()
                    };
                    assert_eq!(facts(&added), facts(&at_once), "{formula:?}");
                }
                (Err(a), Err(b)) => assert_eq!(a, b, "{formula:?}"),
                (added, at_once) => panic!("{formula:?}: {added:?} against {at_once:?}"),
            }
        }
        let equality = Formula::eq(&x(4), &Term::int(3));
        assert!(eliminated.with_last(9, &equality).is_none());
    }

    /// A fact that names no eliminated atom stays as it is, with its own
    /// dependencies; a constant fact still decides.
    #[test]
    fn facts_without_eliminated_atoms_are_kept_and_constants_decide() {
        let untouched = Formula::ge(&x(2), &Term::mul(&Term::int(2), &x(3)));
        let facts = vec![
            (0, Formula::eq(&x(1), &Term::int(3))),
            (1, untouched.clone()),
            (2, Formula::truth(true)),
        ];
        let eliminated = eliminate(facts.clone()).unwrap();
        assert_eq!(eliminated.remaining.len(), 1);
        assert_eq!(eliminated.remaining[0].formula, untouched);
        assert_eq!(eliminated.remaining[0].deps, Deps::from([1]));
        let mut contradicted = facts;
        contradicted.push((3, Formula::truth(false)));
        assert_eq!(eliminate(contradicted).unwrap_err(), Deps::from([3]));
    }

    #[test]
    fn inequalities_remain_substituted() {
        let facts = vec![
            (0, Formula::eq(&x(1), &Term::add(&x(2), &Term::int(1)))),
            (1, Formula::le(&x(1), &Term::int(0))),
        ];
        let eliminated = eliminate(facts).unwrap();
        assert_eq!(eliminated.remaining.len(), 1);
        assert_eq!(
            eliminated.remaining[0].formula,
            Formula::le(&x(2), &Term::int(-1))
        );
        assert_eq!(eliminated.remaining[0].deps, Deps::from([0, 1]));
    }
}
