//! Shape holes (LANGUAGE.md §9; section 3.8 of Tensors Fitting
//! Perfectly): each `__` is one unknown constant of the program, shared by
//! every path and call that reaches it.
//!
//! Every path that can run (in any entry point) and mentions a hole adds its
//! facts, copied apart from the other paths so that they share only the
//! holes: each path is a different run of the program, with its own values,
//! and the hole must fit all of them. The facts errors were reported at are
//! left out everywhere (by function and place), so an error elsewhere does
//! not stop hole filling. Holes whose facts are linked (through a path that
//! mentions both) are solved together.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Instant;

use tensorfit_base::TextRange;
use tensorfit_solver::components::Partition;
use tensorfit_solver::{self as solver, Fact as SolverFact, Formula, Term, ValueRange, VarId};

use super::analysis::Analysis;
use super::fact::{Fact, Guard};
use super::ranges::{MapRanges, RangeMap};
use super::substitution::Substitution;
use super::vars::is_hole;

/// Where a fact is stated: the function (`None`: the script) and the place.
pub type Place = (Option<String>, TextRange);

/// One part of a claim (see [`Fact::part`]) at its place.
pub type ClaimPart = (Place, u32);

/// The facts of one path that can run, kept because some mention a hole.
#[derive(Clone, Debug, PartialEq)]
pub struct HolePath {
    facts: Vec<(Place, Formula)>,
    guard: Guard,
}

/// What is known of one hole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HoleSolution {
    pub range: TextRange,
    pub values: ValueRange,
}

fn holes_in(formula: &Formula, found: &mut Vec<VarId>) {
    formula.visit_atoms(&mut |atom| {
        if let Term::Var(v) = atom {
            if is_hole(*v) && !found.contains(v) {
                found.push(*v);
            }
        }
    });
}

/// The paths of an entry point that mention a hole, with their facts.
pub fn paths_with_holes(facts: &[Fact], consistent: &[(Guard, Vec<usize>)]) -> Vec<HolePath> {
    let mut result = Vec::new();
    for (guard, active) in consistent {
        let mut found = Vec::new();
        for i in active {
            holes_in(&facts[*i].formula, &mut found);
        }
        if found.is_empty() {
            continue;
        }
        result.push(HolePath {
            facts: active
                .iter()
                .map(|i| {
                    let f = &facts[*i];
                    ((f.function.clone(), f.range), f.formula.clone())
                })
                .collect(),
            guard: guard.clone(),
        });
    }
    result
}

/// Solves every hole of the file. `evaluated` are the holes some analysis
/// reached; `set_aside` holds the places errors were reported at, in any
/// entry point.
pub fn solve(
    analysis: &Analysis<'_>,
    ranges: &[TextRange],
    evaluated: &BTreeMap<TextRange, VarId>,
    paths: &[HolePath],
    set_aside: &HashSet<Place>,
    deadline: Instant,
) -> Vec<HoleSolution> {
    let vars = evaluated;
    let hole_set: HashSet<VarId> = vars.values().copied().collect();
    let facts = copied_apart(analysis, paths, set_aside, &hole_set);
    // The copies share only holes, so the components of their facts are
    // exactly the groups of holes that must be solved together.
    let partition = Partition::new(&facts);
    let mut settled_groups: HashMap<u32, Settled> = HashMap::new();
    ranges
        .iter()
        .map(|range| {
            let values = match vars.get(range) {
                // Never evaluated (e.g. in a struct nothing builds):
                // nothing constrains it.
                None => ValueRange::Range {
                    min: None,
                    max: None,
                    examples: Vec::new(),
                },
                Some(var) => {
                    let hole = Term::var(*var);
                    let group = partition.facts_about(&facts, &hole);
                    match group.first().map(|f| f.id) {
                        None => solver::value_range(&[], &hole, analysis.limits, deadline),
                        Some(key) => {
                            let settled = settled_groups
                                .entry(key)
                                .or_insert_with(|| settle(analysis, group, deadline));
                            if settled.conflicting.contains(var) {
                                ValueRange::Empty
                            } else if settled.undecided {
                                ValueRange::Unknown
                            } else {
                                let mine = settled.partition.facts_about(&settled.facts, &hole);
                                solver::value_range(&mine, &hole, analysis.limits, deadline)
                            }
                        }
                    }
                }
            };
            HoleSolution {
                range: *range,
                values,
            }
        })
        .collect()
}

/// The facts of a group of holes once the conflicts between paths are
/// taken out.
struct Settled {
    facts: Vec<SolverFact>,
    partition: Partition,
    /// Holes no value of which fits every path.
    conflicting: HashSet<VarId>,
    /// The solver could not tell whether the paths agree.
    undecided: bool,
}

/// Conflicts are cores spanning several paths (each path can run on its
/// own), joined by holes. Each core's holes have no fitting value; its
/// facts are taken out so that the other holes can still be solved.
fn settle(analysis: &Analysis<'_>, mut facts: Vec<SolverFact>, deadline: Instant) -> Settled {
    /// Conflicts looked for before giving up on a group.
    const MAX_CONFLICTS: usize = 16;
    let mut conflicting = HashSet::new();
    for _ in 0..MAX_CONFLICTS {
        if Instant::now() > deadline {
            break;
        }
        match solver::check(&facts, analysis.limits) {
            solver::Outcome::Sat => {
                return Settled {
                    partition: Partition::new(&facts),
                    facts,
                    conflicting,
                    undecided: false,
                }
            }
            solver::Outcome::Unknown => break,
            solver::Outcome::Unsat(core) => {
                let mut found = Vec::new();
                for fact in facts.iter().filter(|f| core.contains(&f.id)) {
                    holes_in(&fact.formula, &mut found);
                }
                conflicting.extend(found);
                facts.retain(|f| !core.contains(&f.id));
            }
        }
    }
    Settled {
        partition: Partition::new(&facts),
        facts,
        conflicting,
        undecided: true,
    }
}

/// The facts of every path (minus those set aside), each path renamed
/// apart from the others except for the holes.
fn copied_apart(
    analysis: &Analysis<'_>,
    paths: &[HolePath],
    set_aside: &HashSet<Place>,
    holes: &HashSet<VarId>,
) -> Vec<SolverFact> {
    let mut facts = Vec::new();
    for path in paths {
        let mut renaming = Substitution::apart_from(holes.clone());
        let formulas = path
            .facts
            .iter()
            .filter(|(place, _)| !set_aside.contains(place))
            .map(|(_, f)| f)
            .chain(path.guard.iter());
        for formula in formulas {
            facts.push(SolverFact {
                id: facts.len() as u32,
                formula: renaming.formula(formula, &analysis.vars),
            });
        }
    }
    facts
}

impl MapRanges for HolePath {
    fn map_ranges(&mut self, map: &mut RangeMap<'_>) {
        for ((_, range), _) in &mut self.facts {
            range.map_ranges(map);
        }
    }
}
