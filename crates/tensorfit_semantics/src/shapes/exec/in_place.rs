//! Lists and dicts changed in place by the function they are given to.
//!
//! Python passes a list or a dict by reference: torchvision's builders
//! call `_ovewrite_named_param(kwargs, "groups", 32)`, which sets a key of
//! the caller's `kwargs`. A function with a body records, for each
//! parameter that holds a list or a dict when it starts, the value that
//! parameter has when it returns (merged over its `return`s like the
//! result, [`Summary::in_place`]); the caller's variable passed there takes
//! that value after the call. A list or dict passed to anything else that
//! may change it (a parameter the summary did not watch, an unknown
//! function, a class) is unknown afterwards, never stale (PYTHON.md §3).
//!
//! An object of a class (`cfg` given to `f(cfg)` or to `Block(cfg)`) is
//! followed more simply: it is what it was if the callee left it so, and
//! unknown otherwise (`cfg.n = 7` in the callee). A class's `__init__`
//! reports the same of every argument it is given.
//!
//! Changes made through another name (`d = kwargs; d["a"] = 1`) are not
//! seen, in the callee as in the caller: values here are not aliased.

use tensorfit_syntax::ast::{self, ExprKind};

use super::Frame;
use crate::shapes::analysis::Summary;
use crate::shapes::fact::Guard;
use crate::shapes::substitution::Substitution;
use crate::shapes::value::Value;

/// Whether a value is a container or object a callee may change in place.
fn is_changeable(value: &Value) -> bool {
    match value {
        Value::List(_) | Value::Instance(_) => true,
        // `s.add_module(...)` of an `nn.Sequential` given.
        Value::Layer(layer) => layer.sequential_layers().is_some(),
        _ => false,
    }
}

/// Whether a value is an object of a class (not a dict).
fn is_object(value: &Value) -> bool {
    matches!(value, Value::Instance(instance) if !instance.is_dict())
}

impl<'f, 'a> Frame<'f, 'a> {
    /// Watches a parameter, given its value at entry, if it holds a list
    /// or a dict (for [`Self::changed_in_place`]).
    pub fn watch_in_place(&mut self, param: &str, value: &Value) {
        if is_changeable(value) {
            self.watched.push(param.to_owned());
        }
    }

    /// The watched parameters' values now (at a `return`).
    pub(super) fn watched_now(&self) -> Vec<Value> {
        self.watched
            .iter()
            .map(|name| self.bound_value(name).cloned().unwrap_or(Value::Unknown))
            .collect()
    }

    /// The watched parameters' values when the body is left, by a `return`
    /// or by its end, merged over the paths that leave it.
    pub fn changed_in_place(&mut self) -> Vec<(String, Value)> {
        let mut exits: Vec<(Guard, Vec<Value>)> = self
            .returns
            .iter()
            .map(|exit| (exit.guard.clone(), exit.watched.clone()))
            .collect();
        if !self.returned {
            exits.push((self.guard.clone(), self.watched_now()));
        }
        let watched = self.watched.clone();
        let mut changed = Vec::new();
        for (i, name) in watched.into_iter().enumerate() {
            let values = exits
                .iter()
                .map(|(guard, values)| (guard.clone(), values[i].clone()))
                .collect();
            let after = self.merge_exits(values).unwrap_or(Value::Unknown);
            changed.push((name, after));
        }
        changed
    }

    /// At a call through `summary`: what the callee leaves in the
    /// containers it was given, by the text of the argument passed.
    pub(super) fn note_changed_in_place(
        &mut self,
        summary: &Summary,
        substitution: &mut Substitution,
        bound: &[(String, Value, String)],
    ) {
        let vars = &self.analysis.vars;
        let changed = summary
            .in_place
            .iter()
            .filter_map(|(param, value)| {
                let (_, _, text) = bound.iter().find(|(name, _, _)| name == param)?;
                Some((text.clone(), substitution.value(value, vars)))
            })
            .collect();
        self.changed_by_call = Some(changed);
    }

    /// After a call: each list or dict variable passed takes the value the
    /// callee left in it (`changed`, from [`Self::note_changed_in_place`]),
    /// or becomes unknown where the callee's changes are not followed.
    pub(super) fn after_call_in_place(
        &mut self,
        callee: &ast::Expr,
        args: &[ast::Arg],
        changed: Option<Vec<(String, Value)>>,
    ) {
        if !self.analysis.semantics.callees_change_arguments || self.only_reads_arguments(callee) {
            return;
        }
        let changed = changed.unwrap_or_default();
        for arg in args.iter().filter(|a| a.unpack.is_none()) {
            let ExprKind::Name(name) = &arg.value.kind else {
                continue;
            };
            // A tensor with known items: the callee may change them.
            if let Some(value) = self
                .bound_value(name)
                .filter(|v| v.holds_elements())
                .cloned()
            {
                self.assign(name, value.without_elements());
                continue;
            }
            let Some(before) = self.bound_value(name).filter(|v| is_changeable(v)).cloned() else {
                continue;
            };
            // The same variable passed twice: which change comes last is
            // not followed.
            let mut left = changed.iter().filter(|(text, _)| text == name);
            let after = match (left.next(), left.next()) {
                (Some((_, value)), None) => value.clone(),
                _ => Value::Unknown,
            };
            let after = match is_object(&before) && after != before {
                true => Value::Unknown,
                false => after,
            };
            self.assign(name, after);
        }
    }

    /// After a class's `__init__` ran on `bound` (the arguments' values
    /// and texts): each argument as it was if the parameter still holds
    /// it, unknown otherwise, for [`Self::after_call_in_place`].
    pub(super) fn note_init_changes(&mut self, bound: &[(String, Value, String)]) {
        let changed = bound
            .iter()
            .filter(|(_, value, _)| is_changeable(value))
            .map(|(name, value, text)| {
                let after = match self.bound_value(name) {
                    Some(now) if now == value => value.clone(),
                    _ => Value::Unknown,
                };
                (text.clone(), after)
            })
            .collect();
        self.changed_by_call = Some(changed);
    }

    /// Whether a callee never changes its arguments: a builtin the analysis
    /// computes (`isinstance`, `in`, `int`, ...), a layer
    /// and a tensor operation.
    fn only_reads_arguments(&self, callee: &ast::Expr) -> bool {
        match &callee.kind {
            ExprKind::Builtin(builtin) => builtin.is_read_only(),
            ExprKind::Name(name) if crate::registry::referenced_operation(name).is_some() => true,
            ExprKind::Name(name) => match self.lookup(name) {
                Some(slot) => matches!(slot.value, Value::Layer(_)),
                None => {
                    let program = &self.analysis.program;
                    program.function(name).is_none()
                        && program.struct_def(name).is_none()
                        && program.prelude_op(name).is_some()
                }
            },
            _ => false,
        }
    }
}
