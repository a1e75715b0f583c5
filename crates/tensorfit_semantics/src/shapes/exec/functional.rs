//! Python's functions over functions (the documentation's "Built-in
//! Functions" and `functools`): `map`, `filter` and `functools.reduce`
//! call what they are given (`Frame::call_given`) on the items Python
//! iterates.
//!
//! `map` and `filter` make iterators; what model code does with one
//! (`list`, `tuple`, unpacking into `nn.Sequential(*...)`, a `for` loop)
//! reads its items once, in order, so the analysis gives the list of them.

use tensorfit_base::TextRange;
use tensorfit_syntax::ast;

use super::Frame;
use crate::shapes::value::{GivenArg, Value};

impl Frame<'_, '_> {
    /// `map(f, a, ...)`, `filter(f, a)` and `functools.reduce(f, a[, init])`.
    pub(super) fn functional(
        &mut self,
        builtin: ast::Builtin,
        args: &[ast::Arg],
        range: TextRange,
    ) -> Value {
        let given = self.evaluate_args(args);
        if given.iter().any(|arg| arg.name.is_some()) {
            return Value::Unknown;
        }
        let Some((function, mut iterables)) = given.split_first() else {
            return Value::Unknown;
        };
        // `reduce`'s third argument is where the fold starts.
        let mut start = None;
        if let (ast::Builtin::Reduce, [iterable, initial]) = (builtin, iterables) {
            start = Some((initial.value.clone(), initial.text.clone()));
            iterables = std::slice::from_ref(iterable);
        }
        let callee = function.text.clone();
        let mut items = Vec::new();
        for iterable in iterables {
            match self.iterated(&iterable.value) {
                Some(found) => items.push((found, iterable.text.clone())),
                None => return Value::Unknown,
            }
        }
        match (builtin, items.as_slice()) {
            (ast::Builtin::Map, [_, ..]) => self.mapped(&function.value, &items, range, &callee),
            (ast::Builtin::Filter, [(items, text)]) => {
                self.filtered(&function.value, items, text, range, &callee)
            }
            (ast::Builtin::Reduce, [(items, text)]) => {
                self.reduced(&function.value, items, text, start, range, &callee)
            }
            _ => Value::Unknown,
        }
    }

    /// `f` of each item (of the items of each iterable, together), as far
    /// as the shortest goes.
    fn mapped(
        &mut self,
        function: &Value,
        iterables: &[(Vec<Value>, String)],
        range: TextRange,
        callee: &str,
    ) -> Value {
        let count = iterables.iter().map(|(items, _)| items.len()).min();
        let mut results = Vec::new();
        for i in 0..count.unwrap_or(0) {
            let given = iterables
                .iter()
                .map(|(items, text)| GivenArg {
                    name: None,
                    value: items[i].clone(),
                    text: format!("{text}[{i}]"),
                })
                .collect();
            results.push(self.call_given(function, given, range, callee));
        }
        Value::List(results)
    }

    /// The items `f` (or, for `None`, the item itself) holds true of; unknown
    /// unless that is decided for every item.
    fn filtered(
        &mut self,
        function: &Value,
        items: &[Value],
        text: &str,
        range: TextRange,
        callee: &str,
    ) -> Value {
        let mut kept = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let verdict = match function {
                Value::None => item.clone(),
                _ => {
                    let given = vec![GivenArg {
                        name: None,
                        value: item.clone(),
                        text: format!("{text}[{i}]"),
                    }];
                    self.call_given(function, given, range, callee)
                }
            };
            match self.truthiness(&verdict).and_then(|f| f.as_const()) {
                Some(true) => kept.push(item.clone()),
                Some(false) => {}
                None => return Value::Unknown,
            }
        }
        Value::List(kept)
    }

    /// `f(f(f(start, a), b), c)`; without `start`, the first item starts
    /// (and no items is Python's `TypeError`: no value).
    fn reduced(
        &mut self,
        function: &Value,
        items: &[Value],
        text: &str,
        start: Option<(Value, String)>,
        range: TextRange,
        callee: &str,
    ) -> Value {
        let mut items = items.iter().cloned().enumerate();
        let mut folded = match start {
            Some(start) => start,
            None => match items.next() {
                Some((_, first)) => (first, format!("{text}[0]")),
                None => return Value::Unknown,
            },
        };
        for (i, item) in items {
            let given = vec![
                GivenArg {
                    name: None,
                    value: folded.0.clone(),
                    text: folded.1.clone(),
                },
                GivenArg {
                    name: None,
                    value: item,
                    text: format!("{text}[{i}]"),
                },
            ];
            let value = self.call_given(function, given, range, callee);
            folded = (value, format!("{callee}(...)"));
        }
        folded.0
    }
}
