//! Calls: of user functions, methods, struct constructors, layers and
//! prelude operations. Each checks its contract at run time: parameter
//! types (binding the signature's dimension names), `where` clauses and
//! the result type.

use std::rc::Rc;

use tensorfit_base::TextRange;
use tensorfit_semantics::registry;
use tensorfit_semantics::{bind, BindProblem, Parameter, Source};
use tensorfit_syntax::ast::{self, Arg, Expr, ExprKind, FieldName};

use super::{Flow, Frame, Interpreter};
use crate::error::{Failure, Outcome};
use crate::layers;
use crate::ops;
use crate::program::{FileId, ItemRef, StructId};
use crate::value::{Instance, Value};

/// A call's evaluated arguments.
#[derive(Clone, Debug, Default)]
pub(crate) struct CallArgs {
    pub positional: Vec<Value>,
    pub named: Vec<(String, Value)>,
}

impl CallArgs {
    pub fn positional(values: Vec<Value>) -> CallArgs {
        CallArgs {
            positional: values,
            named: Vec::new(),
        }
    }
}

impl<'p> Interpreter<'p> {
    pub(crate) fn eval_call(
        &mut self,
        frame: &mut Frame,
        call: &Expr,
        callee: &Expr,
        args: &[Arg],
    ) -> Outcome<Value> {
        let at = self.location(frame, call.range);
        match &callee.kind {
            ExprKind::Name(name) if frame.lookup(name).is_none() => {
                let args = self.eval_args(frame, args)?;
                match self.program.lookup(frame.file, name) {
                    Some(ItemRef::Function { file, item }) => {
                        self.in_call(at, |this| this.call_function(file, item, None, args))
                    }
                    Some(ItemRef::Struct(id)) => self.in_call(at, |this| this.construct(id, args)),
                    Some(ItemRef::Const { .. }) => Err(Failure::program(format!(
                        "the constant `{name}` is not callable"
                    ))),
                    // Operations are not calls into the program: a failure
                    // is at the call itself.
                    None => self.call_prelude(name, args),
                }
            }
            ExprKind::Field {
                value,
                field: FieldName::Named(method),
            } => {
                let receiver = self.eval(frame, value)?;
                let args_v = self.eval_args(frame, args)?;
                if matches!(receiver, Value::Instance(_)) {
                    self.in_call(at, |this| this.call_method(receiver, &method.text, args_v))
                } else {
                    self.call_method(receiver, &method.text, args_v)
                }
            }
            _ => {
                let target = self.eval(frame, callee)?;
                let args = self.eval_args(frame, args)?;
                self.in_call(at, |this| this.call_value(&target, args))
            }
        }
    }

    fn eval_args(&mut self, frame: &mut Frame, args: &[Arg]) -> Outcome<CallArgs> {
        let mut out = CallArgs::default();
        for arg in args {
            let v = self.eval(frame, &arg.value)?;
            match &arg.name {
                Some(name) => out.named.push((name.text.clone(), v)),
                None => out.positional.push(v),
            }
        }
        Ok(out)
    }

    /// `receiver.name(args)`: a struct's method, a member that is callable,
    /// or a prelude operation with the receiver as its first argument.
    pub(crate) fn call_method(
        &mut self,
        receiver: Value,
        name: &str,
        mut args: CallArgs,
    ) -> Outcome<Value> {
        if let Value::Instance(instance) = &receiver {
            if let Some(method) = self.find_method(instance.def, name) {
                return self.call_function_ast(
                    instance.def.file,
                    method,
                    Some(receiver.clone()),
                    args,
                );
            }
            if let Some(member) = instance.member(name) {
                let member = member.clone();
                return self.call_value(&member, args);
            }
            return Err(Failure::program(format!(
                "`{}` has no method or field `{name}`",
                instance.struct_name
            )));
        }
        args.positional.insert(0, receiver);
        self.call_prelude(name, args)
    }

    fn find_method(&self, id: StructId, name: &str) -> Option<&'p ast::Function> {
        let program: &'p crate::program::Program = self.program;
        let def = program.struct_def(id);
        def.methods
            .iter()
            .find(|m| m.name.as_ref().is_some_and(|n| n.text == name))
    }

    /// Calling a value: a layer applies itself, an instance its `forward`.
    pub(crate) fn call_value(&mut self, target: &Value, args: CallArgs) -> Outcome<Value> {
        match target {
            Value::Layer(layer) => {
                if let layers::Layer::Sequential(stages) = layer.as_ref() {
                    let mut x =
                        args.positional.into_iter().next().ok_or_else(|| {
                            Failure::program("`Sequential` is called with one input")
                        })?;
                    for stage in stages.iter() {
                        x = self.call_value(stage, CallArgs::positional(vec![x]))?;
                    }
                    return Ok(x);
                }
                let inputs = bind_layer_inputs(layer.kind_name(), args)?;
                layers::apply(&mut self.ops, layer, &inputs, &[])
            }
            Value::Instance(_) => self.call_method(target.clone(), "forward", args),
            other => Err(Failure::program(format!(
                "{} is not callable",
                other.describe()
            ))),
        }
    }

    pub(crate) fn call_function(
        &mut self,
        file: FileId,
        item: usize,
        self_value: Option<Value>,
        args: CallArgs,
    ) -> Outcome<Value> {
        let function = self.program.function(file, item);
        self.call_function_ast(file, function, self_value, args)
    }

    fn call_function_ast(
        &mut self,
        file: FileId,
        function: &ast::Function,
        self_value: Option<Value>,
        args: CallArgs,
    ) -> Outcome<Value> {
        let display = function
            .name
            .as_ref()
            .map_or("function", |n| n.text.as_str());
        if function.is_extern {
            return Err(Failure::program(format!(
                "`{display}` is an `extern fn`: it has a contract but no body to run"
            )));
        }
        let mut frame = Frame::new(file);
        frame.self_value = self_value;
        frame.result = function
            .return_type
            .clone()
            .map(|ty| (ty, display.to_owned()));
        self.bind_params(&mut frame, display, &function.params, args)?;
        for clause in &function.where_clauses {
            if !self.condition(&mut frame, clause)? {
                let why = self.explain(&mut frame, clause);
                return Err(Failure::shape(format!(
                    "the call breaks `{display}`'s precondition `where {}`{why}",
                    self.text(file, clause.range)
                )));
            }
        }
        let body = function
            .body
            .as_ref()
            .map(|b| b.stmts.as_slice())
            .unwrap_or(&[]);
        // Each `return` checked the result type; falling off the end of the
        // body returns nothing, which fails there (at the closing brace).
        let result = match self.exec_stmts(&mut frame, body)? {
            Flow::Return(v) => v,
            Flow::Normal => {
                if let Some(ty) = &function.return_type {
                    let end = function
                        .body
                        .as_ref()
                        .map_or(function.range.end, |b| b.range.end);
                    let brace = TextRange::new((end as usize).saturating_sub(1), end as usize);
                    let location = self.location(&frame, brace);
                    self.check_type(
                        &mut frame,
                        ty,
                        &Value::None,
                        &format!("the result of `{display}`"),
                        false,
                    )
                    .map_err(|f| f.at(location))?;
                }
                Value::None
            }
        };
        Ok(result)
    }

    /// Matches arguments to parameters (positional, named, variadic,
    /// defaults) and defines them in `frame`, checking their types.
    fn bind_params(
        &mut self,
        frame: &mut Frame,
        display: &str,
        params: &[ast::Param],
        args: CallArgs,
    ) -> Outcome<()> {
        let values = match_arguments(display, params, args)?;
        for (param, value) in params.iter().filter(|p| !p.is_self).zip(values) {
            let value = match value {
                Some(v) => v,
                None => match &param.default {
                    Some(default) => self.eval(frame, default)?,
                    None => {
                        return Err(Failure::program(format!(
                            "the call of `{display}` is missing the argument `{}`",
                            param.name.text
                        )))
                    }
                },
            };
            let value = match &param.ty {
                // `..dims: Int` types each of the arguments it takes.
                Some(_) if param.variadic => value,
                Some(ty) => {
                    let what = format!("`{}` of `{display}`", param.name.text);
                    self.check_type(frame, ty, &value, &what, true)?;
                    coerce(ty, value)
                }
                None => value,
            };
            self.record_binding(frame, param.name.range, &value);
            frame.define(&param.name.text, Some(value), true, None);
        }
        Ok(())
    }

    pub(crate) fn construct(&mut self, id: StructId, args: CallArgs) -> Outcome<Value> {
        let def = self.program.struct_def(id);
        let display = def
            .name
            .as_ref()
            .map_or("struct", |n| n.text.as_str())
            .to_owned();
        if def.init.is_some() || !def.class_fields.is_empty() {
            // Only the Python front end writes these, and Python programs
            // are checked, never run.
            return Err(Failure::program(format!(
                "`{display}` is a Python class, which the interpreter does not run"
            )));
        }
        let mut frame = Frame::new(id.file);
        if let Some(params) = &def.params {
            self.bind_params(&mut frame, &display, params, args)?;
        } else if !args.positional.is_empty() || !args.named.is_empty() {
            return Err(Failure::program(format!("`{display}` takes no arguments")));
        }
        let mut members: Vec<(String, Value)> = Vec::new();
        if let Some(params) = &def.params {
            for p in params {
                if let Some(v) = frame.lookup(&p.name.text).and_then(|s| s.value.clone()) {
                    members.push((p.name.text.clone(), v));
                }
            }
        }
        // Fields see the parameters, the fields before them and `self` as
        // built so far.
        for field in &def.fields {
            frame.self_value = Some(Value::Instance(Rc::new(Instance {
                def: id,
                struct_name: display.clone(),
                members: members.clone(),
            })));
            let value = self.eval(&mut frame, &field.value)?;
            if let Some(ty) = &field.ty {
                self.check_type(
                    &mut frame,
                    ty,
                    &value,
                    &format!("`{}`", field.name.text),
                    true,
                )?;
            }
            frame.define(&field.name.text, Some(value.clone()), false, None);
            members.push((field.name.text.clone(), value));
        }
        Ok(Value::Instance(Rc::new(Instance {
            def: id,
            struct_name: display,
            members,
        })))
    }

    /// A prelude operation: its contract's parameters are bound and checked
    /// like a user function's, then the operation runs.
    pub(crate) fn call_prelude(&mut self, name: &str, args: CallArgs) -> Outcome<Value> {
        let Some(function) = self.prelude.function(name) else {
            return Err(Failure::program(format!("`{name}` is not declared")));
        };
        let values = match_arguments(name, &function.params, args)?;
        let mut frame = Frame::new(FileId::PRELUDE);
        let mut bound = Vec::new();
        for (param, value) in function.params.iter().zip(values) {
            let value = match value {
                Some(v) => v,
                None => match &param.default {
                    Some(default) => self.eval_prelude_default(default)?,
                    None => {
                        return Err(Failure::program(format!(
                            "the call of `{name}` is missing the argument `{}`",
                            param.name.text
                        )))
                    }
                },
            };
            if let (Some(ty), false, false) = (&param.ty, value.is_none(), param.variadic) {
                if contract_applies(ty, &value) {
                    let what = format!("`{}` of `{name}`", param.name.text);
                    self.check_type(&mut frame, ty, &value, &what, true)?;
                }
            }
            bound.push((param.name.text.clone(), value));
        }
        if tensorfit_semantics::registry::is_layer_constructor(name) {
            return layers::construct(&mut self.ops, name, &ops::Args::new(name, bound))
                .map(|layer| Value::Layer(Rc::new(layer)));
        }
        let result = ops::call(&mut self.ops, name, &ops::Args::new(name, bound))?;
        if let Some(ty) = &function.return_type {
            if contract_applies(ty, &result) {
                self.check_type(
                    &mut frame,
                    ty,
                    &result,
                    &format!("the result of `{name}`"),
                    false,
                )?;
            }
        }
        Ok(result)
    }

    fn eval_prelude_default(&mut self, e: &Expr) -> Outcome<Value> {
        Ok(match &e.kind {
            ExprKind::Name(n) if n == "None" => Value::None,
            ExprKind::Int(i) => Value::Int(*i),
            ExprKind::Unary { operand, .. } => match operand.kind {
                ExprKind::Int(i) => Value::Int(-i),
                _ => Value::None,
            },
            ExprKind::Float(f) => Value::Float(f.parse().unwrap_or(0.0)),
            ExprKind::Bool(b) => Value::Bool(*b),
            ExprKind::Str(s) => Value::Str(s.as_str().into()),
            _ => Value::None,
        })
    }
}

/// Whether a prelude parameter's written type says something to check
/// about `value`: shaped tensor types, on tensors. The rest (`Int`s that
/// PyTorch also takes as lists, like `dim` of `sum`) the operation checks.
fn contract_applies(ty: &ast::Type, value: &Value) -> bool {
    matches!(
        (&ty.kind, value),
        (ast::TypeKind::Tensor { dims: Some(_) }, Value::Tensor(_))
    )
}

/// A `Float` parameter given an `Int` holds a `Float`; a tensor parameter
/// given a number holds a rank-0 tensor.
fn coerce(ty: &ast::Type, value: Value) -> Value {
    match (&ty.kind, &value) {
        (ast::TypeKind::Float, Value::Int(i)) => Value::Float(*i as f64),
        (ast::TypeKind::Tensor { .. }, Value::Int(_) | Value::Float(_)) => {
            value.as_tensor().map(Value::Tensor).unwrap_or(value)
        }
        _ => value,
    }
}

/// What a call's arguments do not fit, in the call's terms.
enum Misfit {
    TooMany,
    UnknownName(String),
    Duplicate(String),
    /// The first required parameter not given (by index).
    Missing(usize),
}

/// A call's evaluated arguments bound to `params` by the checker's binder
/// ([`bind`]), positional ones first as the evaluated call keeps them: the
/// values each parameter gets, in order (several for a variadic one), and
/// the first misfit (a missing parameter comes after every other).
fn bind_call<P: Parameter>(params: &[P], args: CallArgs) -> (Vec<Vec<Value>>, Option<Misfit>) {
    let positional = args.positional.len();
    let names: Vec<Option<&str>> = std::iter::repeat_n(None, positional)
        .chain(args.named.iter().map(|(name, _)| Some(name.as_str())))
        .collect();
    let binding = bind(params, 0, &names);
    let name_of = |arg: usize| args.named[arg - positional].0.clone();
    let misfit = binding.problems.first().map(|problem| match problem {
        BindProblem::TooMany { .. } | BindProblem::PositionalAfterNamed { .. } => Misfit::TooMany,
        BindProblem::UnknownName { arg } => Misfit::UnknownName(name_of(*arg)),
        BindProblem::Duplicate { arg } => Misfit::Duplicate(name_of(*arg)),
        BindProblem::Missing { params } => Misfit::Missing(params[0]),
    });
    let mut all: Vec<Option<Value>> = args
        .positional
        .into_iter()
        .chain(args.named.into_iter().map(|(_, value)| value))
        .map(Some)
        .collect();
    let values = binding
        .params
        .iter()
        .map(|sources| {
            sources
                .iter()
                .filter_map(|source| match source {
                    Source::Arg(i) => all[*i].take(),
                    Source::Receiver(_) => None,
                })
                .collect()
        })
        .collect();
    (values, misfit)
}

/// A layer call's arguments in the order of the layer's `forward`
/// parameters (the registry's), bound as the checker binds them; a gap
/// before a later argument is `None`.
fn bind_layer_inputs(kind: &str, args: CallArgs) -> Outcome<Vec<Value>> {
    let Some(op) = registry::operation(kind).filter(|op| op.is_layer()) else {
        return Ok(args.positional);
    };
    let (values, misfit) = bind_call(op.forward, args);
    if let Some(misfit) = misfit {
        return Err(Failure::program(match misfit {
            Misfit::TooMany => format!("a {kind} layer is given too many inputs"),
            Misfit::UnknownName(name) => {
                format!("a {kind} layer's forward has no parameter named `{name}`")
            }
            Misfit::Duplicate(name) => format!("`{name}` is given more than once"),
            Misfit::Missing(param) => format!(
                "a {kind} layer is called without `{}`",
                op.forward[param].name
            ),
        }));
    }
    let mut inputs: Vec<Value> = values
        .into_iter()
        .map(|given| given.into_iter().next().unwrap_or(Value::None))
        .collect();
    while inputs.last().is_some_and(Value::is_none) {
        inputs.pop();
    }
    Ok(inputs)
}

/// Which argument each parameter (not `self`) gets, bound by the checker's
/// binder. A variadic parameter gets every remaining positional argument,
/// or the one list given. Missing parameters are the caller's to report,
/// after defaults.
fn match_arguments(
    display: &str,
    params: &[ast::Param],
    args: CallArgs,
) -> Outcome<Vec<Option<Value>>> {
    let params: Vec<&ast::Param> = params.iter().filter(|p| !p.is_self).collect();
    let (values, misfit) = bind_call(&params, args);
    let message = match misfit {
        None | Some(Misfit::Missing(_)) => None,
        Some(Misfit::TooMany) => Some(format!(
            "`{display}` is given too many positional arguments"
        )),
        Some(Misfit::UnknownName(name)) => {
            Some(format!("`{display}` has no parameter named `{name}`"))
        }
        Some(Misfit::Duplicate(name)) => Some(format!("`{name}` is given more than once")),
    };
    if let Some(message) = message {
        return Err(Failure::program(message));
    }
    Ok(params
        .iter()
        .zip(values)
        .map(|(param, given)| {
            if !param.variadic {
                return given.into_iter().next();
            }
            Some(match given.as_slice() {
                [one @ (Value::Shape(_) | Value::List(_) | Value::Tuple(_))] => one.clone(),
                _ if given.iter().all(|v| matches!(v, Value::Int(_))) => {
                    Value::shape(given.iter().filter_map(Value::as_int).collect())
                }
                _ => Value::List(Rc::new(given)),
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(positional: usize, named: &[&str]) -> CallArgs {
        CallArgs {
            positional: (0..positional).map(|i| Value::Int(i as i64)).collect(),
            named: named
                .iter()
                .enumerate()
                .map(|(i, n)| ((*n).to_owned(), Value::Int(10 + i as i64)))
                .collect(),
        }
    }

    #[test]
    fn layer_calls_bind_to_the_layers_forward() {
        // Named inputs go to their place; a gap before a later one is None.
        let inputs = bind_layer_inputs(
            "MultiheadAttention",
            args(1, &["value", "key", "attn_mask"]),
        )
        .unwrap();
        let ints: Vec<Option<i64>> = inputs.iter().map(|v| v.as_int()).collect();
        assert_eq!(ints, [Some(0), Some(11), Some(10), None, None, Some(12)]);
        assert!(inputs[3].is_none() && inputs[4].is_none());
        for (kind, call, message) in [
            (
                "MultiheadAttention",
                args(3, &["key_mask"]),
                "no parameter named `key_mask`",
            ),
            ("MultiheadAttention", args(2, &[]), "without `value`"),
            ("Linear", args(1, &["bias"]), "no parameter named `bias`"),
            ("Linear", args(2, &[]), "too many inputs"),
        ] {
            let failure = bind_layer_inputs(kind, call).unwrap_err();
            assert!(
                failure.message.contains(message),
                "{kind}: {}",
                failure.message
            );
        }
    }
}
