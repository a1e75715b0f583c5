//! `sorted(xs, key=f, reverse=r)`, `min(xs, key=f)` and `max(xs, key=f)`
//! (the documentation's "Built-in Functions"): items ordered by what `f`
//! gives for each, where those are known numbers or known strings.
//! `sorted` is stable (with `reverse` too); `min` and `max` give the first
//! of the smallest or largest, as Python does.

use tensorfit_base::TextRange;
use tensorfit_syntax::ast::{self, Builtin};

use super::sequences::sort_order;
use super::Frame;
use crate::shapes::value::{GivenArg, Value};

impl Frame<'_, '_> {
    /// `builtin` (`sorted`, `min` or `max`) called with keywords.
    pub(super) fn ordered_by_key(
        &mut self,
        builtin: Builtin,
        args: &[ast::Arg],
        range: TextRange,
    ) -> Value {
        let given = self.evaluate_args(args);
        let (named, positional): (Vec<GivenArg>, Vec<GivenArg>) =
            given.into_iter().partition(|arg| arg.name.is_some());
        let keyword = |name: &str| {
            named
                .iter()
                .find(|arg| arg.name.as_deref() == Some(name))
                .map(|arg| arg.value.clone())
        };
        let reverse = match keyword("reverse") {
            None => false,
            Some(Value::Bool(flag)) => match flag.as_const() {
                Some(flag) => flag,
                None => return Value::Unknown,
            },
            Some(Value::Int(flag)) => match flag.as_const() {
                Some(flag) => flag != 0,
                None => return Value::Unknown,
            },
            Some(_) => return Value::Unknown,
        };
        let items = match (builtin, positional.as_slice()) {
            (_, [iterable]) => match self.iterated(&iterable.value) {
                Some(items) => items,
                None => return Value::Unknown,
            },
            (Builtin::Min | Builtin::Max, [_, _, ..]) => {
                positional.iter().map(|arg| arg.value.clone()).collect()
            }
            _ => return Value::Unknown,
        };
        let keys: Vec<Value> = match keyword("key") {
            None | Some(Value::None) => items.clone(),
            Some(function) => {
                let callee = named
                    .iter()
                    .find(|arg| arg.name.as_deref() == Some("key"))
                    .map_or(String::new(), |arg| arg.text.clone());
                items
                    .iter()
                    .map(|item| {
                        let given = vec![GivenArg::positional(item.clone())];
                        self.call_given(&function, given, range, &callee)
                    })
                    .collect()
            }
        };
        // `max` is the first of the largest: the first of a descending
        // stable order.
        let descending = match builtin {
            Builtin::Max => true,
            Builtin::Min => false,
            _ => reverse,
        };
        let Some(order) = sort_order(&keys, descending) else {
            return Value::Unknown;
        };
        match builtin {
            Builtin::Sorted => Value::List(order.into_iter().map(|i| items[i].clone()).collect()),
            // An empty sequence is Python's `ValueError`: no value.
            _ => order
                .first()
                .map_or(Value::Unknown, |&first| items[first].clone()),
        }
    }
}
