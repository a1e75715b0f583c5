//! Gradual migration (LANGUAGE.md §9; questions Q1 and Q2 of Generalizing
//! Shape Analysis with Gradual Types): for a parameter written with `?`
//! dimensions or as a bare `Tensor`, what its function's body determines,
//! whether a fully static annotation exists, and one that fits the `where`
//! clauses — or why none can.
//!
//! The facts are the function's own, each under its path condition (an
//! annotation may make a branch dead, which is a fine way to satisfy it),
//! including those reported as errors: an annotation must make them hold.

use tensorfit_base::TextRange;
use tensorfit_solver::{self as solver, Fact as SolverFact, Forced, Outcome, Term};
use tensorfit_syntax::ast;

use super::analysis::{Analysis, Summary};
use super::display;
use super::exec::Frame;
use super::fact::{as_implications, Explain, Fact, FactKind};
use super::program::FunctionRef;
use super::value::{Shape, Value};

/// Ranks tried for the example of a parameter of unknown rank, at most.
const MAX_EXAMPLE_RANK: i64 = 8;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Migration {
    /// The parameter.
    pub range: TextRange,
    /// Its type as written (what a fix replaces).
    pub type_range: TextRange,
    pub function: String,
    pub parameter: String,
    /// `Tensor[?, 4, ?, ?]`: what the body determines.
    pub annotation: String,
    /// `Tensor[19, 4, 19, 9]` when a fully static annotation exists.
    pub example: Option<String>,
    /// Why none exists: the requirements that contradict each other.
    pub reason: Vec<Requirement>,
    /// The rank the body forces, when the parameter's is not written.
    pub forced_rank: Option<i64>,
    /// The different shapes the file's calls pass (those that fix every
    /// dimension), in call order. With one, it is the example; with more,
    /// no one static annotation fits every call, and none is offered as a
    /// fix (it would add an error at the other calls).
    pub call_shapes: Vec<String>,
}

impl Migration {
    pub fn is_static(&self) -> bool {
        self.example.is_some()
    }

    /// The static annotation that fits the function and every call of the
    /// file, if there is one.
    pub fn example_for_calls(&self) -> Option<&str> {
        match self.call_shapes.as_slice() {
            [] => self.example.as_deref(),
            [one] => Some(one),
            _ => None,
        }
    }

    /// Takes the calls' shapes into account: one shape passed by every call
    /// is the example, so that the annotation proposed agrees with what the
    /// program does (issue 22).
    pub fn agree_with_calls(&mut self, shapes: Vec<String>) {
        if let [one] = shapes.as_slice() {
            if self.example.is_some() {
                self.example = Some(one.clone());
            }
        }
        self.call_shapes = shapes;
    }
}

/// One requirement of a contradiction: `subject must be value`, or a
/// message, and where it is stated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    /// `x.shape[1]` when the requirement fixes it to a number.
    pub subject: Option<String>,
    /// The number, or the whole message when there is no subject.
    pub text: String,
    pub at: TextRange,
}

/// Whether a parameter's type leaves something to migrate.
pub fn is_gradual(ty: Option<&ast::Type>) -> bool {
    match ty.map(|t| &t.kind) {
        Some(ast::TypeKind::Tensor { dims: None }) => true,
        Some(ast::TypeKind::Tensor { dims: Some(dims) }) => {
            dims.iter().any(|d| matches!(d, ast::Dim::Unknown(_)))
        }
        _ => false,
    }
}

pub fn migrate(
    analysis: &Analysis<'_>,
    function: &str,
    param: &ast::Param,
    placeholder: &Value,
    facts: &[Fact],
) -> Option<Migration> {
    let Value::Tensor(shape) = placeholder else {
        return None;
    };
    let type_range = param.ty.as_ref()?.range;
    let encoded = as_implications(facts.iter().enumerate());
    let limits = analysis.limits;
    let forced_rank = match &shape.rest {
        Some(rest) => match solver::forced(&encoded, &Term::rank(rest.base), limits) {
            // A rank past the bound is not spelt out (nor tried below).
            Forced::Value(rank) => super::limits::spelt_rank(rank),
            _ => None,
        },
        None => None,
    };
    let shape = match forced_rank {
        Some(rank) => shape.refine(&|_| Some(rank)),
        None => shape.clone(),
    };
    let annotation = match shape.dims() {
        Some(dims) => {
            let shown: Vec<String> = solver::forced_many(&encoded, dims, limits)
                .into_iter()
                .map(|forced| match forced {
                    Forced::Value(v) => v.to_string(),
                    _ => "?".to_owned(),
                })
                .collect();
            format!("Tensor[{}]", shown.join(", "))
        }
        None => "Tensor".to_owned(),
    };
    let mut migration = Migration {
        range: param.range,
        type_range,
        function: function.to_owned(),
        parameter: param.name.text.clone(),
        annotation,
        example: None,
        reason: Vec::new(),
        forced_rank,
        call_shapes: Vec::new(),
    };
    if let Outcome::Unsat(core) = solver::check(&encoded, limits) {
        migration.reason = reason(analysis, facts, &encoded, &core);
    }
    Some(migration)
}

/// Finds a concrete annotation for a migration whose function's own facts
/// can hold: the function's summary is instantiated with the parameter of
/// each candidate rank (fresh positive dimensions), the others left
/// symbolic, and the dimensions are read off a model of what the call
/// requires. Instantiating, rather than reading the function's own facts,
/// also applies what was deferred until the rank is known (`reshape`'s
/// element count, for instance).
pub fn find_example(
    analysis: &Analysis<'_>,
    function: FunctionRef<'_>,
    summary: &Summary,
    migration: &mut Migration,
    ranks: &[i64],
) {
    if !migration.reason.is_empty() {
        return;
    }
    for &rank in ranks {
        let mut frame = Frame::new(analysis, None);
        let dims: Vec<Term> = (0..rank)
            .map(|_| frame.fresh_dim(migration.range))
            .collect();
        let bound: Vec<(String, Value, String)> = summary
            .params
            .iter()
            .map(|(name, placeholder)| {
                let value = if *name == migration.parameter {
                    Value::Tensor(Shape::known(dims.clone()))
                } else {
                    placeholder.clone()
                };
                (name.clone(), value, name.clone())
            })
            .collect();
        frame.call_summary(function, bound, migration.range, &migration.parameter);
        let encoded = as_implications(frame.facts.iter().enumerate());
        if let Some(values) = solver::model(&encoded, &dims, analysis.limits) {
            let shown: Vec<String> = values.iter().map(i64::to_string).collect();
            migration.example = Some(format!("Tensor[{}]", shown.join(", ")));
            return;
        }
    }
    let tried = match ranks {
        [only] => format!("of rank {only}"),
        [first, .., last] => format!("of rank {first} to {last}"),
        [] => return,
    };
    migration.reason.push(Requirement {
        subject: None,
        text: format!(
            "no shape {tried} satisfies what `{}` requires of it",
            migration.function
        ),
        at: migration.range,
    });
}

/// The ranks to try for a parameter's example: its rank when known.
pub fn candidate_ranks(placeholder: &Value, encoded_rank: Option<i64>) -> Vec<i64> {
    match placeholder {
        Value::Tensor(shape) => match (shape.dims(), encoded_rank) {
            (Some(dims), _) => vec![dims.len() as i64],
            (None, Some(rank)) => vec![rank],
            (None, None) => (0..=MAX_EXAMPLE_RANK).collect(),
        },
        _ => Vec::new(),
    }
}

/// The requirements of a minimal contradiction, in the program's terms.
fn reason(
    analysis: &Analysis<'_>,
    facts: &[Fact],
    encoded: &[SolverFact],
    core: &[u32],
) -> Vec<Requirement> {
    let mut requirements = Vec::new();
    for id in core {
        let Some(fact) = facts.get(*id as usize) else {
            continue;
        };
        if fact.kind == FactKind::Assumption {
            continue;
        }
        let fixed = match &fact.explain {
            Explain::Equal { left, right, .. } => match (left.1.as_const(), right.1.as_const()) {
                (None, Some(value)) => Some((display::term(analysis, &left.1), value)),
                (Some(value), None) => Some((display::term(analysis, &right.1), value)),
                _ => None,
            },
            _ => None,
        };
        let requirement = match fixed {
            Some((subject, value)) if subject != "?" => Requirement {
                subject: Some(subject),
                text: value.to_string(),
                at: fact.range,
            },
            _ => {
                let rest: Vec<SolverFact> = encoded
                    .iter()
                    .filter(|f| core.contains(&f.id) && f.id != *id)
                    .cloned()
                    .collect();
                Requirement {
                    subject: None,
                    text: super::check::explain(analysis, &fact.explain, &rest),
                    at: fact.range,
                }
            }
        };
        requirements.push(requirement);
    }
    requirements
}
