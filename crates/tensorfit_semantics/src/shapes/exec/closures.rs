//! Functions made by a body (Python's `lambda` and a `def` inside a
//! function): making one takes the values of its captures; calling one
//! binds the call's arguments to its own parameters and runs it through a
//! summary, as any function's call does, with the captured values as the
//! arguments of its hidden parameters (so a call that gives it a layer,
//! a class or numbers gets a summary for them, `specialise`).

use std::sync::Arc;

use tensorfit_base::TextRange;
use tensorfit_syntax::ast;

use super::Frame;
use crate::shapes::program::{Definition, FunctionRef};
use crate::shapes::value::{Closure, GivenArg, Value};

impl<'f, 'a> Frame<'f, 'a> {
    /// The function a closure expression makes where it is evaluated.
    pub(super) fn make_closure(&mut self, made: &Arc<ast::Closure>) -> Value {
        let captured = made
            .captures
            .iter()
            .map(|capture| self.expr(&capture.value))
            .collect();
        let defaults = made
            .own_params()
            .iter()
            .map(|param| {
                let default = param.default.as_ref()?;
                // One object every call shares, which any may change in
                // place: its tensors' items are not kept.
                Some(self.expr(default).without_elements())
            })
            .collect();
        Value::Closure(Arc::new(Closure {
            made: made.clone(),
            captured,
            defaults,
        }))
    }

    /// A call of a closure with its arguments evaluated. Arguments that do
    /// not fit its parameters are a `TypeError` in Python: no value.
    pub(super) fn call_closure(
        &mut self,
        closure: &Closure,
        given: Vec<GivenArg>,
        range: TextRange,
        text: &str,
    ) -> Value {
        let own = closure.made.own_params();
        let Some(unfilled) = unfilled(own, &given) else {
            return Value::Unknown;
        };
        let mut given = given;
        for i in unfilled {
            if let Some(Some(default)) = closure.defaults.get(i) {
                given.push(GivenArg {
                    name: Some(own[i].name.text.clone()),
                    value: default.clone(),
                    text: own[i].name.text.clone(),
                });
            }
        }
        let mut bound = self.bind_given(own, None, &given);
        let hidden = closure.made.captures.iter().zip(&closure.captured);
        bound.extend(hidden.map(|(capture, value)| {
            let name = capture.name.text.clone();
            (name.clone(), value.clone(), name)
        }));
        let function = FunctionRef {
            function: Definition::Closure(closure.made.clone()),
            owner: None,
            local: false,
        };
        self.call_summary(function, bound, range, text)
    }
}

/// The parameters (by position) that the arguments leave to their
/// defaults, where they bind as Python binds them; `None` where they do not
/// (a missing, extra or repeated argument).
fn unfilled(params: &[ast::Param], given: &[GivenArg]) -> Option<Vec<usize>> {
    let params: Vec<&ast::Param> = params.iter().collect();
    let names: Vec<Option<&str>> = given.iter().map(|a| a.name.as_deref()).collect();
    let binding = crate::signature::bind(&params, 0, &names);
    if !binding.problems.is_empty() {
        return None;
    }
    let filled = binding.params.iter().map(|sources| !sources.is_empty());
    let collects = params.iter().map(|p| p.collects.is_some() || p.variadic);
    Some(
        filled
            .zip(collects)
            .enumerate()
            .filter(|(_, (filled, collects))| !filled && !collects)
            .map(|(i, _)| i)
            .collect(),
    )
}
