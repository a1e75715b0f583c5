//! The shapes users see (hover, JSON `bindings`): each recorded tensor
//! under the facts of its path, merged over the paths and loop iterations
//! that reach the same place (LANGUAGE.md §5, "How shapes are shown").
//!
//! A function's own records give the shape that holds for every call. The
//! records a call instantiated from a callee give the shape at that call;
//! those are kept only when the call fixes every dimension to a number.

use std::collections::{HashMap, HashSet};

use tensorfit_base::TextRange;
use tensorfit_solver::components::Partition;
use tensorfit_solver::eliminate::{eliminate, Eliminated};
use tensorfit_solver::{
    self as solver, time_cap, Fact as SolverFact, Forced, Formula, Outcome, Term,
};

use super::analysis::Analysis;
use super::check;
use super::display;
use super::exec::ShapeRecord;
use super::fact::{Fact, Guard};
use super::guard_index::GuardIndex;
use super::value::{Shape, Value};

/// A shape as shown: the dimensions, or `None` for an unknown rank.
pub type Dims = Option<Vec<String>>;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShownShape {
    /// The bound name; `None` for an expression.
    pub name: Option<String>,
    pub range: TextRange,
    /// Outermost first: the calls (in the checked entry point, then in its
    /// callees) that fix this shape. Empty for the shape that holds for
    /// every call.
    pub calls: Vec<TextRange>,
    pub dims: Dims,
}

/// `Tensor[batch, 8, 8, 5]`, `Tensor` (unknown rank) or `Tensor[]`.
pub fn format(dims: &Dims) -> String {
    match dims {
        None => "Tensor".to_owned(),
        Some(dims) => format!("Tensor[{}]", dims.join(", ")),
    }
}

/// What holds at every one of several places: dimensions shown alike are
/// kept, others become `?`; different ranks give an unknown rank.
pub fn merge(a: &Dims, b: &Dims) -> Dims {
    match (a, b) {
        (Some(a), Some(b)) if a.len() == b.len() => Some(
            a.iter()
                .zip(b)
                .map(|(x, y)| if x == y { x.clone() } else { "?".to_owned() })
                .collect(),
        ),
        _ => None,
    }
}

fn is_concrete(dims: &Dims) -> bool {
    dims.as_ref()
        .is_some_and(|d| d.iter().all(|x| x.parse::<i64>().is_ok()))
}

/// The shapes of an entry point's records.
pub fn show(
    analysis: &Analysis<'_>,
    facts: &[Fact],
    set_aside: &HashSet<usize>,
    records: &[ShapeRecord],
) -> Vec<ShownShape> {
    // Past the entry point's or the file's time budget, dimensions not
    // settled by elimination stay symbolic.
    let index = GuardIndex::new(facts);
    let mut views: HashMap<&Guard, PathView<'_, '_>> = HashMap::new();
    // Keyed by place, name and calls; first-seen order kept.
    type Key = (TextRange, Option<String>, Vec<TextRange>);
    let mut places: HashMap<Key, (usize, Vec<Dims>)> = HashMap::new();
    // First the dimensions each path will ask the solver about, asked
    // together (see `solver::forced_many`).
    let mut pending: HashMap<&Guard, Vec<Term>> = HashMap::new();
    for record in records.iter().filter(|r| r.via.is_empty()) {
        let Value::Tensor(shape) = &record.value else {
            continue;
        };
        let view = views
            .entry(&record.guard)
            .or_insert_with(|| PathView::new(analysis, facts, &index, set_aside, &record.guard));
        pending
            .entry(&record.guard)
            .or_default()
            .extend(view.unsettled(shape));
    }
    for (guard, dims) in pending {
        if time_cap::is_up() {
            break;
        }
        if let Some(view) = views.get_mut(guard) {
            view.prefetch(dims);
        }
    }
    for record in records {
        let Value::Tensor(shape) = &record.value else {
            continue;
        };
        let view = views
            .entry(&record.guard)
            .or_insert_with(|| PathView::new(analysis, facts, &index, set_aside, &record.guard));
        let solve = record.via.is_empty() && !time_cap::is_up();
        let dims = view.shape(shape, solve);
        let calls: Vec<TextRange> = record.via.iter().map(|c| c.range).collect();
        let order = places.len();
        let entry = places
            .entry((record.range, record.name.clone(), calls))
            .or_insert((order, Vec::new()));
        if !entry.1.contains(&dims) {
            entry.1.push(dims);
        }
    }
    let mut places: Vec<(Key, (usize, Vec<Dims>))> = places.into_iter().collect();
    places.sort_by_key(|(_, (order, _))| *order);
    let mut shown = Vec::new();
    for ((range, name, calls), (_, all)) in places {
        let fixed = if calls.is_empty() {
            // What holds on every path and iteration that gets here.
            let merged = all.iter().skip(1).fold(all[0].clone(), |m, d| merge(&m, d));
            vec![merged]
        } else if all.iter().all(is_concrete) {
            // One call can reach a place several times with other shapes
            // (the blocks of a `Sequential`): each is shown.
            all
        } else {
            // Some path or iteration of the call leaves it open.
            continue;
        };
        for dims in fixed {
            shown.push(ShownShape {
                name: name.clone(),
                range,
                calls: calls.clone(),
                dims,
            });
        }
    }
    shown
}

/// The facts of one path, solved once for every shape shown on it.
struct PathView<'x, 'a> {
    analysis: &'x Analysis<'a>,
    facts: Vec<SolverFact>,
    /// The facts' independent groups: a dimension is asked of its own.
    partition: Partition,
    eliminated: Option<Eliminated>,
    shown: HashMap<Term, String>,
    /// What the solver said of dimensions asked ahead (`prefetch`).
    forced: HashMap<Term, Forced>,
}

impl<'x, 'a> PathView<'x, 'a> {
    fn new(
        analysis: &'x Analysis<'a>,
        facts: &[Fact],
        index: &GuardIndex<'_>,
        set_aside: &HashSet<usize>,
        guard: &Guard,
    ) -> Self {
        // The facts of the paths this one extends, minus those reported as
        // errors: shapes are shown as if the program were corrected there.
        let literals = index.path(&index.numbers(guard));
        let active =
            (0..facts.len()).filter(|i| !set_aside.contains(i) && index.holds_on(&literals, *i));
        let facts = check::solver_facts(facts, active, guard);
        let eliminated = eliminate(facts.iter().map(|f| (f.id, f.formula.clone()))).ok();
        PathView {
            analysis,
            partition: Partition::new(&facts),
            facts,
            eliminated,
            shown: HashMap::new(),
            forced: HashMap::new(),
        }
    }

    /// The shape's dimensions that elimination leaves symbolic: those
    /// `dim` would ask the solver about.
    fn unsettled(&mut self, shape: &Shape) -> Vec<Term> {
        let Some(dims) = self.dims(shape) else {
            return Vec::new();
        };
        dims.into_iter()
            .filter(|d| !self.shown.contains_key(d) && self.resolve(d).as_const().is_none())
            .collect()
    }

    /// The shape's dimensions, once elimination tells its rank; `None`
    /// for an unknown rank.
    fn dims(&mut self, shape: &Shape) -> Option<Vec<Term>> {
        let shape = match &shape.rest {
            None => shape.clone(),
            Some(rest) => {
                let rank = self.resolve(&Term::rank(rest.base)).as_const()?;
                shape.refine(&|base| (base == rest.base).then_some(rank))
            }
        };
        shape.dims().map(<[Term]>::to_vec)
    }

    /// Asks the solver about `dims` together, per independent group of
    /// facts, until the time budget runs out.
    fn prefetch(&mut self, mut dims: Vec<Term>) {
        dims.sort();
        dims.dedup();
        let mut groups: HashMap<Vec<u32>, (Vec<SolverFact>, Vec<Term>)> = HashMap::new();
        for dim in dims {
            let about = self.partition.facts_about(&self.facts, &dim);
            let key: Vec<u32> = about.iter().map(|f| f.id).collect();
            groups
                .entry(key)
                .or_insert_with(|| (about, Vec::new()))
                .1
                .push(dim);
        }
        for (_, (about, dims)) in groups {
            if time_cap::is_up() {
                return;
            }
            let answers = solver::forced_many(&about, &dims, self.analysis.limits);
            self.forced.extend(dims.into_iter().zip(answers));
        }
    }

    fn resolve(&mut self, term: &Term) -> Term {
        match self.eliminated.as_mut() {
            Some(e) => e.resolve(term).0,
            None => term.clone(),
        }
    }

    /// The shape's dimensions as shown. With `solve`, a dimension that
    /// elimination leaves symbolic is asked of the solver too; without, it
    /// stays symbolic (enough to tell whether a call fixes a shape).
    fn shape(&mut self, shape: &Shape, solve: bool) -> Dims {
        let dims = self.dims(shape)?;
        Some(dims.iter().map(|d| self.dim(d, solve)).collect())
    }

    fn dim(&mut self, dim: &Term, solve: bool) -> String {
        if let Some(known) = self.shown.get(dim) {
            return known.clone();
        }
        let resolved = self.resolve(dim);
        // A choice the path decides (the clamping of a slice `x[1:]` of a
        // dimension the facts keep at least 1) is shown as the branch taken.
        let resolved = if solve && resolved.has_choice() && !time_cap::is_up() {
            self.settle(&resolved)
        } else {
            resolved
        };
        // The program's name for the dimension, else the dimension in terms
        // of what is left after elimination (fewer unknowns).
        let symbolic = |analysis: &Analysis<'_>| match analysis.term_name(dim) {
            Some(name) => name,
            None => display::term(analysis, &resolved),
        };
        let text = match resolved.as_const() {
            Some(value) => value.to_string(),
            None if solve => match self.forced.get(dim).cloned().unwrap_or_else(|| {
                solver::forced(
                    &self.partition.facts_about(&self.facts, dim),
                    dim,
                    self.analysis.limits,
                )
            }) {
                Forced::Value(value) => value.to_string(),
                _ => symbolic(self.analysis),
            },
            None => symbolic(self.analysis),
        };
        if solve {
            self.shown.insert(dim.clone(), text.clone());
        }
        text
    }

    /// `term` with each choice whose condition the path's facts decide
    /// replaced by the branch taken.
    fn settle(&mut self, term: &Term) -> Term {
        match term {
            Term::Ite(condition, then, otherwise) => {
                let facts = self.partition.facts_about(&self.facts, term);
                let limits = self.analysis.limits;
                let implied = |formula: Formula| {
                    let mut asked = facts.clone();
                    asked.push(SolverFact {
                        id: u32::MAX,
                        formula: Formula::not(&formula),
                    });
                    matches!(solver::check_unminimized(&asked, limits), Outcome::Unsat(_))
                };
                if implied((**condition).clone()) {
                    self.settle(then)
                } else if implied(Formula::not(condition)) {
                    self.settle(otherwise)
                } else {
                    term.clone()
                }
            }
            Term::Add(parts) => Term::sum(parts.iter().map(|part| self.settle(part))),
            Term::Mul(a, b) => Term::mul(&self.settle(a), &self.settle(b)),
            Term::Div(a, b) => Term::div(&self.settle(a), &self.settle(b)),
            Term::Rem(a, b) => Term::rem(&self.settle(a), &self.settle(b)),
            Term::Const(_) | Term::Var(_) | Term::Rank(_) | Term::Dim(..) => term.clone(),
        }
    }
}
