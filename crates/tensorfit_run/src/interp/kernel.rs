//! Index notation (LANGUAGE.md §7, docs/kernels.md) run as loops.
//!
//! Each index ranges over its explicit range, else over the extent of the
//! first dimension it indexes; every other dimension it indexes must have
//! that extent (a run-time failure otherwise, as statically). Indices only
//! on the right are summed.

use ndarray::{ArrayD, Dimension, IxDyn};
use tensorfit_syntax::ast::{AssignOp, Expr, ExprKind, FieldName, Pattern, ReductionOp};

use super::{Frame, Interpreter};
use crate::error::{Failure, Outcome};
use crate::value::Value;

/// One use of an index as a whole subscript of a tensor.
struct Occurrence {
    index: String,
    extent: i64,
    /// `B.shape[2]`, for messages.
    dimension: String,
}

impl Interpreter<'_> {
    /// `let A[i, j] = rhs` (or `var`): the new tensor.
    pub(crate) fn kernel_define(
        &mut self,
        frame: &mut Frame,
        pattern: &Pattern,
        rhs: &Expr,
    ) -> Outcome<Value> {
        let Pattern::Index { indices, .. } = pattern else {
            unreachable!("called on an index pattern");
        };
        let lhs: Vec<String> = indices.iter().map(|n| n.text.clone()).collect();
        let result = self.kernel(frame, &lhs, Vec::new(), rhs)?;
        Ok(Value::tensor(result))
    }

    /// `A[i, j] += rhs` or `A[i, j] = rhs` into an existing `var`.
    pub(crate) fn kernel_update(
        &mut self,
        frame: &mut Frame,
        target: &Expr,
        op: AssignOp,
        rhs: &Expr,
    ) -> Outcome<()> {
        let ExprKind::Subscript { value, indices } = &target.kind else {
            unreachable!("called on a subscript");
        };
        let Some(name) = value.as_name() else {
            return Err(Failure::program("index notation assigns to a named tensor"));
        };
        let current = self.read_name(frame, name)?;
        let Value::Tensor(old) = current else {
            return Err(Failure::shape(format!(
                "`{name}` is {}, not a tensor",
                current.describe()
            )));
        };
        let mut lhs = Vec::new();
        for index in indices {
            match index.as_name() {
                Some(i) => lhs.push(i.to_owned()),
                None => {
                    return Err(Failure::program(
                        "the left of index notation is indexed by names",
                    ))
                }
            }
        }
        if lhs.len() != old.ndim() {
            return Err(Failure::shape(format!(
                "`{name}` has rank {} but is indexed with {} indices",
                old.ndim(),
                lhs.len()
            )));
        }
        // The left-hand side's dimensions come first.
        let seeded: Vec<Occurrence> = lhs
            .iter()
            .enumerate()
            .map(|(i, index)| Occurrence {
                index: index.clone(),
                extent: old.shape()[i] as i64,
                dimension: format!("{name}.shape[{i}]"),
            })
            .collect();
        let computed = self.kernel(frame, &lhs, seeded, rhs)?;
        let new = match op {
            AssignOp::AddAssign => &*old + &computed,
            AssignOp::Assign => computed,
        };
        let new = Value::tensor(new);
        self.record_binding(frame, target.range, &new);
        match frame.lookup_mut(name) {
            Some(slot) if slot.mutable => slot.value = Some(new),
            _ => {
                return Err(Failure::program(format!(
                    "`{name}` cannot be assigned: it is not a `var`"
                )))
            }
        }
        Ok(())
    }

    fn kernel(
        &mut self,
        frame: &mut Frame,
        lhs: &[String],
        mut occurrences: Vec<Occurrence>,
        rhs: &Expr,
    ) -> Outcome<ArrayD<f32>> {
        self.occurrences(frame, rhs, &[], &mut occurrences)?;
        let extents = check_extents(&occurrences)?;
        let extent_of = |index: &str| extents.iter().find(|(i, _)| i == index).map(|(_, e)| *e);
        let mut shape = Vec::new();
        for index in lhs {
            let Some(extent) = extent_of(index) else {
                return Err(Failure::shape(format!(
                    "index `{index}` indexes nothing on the right and has no range: its extent is unknown"
                )));
            };
            shape.push(usize::try_from(extent).unwrap_or(0));
        }
        let summed: Vec<(String, i64)> = extents
            .iter()
            .filter(|(i, _)| !lhs.contains(i))
            .cloned()
            .collect();
        self.ops.check_size(&shape)?;
        let mut result = ArrayD::<f32>::zeros(IxDyn(&shape));
        let points: Vec<Vec<usize>> = result
            .indexed_iter()
            .map(|(i, _)| i.slice().to_vec())
            .collect();
        for point in points {
            frame.push_scope();
            for (index, at) in lhs.iter().zip(&point) {
                frame.define(index, Some(Value::Int(*at as i64)), false, None);
            }
            let ranges: Vec<(String, i64, i64)> =
                summed.iter().map(|(i, e)| (i.clone(), 0, *e)).collect();
            let total = self.fold(frame, &ranges, ReductionOp::Sum, rhs);
            frame.pop_scope();
            result[IxDyn(&point)] = total?.1 as f32;
        }
        Ok(result)
    }

    /// `sum(k in 0..h) body` and the others, anywhere.
    pub(crate) fn reduction(&mut self, frame: &mut Frame, e: &Expr) -> Outcome<Value> {
        let ExprKind::Reduction { op, bindings, body } = &e.kind else {
            unreachable!("called on a reduction");
        };
        let own: Vec<String> = bindings.iter().map(|b| b.index.text.clone()).collect();
        let mut occurrences = Vec::new();
        self.occurrences_of(frame, body, &own, &[], &mut occurrences)?;
        let mut ranges = Vec::new();
        for binding in bindings {
            let name = &binding.index.text;
            let mine: Vec<&Occurrence> = occurrences.iter().filter(|o| &o.index == name).collect();
            match &binding.range {
                Some((start, end)) => {
                    let start = self.int(frame, start)?;
                    let end = self.int(frame, end)?;
                    if end < start {
                        return Err(Failure::shape(format!(
                            "the range {start}..{end} of `{name}` has fewer than zero elements"
                        )));
                    }
                    if let Some(o) = mine.iter().find(|o| o.extent != end - start) {
                        return Err(Failure::shape(format!(
                            "index `{name}` ranges over {start}..{end}, {} values, but {} = {}",
                            end - start,
                            o.dimension,
                            o.extent
                        )));
                    }
                    ranges.push((name.clone(), start, end));
                }
                None => {
                    let extents = check_extents_of(name, &mine)?;
                    let Some(extent) = extents else {
                        return Err(Failure::shape(format!(
                            "index `{name}` indexes nothing and has no range: its extent is unknown"
                        )));
                    };
                    ranges.push((name.clone(), 0, extent));
                }
            }
        }
        let (all_int, total) = self.fold(frame, &ranges, *op, body)?;
        Ok(if all_int {
            Value::Int(total as i64)
        } else {
            Value::Float(total)
        })
    }

    /// Combines `body` over every point of `ranges` with `op`. Gives
    /// whether every value was an `Int`, and the result.
    fn fold(
        &mut self,
        frame: &mut Frame,
        ranges: &[(String, i64, i64)],
        op: ReductionOp,
        body: &Expr,
    ) -> Outcome<(bool, f64)> {
        let mut total: Option<f64> = None;
        let mut all_int = true;
        let mut point: Vec<i64> = ranges.iter().map(|(_, start, _)| *start).collect();
        if ranges.iter().any(|(_, start, end)| end <= start) {
            return match op {
                ReductionOp::Sum => Ok((true, 0.0)),
                ReductionOp::Prod => Ok((true, 1.0)),
                ReductionOp::Max | ReductionOp::Min => Err(Failure::shape(format!(
                    "`{}` over an empty range has no value",
                    if op == ReductionOp::Max { "max" } else { "min" }
                ))),
            };
        }
        loop {
            self.step()?;
            frame.push_scope();
            for ((name, _, _), at) in ranges.iter().zip(&point) {
                frame.define(name, Some(Value::Int(*at)), false, None);
            }
            let value = self.eval(frame, body);
            frame.pop_scope();
            let value = value?;
            let (is_int, x) = match value {
                Value::Int(i) => (true, i as f64),
                Value::Bool(b) => (true, f64::from(u8::from(b))),
                Value::Float(f) => (false, f),
                Value::Tensor(t) if t.len() == 1 => {
                    (false, f64::from(*t.iter().next().unwrap_or(&0.0)))
                }
                other => {
                    return Err(Failure::shape(format!(
                        "index notation computes one number per point, but `{}` is {}",
                        self.text(frame.file, body.range),
                        other.describe()
                    )))
                }
            };
            all_int &= is_int;
            total = Some(match (total, op) {
                (None, _) => x,
                (Some(t), ReductionOp::Sum) => t + x,
                (Some(t), ReductionOp::Prod) => t * x,
                (Some(t), ReductionOp::Max) => t.max(x),
                (Some(t), ReductionOp::Min) => t.min(x),
            });
            // The next point, last index fastest.
            let mut d = ranges.len();
            loop {
                if d == 0 {
                    return Ok((all_int, total.unwrap_or(0.0)));
                }
                d -= 1;
                point[d] += 1;
                if point[d] < ranges[d].2 {
                    break;
                }
                point[d] = ranges[d].1;
            }
        }
    }

    /// The index occurrences in `e`, outside reductions that bind them.
    fn occurrences(
        &mut self,
        frame: &mut Frame,
        e: &Expr,
        shadowed: &[String],
        out: &mut Vec<Occurrence>,
    ) -> Outcome<()> {
        self.walk_occurrences(frame, e, None, shadowed, out)
    }

    /// The occurrences of `only` names in `e`.
    fn occurrences_of(
        &mut self,
        frame: &mut Frame,
        e: &Expr,
        only: &[String],
        shadowed: &[String],
        out: &mut Vec<Occurrence>,
    ) -> Outcome<()> {
        self.walk_occurrences(frame, e, Some(only), shadowed, out)
    }

    fn walk_occurrences(
        &mut self,
        frame: &mut Frame,
        e: &Expr,
        only: Option<&[String]>,
        shadowed: &[String],
        out: &mut Vec<Occurrence>,
    ) -> Outcome<()> {
        match &e.kind {
            ExprKind::Subscript { value, indices } if !is_shape_like(value) => {
                let base = match &value.kind {
                    ExprKind::Name(_) | ExprKind::Field { .. } | ExprKind::SelfValue => {
                        self.eval(frame, value).ok()
                    }
                    _ => None,
                };
                if let Some(Value::Tensor(t)) = base {
                    let indexed = indices.iter().any(|i| i.as_name().is_some());
                    if indexed && indices.iter().any(Expr::is_index_only) {
                        return Err(Failure::program(
                            "index notation names one element per point: its subscripts cannot slice",
                        ));
                    }
                    for (position, index) in indices.iter().enumerate() {
                        let Some(name) = index.as_name() else {
                            self.walk_occurrences(frame, index, only, shadowed, out)?;
                            continue;
                        };
                        let wanted = only.is_none_or(|o| o.iter().any(|n| n == name));
                        if shadowed.iter().any(|s| s == name) || !wanted {
                            continue;
                        }
                        if let Some(extent) = t.shape().get(position) {
                            out.push(Occurrence {
                                index: name.to_owned(),
                                extent: *extent as i64,
                                dimension: format!(
                                    "{}.shape[{position}]",
                                    self.text(frame.file, value.range)
                                ),
                            });
                        }
                    }
                    return Ok(());
                }
                self.walk_occurrences(frame, value, only, shadowed, out)?;
                for index in indices {
                    self.walk_occurrences(frame, index, only, shadowed, out)?;
                }
                Ok(())
            }
            ExprKind::Reduction { bindings, body, .. } => {
                let mut inner = shadowed.to_vec();
                inner.extend(bindings.iter().map(|b| b.index.text.clone()));
                self.walk_occurrences(frame, body, only, &inner, out)
            }
            _ => {
                for child in e.children() {
                    self.walk_occurrences(frame, child, only, shadowed, out)?;
                }
                Ok(())
            }
        }
    }
}

/// Subscripts of `x.shape` and `x.size()` are ordinary expressions.
fn is_shape_like(value: &Expr) -> bool {
    match &value.kind {
        ExprKind::Field {
            field: FieldName::Named(name),
            ..
        } => name.text == "shape",
        ExprKind::Call { callee, .. } => {
            matches!(
                &callee.kind,
                ExprKind::Field { field: FieldName::Named(name), .. } if name.text == "size"
            ) || callee.as_name() == Some("size")
        }
        _ => false,
    }
}

/// Each index's extent (its first occurrence), after checking that every
/// other occurrence agrees.
fn check_extents(occurrences: &[Occurrence]) -> Outcome<Vec<(String, i64)>> {
    let mut extents: Vec<(String, i64)> = Vec::new();
    for o in occurrences {
        if extents.iter().any(|(i, _)| *i == o.index) {
            continue;
        }
        let mine: Vec<&Occurrence> = occurrences.iter().filter(|x| x.index == o.index).collect();
        if let Some(extent) = check_extents_of(&o.index, &mine)? {
            extents.push((o.index.clone(), extent));
        }
    }
    Ok(extents)
}

fn check_extents_of(index: &str, mine: &[&Occurrence]) -> Outcome<Option<i64>> {
    let Some(first) = mine.first() else {
        return Ok(None);
    };
    if let Some(other) = mine.iter().find(|o| o.extent != first.extent) {
        return Err(Failure::shape(format!(
            "index `{index}` ranges over dimensions of different extents: {} = {} but {} = {}",
            first.dimension, first.extent, other.dimension, other.extent
        )));
    }
    Ok(Some(first.extent))
}
