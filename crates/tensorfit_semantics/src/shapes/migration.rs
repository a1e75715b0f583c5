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
use tensorfit_solver::{self as solver, Fact as SolverFact, Forced, Formula, Outcome, Term};
use tensorfit_syntax::ast;

use super::analysis::{Analysis, Summary};
use super::check;
use super::display;
use super::exec::Frame;
use super::fact::{as_implications, Explain, Fact};
use super::program::FunctionRef;
use super::substitution::Substitution;
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
    /// How a code action writes the annotation into the file; `None` when
    /// it is only offered in words (a Python file that does not import
    /// jaxtyping has no way to write a shape).
    pub writing: Option<Writing>,
}

/// What a fix writes besides replacing the parameter's type.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Writing {
    /// Put before the annotation where the parameter has no type written
    /// (`: ` in Python; nothing in the Tensor language, whose parameters
    /// always have one).
    pub lead: String,
    /// Other edits the annotation needs, such as importing a name it
    /// uses: each replaces a range with a text.
    pub also: Vec<(TextRange, String)>,
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
        Some(dims) => annotation(&encoded, dims, limits),
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
        writing: Some(Writing::default()),
    };
    if let Outcome::Unsat(core) = solver::check(&encoded, limits) {
        migration.reason = reason(analysis, facts, &encoded, &core);
    }
    Some(migration)
}

/// What an example is searched against: the function, its summary, the
/// parameter's placeholder in it, and the function's own paths that can
/// run ([`paths`]).
pub struct ExampleQuery<'q, 'a> {
    pub function: FunctionRef<'a>,
    pub summary: &'q Summary,
    pub placeholder: &'q Value,
    pub paths: &'q [PathFacts],
}

/// Finds a concrete annotation for a migration whose function's own facts
/// can hold: the function's summary is instantiated with the parameter of
/// each candidate rank (fresh positive dimensions), the others left
/// symbolic, and the dimensions are read off a model of what the call
/// requires. Instantiating, rather than reading the function's own facts,
/// also applies what was deferred until the rank is known (`reshape`'s
/// element count, for instance).
///
/// One model chooses one path (a `Bool` parameter's value, say), but an
/// annotation is for every call: each path of the function whose branch
/// conditions do not read the parameter's shape (which an annotation could
/// make dead instead) must keep holding, so each is required too, with its
/// own copy of every variable but the parameter's dimensions (a `Bool` may
/// be true on one path and false on another). When no one shape satisfies
/// them all, there is no example: any annotation would add an error on
/// some path (a path that fails already would fail once more, for the
/// annotation's dimensions).
pub fn find_example(
    analysis: &Analysis<'_>,
    query: &ExampleQuery<'_, '_>,
    migration: &mut Migration,
    ranks: &[i64],
) {
    if !migration.reason.is_empty() {
        return;
    }
    let required: Vec<&PathFacts> = query
        .paths
        .iter()
        .filter(|path| !chooses_on(path, query.placeholder))
        .collect();
    for &rank in ranks {
        match example_of_rank(analysis, query, migration, rank, &required) {
            Candidate::Found(example) => {
                migration.example = Some(example);
                return;
            }
            // An operation on the parameter still waits for another
            // parameter (a layer passed in): no rank is proven either way.
            Candidate::Undecided => return,
            Candidate::Refused => {}
        }
    }
    let tried = match ranks {
        [only] => format!("of rank {only}"),
        [first, .., last] => format!("of rank {first} to {last}"),
        [] => return,
    };
    migration.reason.push(Requirement {
        subject: None,
        text: match required.is_empty() {
            true => format!(
                "no shape {tried} satisfies what `{}` requires of it",
                migration.function
            ),
            false => format!(
                "no shape {tried} satisfies every path of `{}`",
                migration.function
            ),
        },
        at: migration.range,
    });
}

/// What one rank gives a parameter's example.
enum Candidate {
    Found(String),
    Refused,
    /// Operations stay deferred after the call (they wait for another
    /// parameter), so their requirements are not among the facts.
    Undecided,
}

/// The summary called with the parameter given `rank` fresh positive
/// dimensions (the others left as they are): the call's facts, the
/// dimensions, and whether every deferred operation could be applied.
fn called_with_rank(
    analysis: &Analysis<'_>,
    query: &ExampleQuery<'_, '_>,
    migration: &Migration,
    rank: i64,
) -> (Vec<SolverFact>, Vec<Term>, bool) {
    let mut frame = Frame::new(analysis, None);
    let dims: Vec<Term> = (0..rank)
        .map(|_| frame.fresh_dim(migration.range))
        .collect();
    let bound: Vec<(String, Value, String)> = query
        .summary
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
    frame.call_summary(
        query.function.clone(),
        bound,
        migration.range,
        &migration.parameter,
    );
    let settled = frame.deferred.is_empty();
    (
        as_implications(frame.facts.iter().enumerate()),
        dims,
        settled,
    )
}

/// A static shape of `rank` for the parameter that the summary's call
/// accepts and that keeps each of `paths` satisfiable.
fn example_of_rank(
    analysis: &Analysis<'_>,
    query: &ExampleQuery<'_, '_>,
    migration: &Migration,
    rank: i64,
    paths: &[&PathFacts],
) -> Candidate {
    let (mut encoded, dims, settled) = called_with_rank(analysis, query, migration, rank);
    if !settled {
        return Candidate::Undecided;
    }
    for path in paths {
        let Some(formula) = path_with_dims(analysis, &path.formula, query.placeholder, &dims)
        else {
            return Candidate::Refused;
        };
        let id = encoded.len() as u32;
        encoded.push(SolverFact { id, formula });
    }
    match solver::least_model(&encoded, &dims, 1, analysis.limits) {
        Some(values) => {
            let shown: Vec<String> = values.iter().map(i64::to_string).collect();
            Candidate::Found(format!("Tensor[{}]", shown.join(", ")))
        }
        // No model: refused only where the solver proves there is none (a
        // time-out on a loaded machine proves nothing, and said "no shape
        // satisfies every path" once in CI).
        None => match solver::check(&encoded, analysis.limits) {
            Outcome::Unsat(_) => Candidate::Refused,
            _ => Candidate::Undecided,
        },
    }
}

/// For a parameter whose rank the function's own facts leave open: the
/// one rank the summary accepts, if only one of `ranks` is (an operation
/// deferred until the rank is known states it only when called: `permute(x,
/// 0, 2, 1)` needs rank 3), with the annotation its call determines
/// (`Tensor[?, 32, ?]` when a `Linear(32, …)` follows). Ranks past the
/// last tried are taken not to be accepted: no operation needs them.
pub fn determine_rank(
    analysis: &Analysis<'_>,
    query: &ExampleQuery<'_, '_>,
    migration: &mut Migration,
    ranks: &[i64],
) -> Option<i64> {
    if !migration.reason.is_empty() || migration.forced_rank.is_some() || ranks.len() < 2 {
        return None;
    }
    let mut accepted = None;
    for &rank in ranks {
        let (encoded, dims, _) = called_with_rank(analysis, query, migration, rank);
        // Unknown counts as accepted: the rank is then not determined.
        if matches!(
            solver::check_unminimized(&encoded, analysis.limits),
            Outcome::Unsat(_)
        ) {
            continue;
        }
        if accepted.is_some() {
            return None;
        }
        accepted = Some((rank, encoded, dims));
    }
    let (rank, encoded, dims) = accepted?;
    migration.forced_rank = Some(rank);
    migration.annotation = annotation(&encoded, &dims, analysis.limits);
    Some(rank)
}

/// `Tensor[?, 32, ?]`: the dimensions the facts force, the others `?`.
fn annotation(encoded: &[SolverFact], dims: &[Term], limits: solver::Limits) -> String {
    let shown: Vec<String> = solver::forced_many(encoded, dims, limits)
        .into_iter()
        .map(|forced| match forced {
            Forced::Value(v) => v.to_string(),
            _ => "?".to_owned(),
        })
        .collect();
    format!("Tensor[{}]", shown.join(", "))
}

/// One path of a function's own facts that can run: its branch
/// conditions, and them with every fact that holds on it (those of an
/// error set aside).
#[derive(Clone, Debug)]
pub struct PathFacts {
    guard: Vec<Formula>,
    formula: Formula,
}

/// The paths of a function's own facts that can run. Only for a function
/// with more than one path; with one, the summary's model is already a
/// model of it.
pub fn paths(facts: &[Fact], outcome: &check::EntryOutcome) -> Vec<PathFacts> {
    if outcome.consistent.len() < 2 {
        return Vec::new();
    }
    outcome
        .consistent
        .iter()
        .map(|(path, holding)| PathFacts {
            guard: path.clone(),
            formula: Formula::and(
                path.iter()
                    .cloned()
                    .chain(holding.iter().map(|i| facts[*i].formula.clone())),
            ),
        })
        .collect()
}

/// Whether a path's branch conditions read the parameter's shape: then an
/// annotation may make the path dead, which is as good as making it hold,
/// and the path is not required of the example.
fn chooses_on(path: &PathFacts, placeholder: &Value) -> bool {
    let Value::Tensor(shape) = placeholder else {
        return false;
    };
    let mut vars = std::collections::HashSet::new();
    let mut collect = |term: &Term| {
        term.visit_atoms(&mut |atom| match atom {
            Term::Var(v) | Term::Rank(v) | Term::Dim(v, _) => {
                vars.insert(*v);
            }
            _ => {}
        })
    };
    shape.head.iter().for_each(&mut collect);
    if let Some(rest) = &shape.rest {
        rest.tail.iter().for_each(&mut collect);
    }
    vars.extend(shape.rest.as_ref().map(|rest| rest.base));
    let mut reads = false;
    for literal in &path.guard {
        literal.visit_atoms(&mut |atom| {
            if let Term::Var(v) | Term::Rank(v) | Term::Dim(v, _) = atom {
                reads |= vars.contains(v);
            }
        });
    }
    reads
}

/// A copy of `path` apart from every other (fresh variables), with the
/// parameter's placeholder replaced by `dims`; `None` when the placeholder
/// spells out another rank.
fn path_with_dims(
    analysis: &Analysis<'_>,
    path: &Formula,
    placeholder: &Value,
    dims: &[Term],
) -> Option<Formula> {
    let Value::Tensor(shape) = placeholder else {
        return None;
    };
    let var = |term: &Term| match term {
        Term::Var(v) => Some(*v),
        _ => None,
    };
    let keep = dims.iter().filter_map(var).collect();
    let mut copy = Substitution::apart_from(keep);
    let (head, tail) = match &shape.rest {
        None if shape.head.len() != dims.len() => return None,
        None => (dims, &[][..]),
        // A parameter's opaque part is its whole shape or a segment's,
        // never a slice of another.
        Some(rest) if rest.skip_front != 0 || rest.skip_back != 0 => return None,
        Some(rest) if shape.head.len() + rest.tail.len() > dims.len() => return None,
        Some(rest) => {
            let (head, others) = dims.split_at(shape.head.len());
            let (middle, tail) = others.split_at(others.len() - rest.tail.len());
            copy.shapes.insert(rest.base, Shape::known(middle.to_vec()));
            (head, tail)
        }
    };
    let spelt = shape.rest.iter().flat_map(|rest| &rest.tail);
    for (term, dim) in shape.head.iter().zip(head).chain(spelt.zip(tail)) {
        if let Some(v) = var(term) {
            copy.ints.insert(v, dim.clone());
        }
    }
    Some(copy.formula(path, &analysis.vars))
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
        if !fact.kind.is_checked() {
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
