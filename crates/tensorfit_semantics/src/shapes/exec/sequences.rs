//! Python's builtins over iterables (the "Built-in Functions" of the
//! Python documentation): `list(x)`, `tuple(x)`, `sorted(x)`,
//! `reversed(x)`, `enumerate(x, start)`, `range(...)` as a value, `any(x)`
//! and `all(x)`. Model code turns a config's tuple into a list, a dict's
//! keys into a sorted list, or counts stages with `list(range(n))`.
//!
//! What is iterated is what Python iterates: a list's or tuple's items, a
//! string's characters, a dict's keys, a shape's sizes, an
//! `nn.Sequential`'s layers, an enumeration's members. A value whose items
//! are not all known (a tensor, an object, a dict with a key set on one
//! path only) makes the result unknown.

use tensorfit_solver::{Formula, Term};

use super::Frame;
use crate::shapes::limits::{LimitKind, MAX_CONTAINER_ITEMS};
use crate::shapes::value::Value;

impl Frame<'_, '_> {
    /// The items Python's `for item in value` goes over, where known.
    pub(super) fn iterated(&mut self, value: &Value) -> Option<Vec<Value>> {
        match value {
            Value::List(items) | Value::Tuple(items) => Some(items.clone()),
            Value::Str(text) => Some(text.chars().map(|c| Value::Str(c.to_string())).collect()),
            Value::Shape(shape) => Some(shape.dims()?.iter().cloned().map(Value::Int).collect()),
            Value::Instance(dict) if dict.is_dict() => {
                dict.known_len()?;
                Some(
                    dict.fields
                        .iter()
                        .map(|(key, _)| Value::Str(key.clone()))
                        .collect(),
                )
            }
            Value::Layer(layer) => layer.sequential_layers().map(<[Value]>::to_vec),
            // An instance of a class derived from a container.
            Value::Instance(instance) if !instance.is_dict() => {
                let instance = instance.clone();
                self.iterated_container(&instance)
            }
            Value::Callable(class) if self.enumeration(class).is_some() => {
                let class = class.clone();
                let members = self.enum_members(&class)?;
                Some(members.into_iter().map(Value::Member).collect())
            }
            _ => None,
        }
    }

    /// `list(x)` and `tuple(x)` (and `list()`, `tuple()`).
    pub(super) fn collected(&mut self, values: &[Value], tuple: bool) -> Value {
        let items = match values {
            [] => Some(Vec::new()),
            [iterable] => self.iterated(iterable),
            _ => None,
        };
        match (items, tuple) {
            (Some(items), true) => Value::Tuple(items),
            (Some(items), false) => Value::List(items),
            (None, _) => Value::Unknown,
        }
    }

    /// `reversed(x)`: the items last first (an iterator in Python, which
    /// every use the analysis follows reads as the list of its items).
    pub(super) fn reversed(&mut self, values: &[Value]) -> Value {
        let [iterable] = values else {
            return Value::Unknown;
        };
        match self.iterated(iterable) {
            Some(mut items) => {
                items.reverse();
                Value::List(items)
            }
            None => Value::Unknown,
        }
    }

    /// `sorted(x)` of numbers or of strings, Python's stable order.
    pub(super) fn sorted(&mut self, values: &[Value]) -> Value {
        let [iterable] = values else {
            return Value::Unknown;
        };
        let Some(items) = self.iterated(iterable) else {
            return Value::Unknown;
        };
        sorted_items(items).map_or(Value::Unknown, Value::List)
    }

    /// `enumerate(x)` and `enumerate(x, start)`: the pairs of a count and
    /// an item.
    pub(super) fn enumerated(&mut self, values: &[Value]) -> Value {
        let (iterable, start) = match values {
            [iterable] => (iterable, 0),
            [iterable, Value::Int(start)] => match start.as_const() {
                Some(start) => (iterable, start),
                None => return Value::Unknown,
            },
            _ => return Value::Unknown,
        };
        let Some(items) = self.iterated(iterable) else {
            return Value::Unknown;
        };
        let pairs = items.into_iter().enumerate().map(|(i, item)| {
            let count = Term::int(start.saturating_add(i as i64));
            Value::Tuple(vec![Value::Int(count), item])
        });
        Value::List(pairs.collect())
    }

    /// `range(stop)`, `range(start, stop[, step])` as a value: its integers,
    /// for known bounds (a `for` over a range is a counted loop of its
    /// own).
    pub(super) fn range_items(&mut self, values: &[Value]) -> Value {
        let bounds: Option<Vec<i64>> = values
            .iter()
            .map(|v| match v {
                Value::Int(term) => term.as_const(),
                _ => None,
            })
            .collect();
        let Some(bounds) = bounds else {
            self.note_numbers_decide(&Value::Unknown, values);
            return Value::Unknown;
        };
        let (start, stop, step) = match bounds.as_slice() {
            [stop] => (0, *stop, 1),
            [start, stop] => (*start, *stop, 1),
            [start, stop, step] if *step != 0 => (*start, *stop, *step),
            _ => return Value::Unknown,
        };
        // In 128 bits: the bounds are any `i64`s.
        let (start, stop, step) = (i128::from(start), i128::from(stop), i128::from(step));
        let span = match step > 0 {
            true => (stop - start).max(0),
            false => (start - stop).max(0),
        };
        let count = (span + step.abs() - 1) / step.abs();
        if count as u64 > MAX_CONTAINER_ITEMS as u64 {
            self.analysis.hit(LimitKind::ContainerSize);
            return Value::Unknown;
        }
        self.step(count as u64);
        Value::List(
            (0..count)
                .map(|i| Value::Int(Term::int((start + i * step) as i64)))
                .collect(),
        )
    }

    /// `any(x)` and `all(x)`: the truth of the items, or of each.
    pub(super) fn any_or_all(&mut self, values: &[Value], all: bool) -> Value {
        let [iterable] = values else {
            return Value::Unknown;
        };
        let Some(items) = self.iterated(iterable) else {
            return Value::Unknown;
        };
        let mut truths = Vec::new();
        for item in &items {
            match self.truthiness(item) {
                Some(truth) => truths.push(truth),
                None => return Value::Unknown,
            }
        }
        Value::Bool(match all {
            true => Formula::and(truths),
            false => Formula::or(truths),
        })
    }
}

/// Known numbers (`bool`s count as `0` and `1`), or strings, in Python's
/// order; `None` for anything else or a mix Python refuses to compare.
fn sorted_items(items: Vec<Value>) -> Option<Vec<Value>> {
    let order = sort_order(&items, false)?;
    Some(order.into_iter().map(|i| items[i].clone()).collect())
}

/// The positions of `keys` in Python's sorted order (stable; with
/// `reverse`, descending and still stable, as `sorted(..., reverse=True)`
/// keeps equal items in their order), where every key is a known string,
/// or every key a known number.
pub(super) fn sort_order(keys: &[Value], reverse: bool) -> Option<Vec<usize>> {
    let mut order: Vec<usize> = (0..keys.len()).collect();
    let flip = |ordering: std::cmp::Ordering| match reverse {
        true => ordering.reverse(),
        false => ordering,
    };
    if keys.iter().all(|v| matches!(v, Value::Str(_))) {
        // Python orders strings by code point, as UTF-8 bytes do.
        let text = |i: usize| match &keys[i] {
            Value::Str(text) => text.as_str(),
            _ => "",
        };
        order.sort_by(|&a, &b| flip(text(a).cmp(text(b))));
        return Some(order);
    }
    let mut numbers: Vec<f64> = Vec::with_capacity(keys.len());
    for key in keys {
        numbers.push(match key {
            Value::Int(term) => {
                let k = term.as_const()?;
                // Past 2^53 a float key may merge two integers.
                if k.unsigned_abs() > 1 << 53 {
                    return None;
                }
                k as f64
            }
            Value::Bool(Formula::Const(b)) => f64::from(u8::from(*b)),
            Value::Float(Some(x)) if !x.is_nan() => *x,
            _ => return None,
        });
    }
    order.sort_by(|&a, &b| flip(numbers[a].total_cmp(&numbers[b])));
    Some(order)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(k: i64) -> Value {
        Value::Int(Term::int(k))
    }

    // `sorted([3, 1.5, True, 2])` is `[True, 1.5, 2, 3]` in CPython 3.11.
    #[test]
    fn sorting_is_pythons_stable_order_of_numbers_or_strings() {
        let items = vec![
            int(3),
            Value::Float(Some(1.5)),
            Value::Bool(Formula::Const(true)),
            int(2),
        ];
        assert_eq!(
            sorted_items(items),
            Some(vec![
                Value::Bool(Formula::Const(true)),
                Value::Float(Some(1.5)),
                int(2),
                int(3)
            ])
        );
        let words = ["conv", "Bn", "act"]
            .map(|w| Value::Str(w.to_owned()))
            .to_vec();
        assert_eq!(
            sorted_items(words),
            Some(
                ["Bn", "act", "conv"]
                    .map(|w| Value::Str(w.to_owned()))
                    .to_vec()
            )
        );
        // A string among numbers is Python's `TypeError`.
        assert_eq!(sorted_items(vec![int(1), Value::Str("a".to_owned())]), None);
        assert_eq!(sorted_items(vec![Value::Int(Term::var(3))]), None);
    }
}
