//! Subscripts with PyTorch's basic indexing (LANGUAGE.md §4): `x[0]`,
//! `x[:, 1:3]`, `x[..., :t]`, `x[:, None]`, `x[::2]`, and the same on
//! shapes, lists and tuples (`x.shape[1:]`).
//!
//! An integer index removes its dimension and must be in range; a slice
//! keeps it with Python's clamped length; `None` inserts a dimension of 1;
//! `...` stands for every dimension no other index takes. A tensor used as
//! an index (advanced indexing) gives an unknown result: its shape depends
//! on values.

use tensorfit_base::{slice_positions, TextRange};
use tensorfit_solver::{Formula, Term};
use tensorfit_syntax::ast::{self, ExprKind};

use super::Frame;
use crate::shapes::fact::{Explain, FactKind};
use crate::shapes::value::{item_position, Layer, Shape, Value};

/// One index between the brackets, evaluated.
enum Index {
    /// An `Int`: selects one position and removes the dimension.
    At(Term),
    /// `start:stop:step`; a missing part is `None`.
    Slice {
        start: Option<Term>,
        stop: Option<Term>,
        step: Option<Term>,
    },
    Ellipsis,
    NewAxis,
    /// A list of `Int`s (`x[:, [-1], :]`): PyTorch's advanced indexing
    /// keeps the dimension, with one position per item.
    Select(i64),
    /// A tensor, a `Bool` or a value nothing is known of.
    Opaque,
}

impl Index {
    /// Whether the index uses up a dimension of the indexed tensor.
    fn consumes(&self) -> bool {
        matches!(self, Index::At(_) | Index::Slice { .. } | Index::Select(_))
    }
}

impl<'f, 'a> Frame<'f, 'a> {
    pub(super) fn subscript(
        &mut self,
        value: &Value,
        indices: &[ast::Expr],
        subject: String,
        range: TextRange,
    ) -> Value {
        if let (Value::Instance(record), [key]) = (value, indices) {
            // A dict of modules by key (`self.branches["small"]`).
            return match self.expr(key) {
                Value::Str(name) => record.member(&name).cloned().unwrap_or(Value::Unknown),
                _ => Value::Unknown,
            };
        }
        if let (Value::Callable(class), [key]) = (value, indices) {
            if self.enumeration(class).is_some() {
                return match self.expr(key) {
                    // `Mode["SAME"]`.
                    key @ Value::Str(_) => self.enum_by_name(class, &key),
                    // A member by position, as the front end writes `for
                    // m in Mode`.
                    Value::Int(position) => self.enum_at(class, &position),
                    _ => Value::Unknown,
                };
            }
        }
        if let Value::Elements(_) = value {
            let tensor = value.clone().without_elements();
            return self.subscript(&tensor, indices, subject, range);
        }
        let indices: Vec<Index> = indices.iter().map(|i| self.index(i)).collect();
        match value {
            Value::Tensor(shape) => {
                let shape = self.refine_shape(shape);
                self.index_tensor(&shape, &indices, &subject, range)
            }
            Value::Shape(shape) => match indices.as_slice() {
                [Index::At(i)] => self.index_shape(shape, i, &subject, range),
                [slice @ Index::Slice { .. }] => {
                    let shape = self.refine_shape(shape);
                    // `x.shape[-3:]` of a parameter of unknown rank: a call
                    // that passes a tensor of known rank knows the items.
                    if shape.dims().is_none() {
                        self.ranks_decide = true;
                    }
                    shape
                        .dims()
                        .and_then(|dims| sliced_items(dims, slice))
                        .map_or(Value::Unknown, |kept| Value::Shape(Shape::known(kept)))
                }
                _ => Value::Unknown,
            },
            Value::List(_) | Value::Tuple(_) => self.subscript_items(value, &indices),
            // `name[0]`, `name[-3:]`: a character, or the characters kept.
            Value::Str(text) => {
                let chars = Value::Tuple(text.chars().map(|c| Value::Str(c.to_string())).collect());
                match self.subscript_items(&chars, &indices) {
                    Value::Tuple(kept) => super::strings::formatted(&kept),
                    item => item,
                }
            }
            // `features[0]`, `features[:4]` of an `nn.Sequential`: its
            // layers indexed as a list, a slice being a `Sequential` again.
            // A slice keeps the layers' names, as PyTorch's does.
            Value::Layer(layer) => match (layer.sequential_layers(), layer.sequential_names()) {
                (Some(layers), Some(names)) => {
                    let layers = Value::List(layers.to_vec());
                    match self.subscript_items(&layers, &indices) {
                        Value::List(kept) => match self
                            .subscript_items(&Value::List(names), &indices)
                        {
                            Value::List(kept_names) => Layer::named_sequential(kept, kept_names),
                            _ => Value::Unknown,
                        },
                        item => item,
                    }
                }
                _ => Value::Unknown,
            },
            _ => Value::Unknown,
        }
    }

    /// An item or a slice of a list or tuple.
    fn subscript_items(&self, value: &Value, indices: &[Index]) -> Value {
        let (Value::List(items) | Value::Tuple(items)) = value else {
            return Value::Unknown;
        };
        match indices {
            [Index::At(i)] => i
                .as_const()
                .and_then(|k| item_position(items.len(), k))
                .map_or(Value::Unknown, |at| items[at].clone()),
            [slice @ Index::Slice { .. }] => match (value, sliced_items(items, slice)) {
                (Value::List(_), Some(kept)) => Value::List(kept),
                (_, Some(kept)) => Value::Tuple(kept),
                (_, None) => Value::Unknown,
            },
            _ => Value::Unknown,
        }
    }

    fn index(&mut self, index: &ast::Expr) -> Index {
        match &index.kind {
            ExprKind::Ellipsis => Index::Ellipsis,
            ExprKind::NewAxis => Index::NewAxis,
            ExprKind::Slice { start, stop, step } => {
                let mut bound =
                    |part: &Option<Box<ast::Expr>>| part.as_deref().map(|e| self.int(e));
                Index::Slice {
                    start: bound(start),
                    stop: bound(stop),
                    step: bound(step),
                }
            }
            _ => match self.expr(index) {
                Value::Int(t) => Index::At(t),
                Value::List(items) if items.iter().all(|i| i.as_int().is_some()) => {
                    Index::Select(items.len() as i64)
                }
                _ => Index::Opaque,
            },
        }
    }

    /// `x.shape[i]`: one dimension, which must exist.
    fn index_shape(&mut self, shape: &Shape, i: &Term, subject: &str, range: TextRange) -> Value {
        let Some(i) = i.as_const() else {
            return Value::Int(self.fresh_int());
        };
        self.require(
            shape.index_in_range(i),
            FactKind::Precondition,
            range,
            Explain::Text {
                template: format!(
                    "index {i} is out of range for {subject}, which has {{}} dimensions"
                ),
                terms: vec![shape.rank()],
            },
        );
        Value::Int(shape.dim(i).unwrap_or_else(|| self.fresh_int()))
    }

    fn index_tensor(
        &mut self,
        shape: &Shape,
        indices: &[Index],
        subject: &str,
        range: TextRange,
    ) -> Value {
        // Several lists index together (broadcast, and moved to the front
        // when apart): not followed.
        let selections = indices.iter().filter(|i| matches!(i, Index::Select(_)));
        if indices.iter().any(|i| matches!(i, Index::Opaque)) || selections.count() > 1 {
            return Value::Unknown;
        }
        // PyTorch 1.13 accepts a second `...` (each skips the dimensions
        // no other index takes again); rare enough to leave unknown.
        if indices
            .iter()
            .filter(|i| matches!(i, Index::Ellipsis))
            .count()
            > 1
        {
            return Value::Unknown;
        }
        // `repeats[::-1]` of a Python parameter of unknown rank: it may be a
        // list, which takes a step a tensor refuses. A call that passes a
        // tensor of known rank (or a list) redoes it with that value.
        let backwards = |i: &Index| matches!(i, Index::Slice { step: Some(step), .. } if step.as_const().is_none_or(|k| k <= 0));
        if self.analysis.semantics.untyped_parameters_may_be_any_value
            && shape.dims().is_none()
            && indices.iter().any(backwards)
        {
            self.ranks_decide = true;
            return Value::Unknown;
        }
        let consumed = indices.iter().filter(|i| i.consumes()).count();
        self.require(
            Formula::le(&Term::int(consumed as i64), &shape.rank()),
            FactKind::Precondition,
            range,
            Explain::Text {
                template: format!(
                    "too many indices for `{subject}`: {consumed} indexed dimensions, but it has {{}}"
                ),
                terms: vec![shape.rank()],
            },
        );
        // Indices before `...` take dimensions from the front, those after
        // it from the back; without `...`, every index is at the front.
        let split = indices
            .iter()
            .position(|i| matches!(i, Index::Ellipsis))
            .unwrap_or(indices.len());
        let (front, back) = (
            &indices[..split],
            &indices[(split + 1).min(indices.len())..],
        );
        let front_taken = front.iter().filter(|i| i.consumes()).count();
        let back_taken = back.iter().filter(|i| i.consumes()).count();
        let mut position = 0i64;
        let mut head = Vec::new();
        for index in front {
            head.extend(self.apply_index(shape, index, position, subject, range));
            position += i64::from(index.consumes());
        }
        let mut position = -(back_taken as i64);
        let mut tail = Vec::new();
        for index in back {
            tail.extend(self.apply_index(shape, index, position, subject, range));
            position += i64::from(index.consumes());
        }
        let middle = match shape.slice_exact(front_taken, back_taken) {
            Some(middle) => middle,
            // Only the number of dimensions left is known.
            None => {
                let middle = Shape::opaque(self.analysis.vars.fresh());
                let left = Term::sub(&shape.rank(), &Term::int((front_taken + back_taken) as i64));
                self.assume(middle.well_formed(), range);
                self.assume(Formula::eq(&middle.rank(), &left), range);
                middle
            }
        };
        match Shape::known(head)
            .concat(&middle)
            .and_then(|s| s.concat(&Shape::known(tail)))
        {
            Some(result) => Value::Tensor(result),
            None => Value::Unknown,
        }
    }

    /// The dimension (if any) one index leaves at `position` of `shape`
    /// (negative: from the end).
    fn apply_index(
        &mut self,
        shape: &Shape,
        index: &Index,
        position: i64,
        subject: &str,
        range: TextRange,
    ) -> Option<Term> {
        let size = || shape.dim(position);
        // Counted from the front when the rank is known, as PyTorch does.
        let which = match shape.dims() {
            Some(dims) if position < 0 => format!("dimension {}", dims.len() as i64 + position),
            _ => format!("dimension {position}"),
        };
        match index {
            Index::NewAxis => Some(Term::int(1)),
            Index::Select(count) => Some(Term::int(*count)),
            Index::At(i) => {
                let size = size().unwrap_or_else(|| self.fresh_int());
                self.require(
                    Formula::and([Formula::le(&Term::neg(&size), i), Formula::lt(i, &size)]),
                    FactKind::Precondition,
                    range,
                    Explain::Text {
                        template: format!(
                            "index {{}} is out of range for {which} of `{subject}`, of size {{}}"
                        ),
                        terms: vec![i.clone(), size],
                    },
                );
                None
            }
            Index::Slice { start, stop, step } => {
                let size = size().unwrap_or_else(|| self.fresh_int());
                let step = step.clone().unwrap_or(Term::int(1));
                self.require(
                    Formula::gt(&step, &Term::int(0)),
                    FactKind::Precondition,
                    range,
                    Explain::Text {
                        template: format!(
                            "the slice of {which} of `{subject}` has step {{}}, but a tensor's slice step must be greater than zero"
                        ),
                        terms: vec![step.clone()],
                    },
                );
                if step.as_const().is_some_and(|k| k <= 0) {
                    // Already an error: the length would mean nothing.
                    return Some(self.fresh_int());
                }
                Some(slice_length(&size, start.as_ref(), stop.as_ref(), &step))
            }
            Index::Ellipsis | Index::Opaque => None,
        }
    }
}

/// How many positions `start:stop:step` keeps of a dimension of `size`,
/// for a positive step: Python's clamping of the bounds, as terms.
fn slice_length(size: &Term, start: Option<&Term>, stop: Option<&Term>, step: &Term) -> Term {
    let zero = Term::int(0);
    // A bound below zero counts from the end (but not past the start);
    // one past the end stops there.
    let clamp = |bound: &Term| {
        let from_end = max(&Term::add(bound, size), &zero);
        let from_start = min(bound, size);
        Term::ite(&Formula::lt(bound, &zero), &from_end, &from_start)
    };
    // Both clamped bounds lie in 0..=size, so a missing bound (0 or size)
    // cannot make the span negative.
    let span = match (start, stop) {
        (None, None) => size.clone(),
        (Some(start), None) => Term::sub(size, &clamp(start)),
        (None, Some(stop)) => clamp(stop),
        (Some(start), Some(stop)) => max(&Term::sub(&clamp(stop), &clamp(start)), &zero),
    };
    if step.as_const() == Some(1) {
        return span;
    }
    // ceil(span / step) for span >= 0 and step > 0.
    Term::div(&Term::add(&span, &Term::sub(step, &Term::int(1))), step)
}

fn max(a: &Term, b: &Term) -> Term {
    Term::ite(&Formula::ge(a, b), a, b)
}

fn min(a: &Term, b: &Term) -> Term {
    Term::ite(&Formula::le(a, b), a, b)
}

/// The items a slice with constant bounds keeps (Python's list slicing);
/// `None` when a bound is not a number or the step is zero.
fn sliced_items<T: Clone>(items: &[T], slice: &Index) -> Option<Vec<T>> {
    let Index::Slice { start, stop, step } = slice else {
        return None;
    };
    let constant = |part: &Option<Term>| match part {
        None => Some(None),
        Some(t) => t.as_const().map(Some),
    };
    let step = constant(step)?.unwrap_or(1);
    let positions = slice_positions(items.len() as i64, constant(start)?, constant(stop)?, step)?;
    Some(
        positions
            .iter()
            .map(|p| items[p as usize].clone())
            .collect(),
    )
}
