//! The facts symbolic execution records, with what is needed to report them.

use std::collections::BTreeSet;
use tensorfit_base::TextRange;

use tensorfit_solver::{Fact as SolverFact, Formula, Term, VarId};

use super::call_path::CallPath;
pub use super::call_path::CallSite;
use super::value::Shape;

/// A path condition: the conjunction of the branch conditions (already
/// negated for `else` branches) under which a fact must hold.
pub type Guard = Vec<Formula>;

/// Whether a path-condition literal tests one of `vars` (as a boolean or
/// inside a term): the opaque variables of `Analysis::opaque_vars`.
pub fn tests_any(literal: &Formula, vars: &BTreeSet<VarId>) -> bool {
    if vars.is_empty() {
        return false;
    }
    let mut found = false;
    literal.visit_bool_vars(&mut |v| found |= vars.contains(&v));
    literal.visit_atoms(&mut |atom| {
        if let Term::Var(v) = atom {
            found |= vars.contains(v);
        }
    });
    found
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FactKind {
    /// Required by an operation, a `where` clause, a parameter type or an
    /// `assert` that opens a function: when it fails for some call, the call
    /// is wrong.
    Precondition,
    /// A `|->` assertion, a type annotation, or an `assert` after the
    /// opening ones: when it fails for some call, the claim is wrong too.
    Claim,
    /// Holds by construction (well-formed shapes, loop bounds); never the
    /// fact an error is reported at.
    Assumption,
    /// The condition of a Python `if …: raise` guard in a function: assumed
    /// where it is stated (raising is what the function does otherwise), a
    /// precondition at each call.
    Guard,
}

impl FactKind {
    /// Whether a failure of the fact is reported where it is stated.
    pub fn is_checked(self) -> bool {
        matches!(self, FactKind::Precondition | FactKind::Claim)
    }
}

/// How to explain a failing fact in the program's terms. Terms are shown
/// with the values the rest of the contradiction forces on them.
#[derive(Clone, Debug, PartialEq)]
pub enum Explain {
    /// `{what}: {left} = 10 but {right} = 30`
    Equal {
        what: String,
        left: (String, Term),
        right: (String, Term),
    },
    /// `{subject} has shape [..] here but is asserted to be {claimed}`, or
    /// for a function's result, `` `f` returns {subject} of shape [..] here,
    /// but its result type is {claimed} ``.
    Shape {
        subject: String,
        actual: super::value::Shape,
        claimed: String,
        claim: ShapeClaim,
    },
    /// A message with `{}` placeholders filled by the terms' values.
    Text { template: String, terms: Vec<Term> },
}

/// What states the shape a value must have.
#[derive(Clone, Debug, PartialEq)]
pub enum ShapeClaim {
    /// A `|->` assertion or a type annotation.
    Asserted,
    /// The result type of the function named.
    ResultOf(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Fact {
    pub guard: Guard,
    pub formula: Formula,
    pub kind: FactKind,
    /// Where the fact is stated, in the function that states it.
    pub range: TextRange,
    /// The function that states it (`None` for the script body).
    pub function: Option<String>,
    pub explain: Explain,
    /// Outermost first: the calls from the checked entry point down to the
    /// function that states the fact. Empty for the entry point's own facts.
    pub via: CallPath,
    /// Where the values the fact talks about were defined (same function).
    pub sides: Vec<(TextRange, String)>,
    /// The layer construction whose argument one side of the fact is
    /// (`in_features` of `fc1 = Linear(4096, 128)`): the line to change.
    pub construction: Option<Construction>,
    /// The construction of a class of this file whose `__init__` (or
    /// struct fields) states the fact, innermost: where a failure that
    /// depends on the constructor's arguments comes from.
    pub constructed_at: Option<CallSite>,
    /// Which part of its statement the fact is: a shape claim is stated
    /// one fact per part (its rank, each dimension), so that a call that
    /// refutes one dimension leaves the others assumed. 0 for the rest.
    pub part: u32,
}

/// Where a layer whose constructor argument a fact compares is
/// constructed, so that the error can point there with the value that
/// would fit.
#[derive(Clone, Debug, PartialEq)]
pub struct Construction {
    /// The field or `let` that holds the layer.
    pub range: TextRange,
    /// Its name: `fc1`.
    pub layer: String,
    /// Whether the argument is the right side of an [`Explain::Equal`]
    /// (the other side's value is what would fit).
    pub argument_on_right: bool,
}

impl Fact {
    /// This fact on the path where `condition` is `holds`: the values
    /// merged on the condition take that branch's value.
    pub fn on_branch(&self, condition: &Formula, holds: bool) -> Fact {
        let explain = self.explain.rewritten(&mut Decide { condition, holds });
        let mut guard = self.guard.clone();
        guard.push(if holds {
            condition.clone()
        } else {
            Formula::not(condition)
        });
        Fact {
            guard,
            formula: self.formula.decide(condition, holds),
            explain,
            ..self.clone()
        }
    }
}

/// A rewriting of the terms an explanation shows: a call's substitution,
/// a branch's decided choices.
pub trait Rewrite {
    fn term(&mut self, term: &Term) -> Term;

    /// Each dimension the shape spells out, by default.
    fn shape(&mut self, shape: &Shape) -> Shape {
        shape.map_terms(&mut |t| self.term(t))
    }
}

impl Explain {
    pub fn rewritten(&self, rewrite: &mut dyn Rewrite) -> Explain {
        match self {
            Explain::Equal { what, left, right } => Explain::Equal {
                what: what.clone(),
                left: (left.0.clone(), rewrite.term(&left.1)),
                right: (right.0.clone(), rewrite.term(&right.1)),
            },
            Explain::Shape {
                subject,
                actual,
                claimed,
                claim,
            } => Explain::Shape {
                subject: subject.clone(),
                actual: rewrite.shape(actual),
                claimed: claimed.clone(),
                claim: claim.clone(),
            },
            Explain::Text { template, terms } => Explain::Text {
                template: template.clone(),
                terms: terms.iter().map(|t| rewrite.term(t)).collect(),
            },
        }
    }
}

/// The choices on `condition` decided as `holds` ([`Term::decide`]).
struct Decide<'c> {
    condition: &'c Formula,
    holds: bool,
}

impl Rewrite for Decide<'_> {
    fn term(&mut self, term: &Term) -> Term {
        term.decide(self.condition, self.holds)
    }
}

/// Facts of every path at once, each as "its path condition implies it"
/// (id = index). For questions about a whole entry point (migration,
/// decided conditions) rather than about one path.
pub fn as_implications<'f>(facts: impl IntoIterator<Item = (usize, &'f Fact)>) -> Vec<SolverFact> {
    facts
        .into_iter()
        .map(|(i, f)| SolverFact {
            id: i as u32,
            formula: Formula::implies(&Formula::and(f.guard.iter().cloned()), &f.formula),
        })
        .collect()
}
