//! Index notation (LANGUAGE.md §7): `let A[i, j] = B[i, j, k] * C[k]`,
//! `var A[i] = …`, `A[j] += …`, with `sum/prod/max/min(k) …` and
//! `sum(k in a..b) …`.
//!
//! Each index variable ranges over one extent: its explicit range if it has
//! one, else the extent of the first dimension it indexes, in source order
//! (as MLIR's `linalg` derives loop bounds from indexing maps). Every other
//! dimension it indexes must have that extent. That equality is required
//! like any precondition: provably false is an error at the index, and in
//! a function it becomes a requirement on the callers; where nothing proves
//! it, [`bound_warnings`] warns that the kernel may read out of bounds.
//! Indices that appear only on the right are summed (TACO's convention).
//! The result's shape is the extents of the left-hand indices, in order.

use std::borrow::Cow;

use tensorfit_base::{Code, Diagnostic, TextRange};
use tensorfit_solver::{self as solver, Fact as SolverFact, Formula, Outcome, Term};
use tensorfit_syntax::ast::{self, ExprKind};

use super::analysis::Analysis;
use super::check::{solver_facts, EntryOutcome};
use super::describe::describe;
use super::exec::Frame;
use super::fact::{Explain, Fact, FactKind};
use super::value::{Shape, Value};

/// One index variable of a statement and what fixed its extent.
struct Index {
    name: String,
    extent: Option<Term>,
    /// Where the extent comes from, in the program's terms: `B.shape[2]`,
    /// `the range 0..h`.
    origin: String,
}

/// The index variables of one statement; a reduction's own indices are
/// pushed for its body and popped after it.
#[derive(Default)]
struct Indices {
    all: Vec<Index>,
    /// A tensor of unknown rank was indexed: an index without an extent
    /// may have got one from it.
    incomplete: bool,
}

impl Indices {
    fn get(&self, name: &str) -> Option<&Index> {
        self.all.iter().rev().find(|i| i.name == name)
    }
}

/// The left side of an index-notation statement.
pub struct Target<'e> {
    pub indices: Cow<'e, [ast::Name]>,
    /// The tensor accumulated into (`A[j] += …`) and its name, whose
    /// dimensions the left-hand indices index first.
    pub existing: Option<(Shape, String)>,
}

impl Frame<'_, '_> {
    /// `A[i, j]` on the left of an assignment, when `A` is a tensor and
    /// every subscript a bare name: index notation (docs/language.md).
    pub fn kernel_target(&self, target: &ast::Expr) -> Option<Target<'static>> {
        let ExprKind::Subscript { value, indices } = &target.kind else {
            return None;
        };
        let name = value.as_name()?;
        let Value::Tensor(shape) = self.bound_value(name)? else {
            return None;
        };
        let all_indices = indices.iter().all(|i| matches!(&i.kind, ExprKind::Name(_)));
        if !all_indices {
            return None;
        }
        let names: Vec<ast::Name> = indices
            .iter()
            .filter_map(|i| match &i.kind {
                ExprKind::Name(n) => Some(ast::Name {
                    text: n.clone(),
                    range: i.range,
                }),
                _ => None,
            })
            .collect();
        Some(Target {
            indices: Cow::Owned(names),
            existing: Some((shape.clone(), name.to_owned())),
        })
    }

    /// The shape an index-notation statement defines (or keeps, for an
    /// accumulation), after checking every extent of its right side.
    pub fn index_statement(&mut self, target: Target<'_>, value: &ast::Expr) -> Value {
        let mut indices = Indices::default();
        for (k, name) in target.indices.iter().enumerate() {
            if target.indices[..k].iter().any(|n| n.text == name.text) {
                // The name checks report the repeated declaration.
                return Value::Unknown;
            }
            indices.all.push(Index {
                name: name.text.clone(),
                extent: None,
                origin: String::new(),
            });
        }
        if let Some((shape, text)) = &target.existing {
            let names: Vec<Option<(String, TextRange)>> = target
                .indices
                .iter()
                .map(|n| Some((n.text.clone(), n.range)))
                .collect();
            self.indexed(&mut indices, shape, text, &names);
        }
        self.kernel_expr(&mut indices, value);
        let mut extents = Vec::new();
        for name in target.indices.iter() {
            match indices.get(&name.text).and_then(|i| i.extent.clone()) {
                Some(extent) => {
                    self.record(&name.text, name.range, &Value::Int(extent.clone()));
                    extents.push(extent);
                }
                None if indices.incomplete => return Value::Unknown,
                None => {
                    self.refuse(
                        name.range,
                        format!(
                            "index `{}` indexes no dimension on the right and has no range: its extent is unknown",
                            name.text
                        ),
                    );
                    return Value::Unknown;
                }
            }
        }
        match target.existing {
            Some((shape, _)) => Value::Tensor(shape),
            None => Value::Tensor(Shape::known(extents)),
        }
    }

    /// Walks the right side: subscripts by index variables fix or check
    /// extents; everything else is evaluated as usual. Element values are
    /// scalars.
    fn kernel_expr(&mut self, indices: &mut Indices, expr: &ast::Expr) -> Value {
        match &expr.kind {
            ExprKind::Subscript {
                value,
                indices: subscripts,
            } => {
                // A bare name as a whole subscript is an index variable,
                // even if a variable of that name exists outside (a decision
                // of docs/language.md); other subscripts are ordinary
                // expressions (`B[i, 0, k]`).
                let names: Vec<Option<(String, TextRange)>> = subscripts
                    .iter()
                    .map(|s| match &s.kind {
                        ExprKind::Name(n) => Some((n.clone(), s.range)),
                        _ => None,
                    })
                    .collect();
                if names.iter().all(Option::is_none) {
                    return self.expr(expr);
                }
                if subscripts.iter().any(ast::Expr::is_index_only) {
                    self.require(
                        Formula::truth(false),
                        FactKind::Precondition,
                        expr.range,
                        Explain::Text {
                            template: NO_SLICES_IN_KERNELS.to_owned(),
                            terms: vec![],
                        },
                    );
                    return Value::Unknown;
                }
                for (subscript, name) in subscripts.iter().zip(&names) {
                    if name.is_none() {
                        self.expr(subscript);
                    }
                }
                match self.expr(value).tensor_shape() {
                    Some(shape) => self.indexed(indices, &shape, &describe(value), &names),
                    None => indices.incomplete = true,
                }
                Value::Float(None)
            }
            ExprKind::Reduction { op, bindings, body } => {
                let before = indices.all.len();
                for binding in bindings {
                    let (extent, origin) = match &binding.range {
                        Some((start, end)) => {
                            let (Some(a), Some(b)) = (
                                self.expr(start).as_int().cloned(),
                                self.expr(end).as_int().cloned(),
                            ) else {
                                // Not integers: the index takes its extent
                                // from what it indexes.
                                indices.all.push(Index {
                                    name: binding.index.text.clone(),
                                    extent: None,
                                    origin: String::new(),
                                });
                                continue;
                            };
                            let extent = Term::sub(&b, &a);
                            let empty_is_wrong =
                                matches!(op, ast::ReductionOp::Max | ast::ReductionOp::Min);
                            let least = Term::int(i64::from(empty_is_wrong));
                            let range_text = format!("{}..{}", describe(start), describe(end));
                            self.require(
                                Formula::ge(&extent, &least),
                                FactKind::Precondition,
                                binding.index.range,
                                Explain::Text {
                                    template: format!(
                                        "the range `{} in {range_text}` has {{}} elements{}",
                                        binding.index.text,
                                        if empty_is_wrong {
                                            ": the reduction is empty"
                                        } else {
                                            ""
                                        }
                                    ),
                                    terms: vec![extent.clone()],
                                },
                            );
                            (Some(extent), format!("the extent of {range_text}"))
                        }
                        None => (None, String::new()),
                    };
                    if let Some(extent) = &extent {
                        self.record(
                            &binding.index.text,
                            binding.index.range,
                            &Value::Int(extent.clone()),
                        );
                    }
                    indices.all.push(Index {
                        name: binding.index.text.clone(),
                        extent,
                        origin,
                    });
                }
                self.kernel_expr(indices, body);
                // The body's own indices without a range got their extent
                // from it: show it at the binding too.
                for (binding, index) in bindings.iter().zip(&indices.all[before..]) {
                    if binding.range.is_none() {
                        if let Some(extent) = &index.extent {
                            self.record(
                                &binding.index.text,
                                binding.index.range,
                                &Value::Int(extent.clone()),
                            );
                        }
                    }
                }
                indices.all.truncate(before);
                Value::Float(None)
            }
            ExprKind::Binary { lhs, rhs, .. } => {
                let (a, b) = (
                    self.kernel_expr(indices, lhs),
                    self.kernel_expr(indices, rhs),
                );
                match (a, b) {
                    (Value::Int(_), Value::Int(_)) => self.expr(expr),
                    _ => Value::Float(None),
                }
            }
            ExprKind::Unary { operand, .. } => {
                self.kernel_expr(indices, operand);
                Value::Float(None)
            }
            // Element-wise functions of elements (`exp(B[i, j])`).
            ExprKind::Call { args, .. } => {
                for arg in args {
                    self.kernel_expr(indices, &arg.value);
                }
                Value::Float(None)
            }
            _ => self.expr(expr),
        }
    }

    /// `tensor[names…]`: the rank must be the number of indices; each
    /// index takes the dimension's extent if it has none yet, else requires
    /// it.
    fn indexed(
        &mut self,
        indices: &mut Indices,
        shape: &Shape,
        text: &str,
        names: &[Option<(String, TextRange)>],
    ) {
        let shape = self.refine_shape(shape);
        let Some(dims) = shape.dims().map(<[Term]>::to_vec) else {
            // Unknown rank: the number of indices is the rank PyTorch's
            // indexing would need, a fact for the callers (and for a
            // migration's example); the extents learn nothing.
            indices.incomplete = true;
            let range = names_range(names);
            self.require(
                Formula::eq(&shape.rank(), &Term::int(names.len() as i64)),
                FactKind::Precondition,
                range,
                Explain::Text {
                    template: format!(
                        "`{text}` has rank {{}} but is indexed with {}",
                        count_indices(names.len())
                    ),
                    terms: vec![shape.rank()],
                },
            );
            return;
        };
        if dims.len() != names.len() {
            // Its indices learn nothing from it.
            indices.incomplete = true;
            self.refuse(
                names_range(names),
                format!(
                    "`{text}` has rank {} but is indexed with {}",
                    dims.len(),
                    count_indices(names.len())
                ),
            );
            return;
        }
        for (p, (name, dim)) in names.iter().zip(&dims).enumerate() {
            let Some((name, range)) = name else {
                continue;
            };
            let here = format!("{text}.shape[{p}]");
            let slot = match indices.all.iter().rposition(|i| &i.name == name) {
                Some(slot) => slot,
                None => {
                    // Only on the right and not bound: summed.
                    indices.all.push(Index {
                        name: name.clone(),
                        extent: None,
                        origin: String::new(),
                    });
                    indices.all.len() - 1
                }
            };
            let index = &mut indices.all[slot];
            match index.extent.clone() {
                None => {
                    index.extent = Some(dim.clone());
                    index.origin = here;
                }
                Some(extent) => {
                    let origin = index.origin.clone();
                    let before = self.facts.len();
                    self.require(
                        Formula::eq(&extent, dim),
                        FactKind::Precondition,
                        *range,
                        Explain::Equal {
                            what: format!(
                                "index `{name}` ranges over dimensions of different extents"
                            ),
                            left: (origin, extent),
                            right: (here, dim.clone()),
                        },
                    );
                    // An assumption (while constructing) is not the kernel's.
                    if self.facts.len() > before
                        && self.facts[before].kind == FactKind::Precondition
                    {
                        self.kernel_bounds.push(before);
                    }
                }
            }
        }
    }

    /// An error that holds whatever the shapes: a malformed kernel.
    fn refuse(&mut self, range: TextRange, message: String) {
        self.require(
            Formula::truth(false),
            FactKind::Precondition,
            range,
            Explain::Text {
                template: message,
                terms: vec![],
            },
        );
    }
}

/// The span of a tensor's index names, for a message about all of them.
fn names_range(names: &[Option<(String, TextRange)>]) -> TextRange {
    let ranges: Vec<TextRange> = names.iter().flatten().map(|n| n.1).collect();
    TextRange::new(
        ranges.first().map_or(0, |r| r.start as usize),
        ranges.last().map_or(0, |r| r.end as usize),
    )
}

fn count_indices(n: usize) -> String {
    format!("{n} {}", if n == 1 { "index" } else { "indices" })
}

/// Warnings for the extent equalities of this entry point's own kernels
/// that no error refuted but nothing proves either: on some input that
/// satisfies everything else, the kernel reads out of bounds. Also the
/// indices of those facts: shapes are shown without them (the kernel's
/// result is not shown as if its extents were known to be equal).
pub fn bound_warnings(
    analysis: &Analysis<'_>,
    facts: &[Fact],
    outcome: &EntryOutcome,
    bounds: &[usize],
) -> (Vec<Diagnostic>, Vec<usize>) {
    let mut warnings: Vec<Diagnostic> = Vec::new();
    let mut unproven = Vec::new();
    for &i in bounds {
        if outcome.set_aside.contains(&i) {
            continue;
        }
        let fact = &facts[i];
        let Explain::Equal { what, left, right } = &fact.explain else {
            continue;
        };
        let may_fail = outcome.consistent.iter().any(|(path, holding)| {
            if !holding.contains(&i) {
                return false;
            }
            let mut query: Vec<SolverFact> =
                solver_facts(facts, holding.iter().copied().filter(|k| *k != i), path);
            query.push(SolverFact {
                // Not a fact's index nor a path literal's.
                id: u32::MAX - 1,
                formula: Formula::not(&fact.formula),
            });
            solver::check(&query, analysis.limits) == Outcome::Sat
        });
        if !may_fail {
            continue;
        }
        unproven.push(i);
        if !warnings.iter().any(|w| w.range == fact.range) {
            let index = what
                .strip_prefix("index ")
                .and_then(|w| w.split(' ').next())
                .unwrap_or("an index");
            warnings.push(Diagnostic::new(
                Code::PossibleOutOfBounds,
                fact.range,
                format!(
                    "index {index} ranges over {} but also indexes {}, and nothing proves them equal: the kernel may read out of bounds",
                    left.0, right.0
                ),
            ));
        }
    }
    (warnings, unproven)
}

/// Index notation computes one number per point: a subscript with index
/// variables names one element, so it cannot also slice.
const NO_SLICES_IN_KERNELS: &str =
    "in index notation a subscript takes index variables and `Int` positions, not slices, `...` or `None`";
