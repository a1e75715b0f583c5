//! Calls: of user functions and methods (through their summaries), of
//! prelude operations (a rule or a contract), of layers and struct
//! instances; the binding of their arguments; operations kept for each
//! call while a rank is unknown.

use std::collections::HashMap;
use std::sync::Arc;

use tensorfit_base::TextRange;
use tensorfit_solver::Term;
use tensorfit_syntax::ast::{self, Builtin, ExprKind, FieldName, Unpack};

use super::instantiation::ConstructionSite;
use super::{pytorch_keywords, Deferred, Frame, LayerSite};
use crate::shapes::analysis::Summary;
use crate::shapes::fact::CallSite;
use crate::shapes::program::FunctionRef;
use crate::shapes::rules::{self, Args};
use crate::shapes::value::{GivenArg, Instance, Layer, Partial, PartialCallee, Shape, Value};
use crate::signature::{argument_names, bind, Binding, Signature, Source};

impl<'f, 'a> Frame<'f, 'a> {
    pub(super) fn call(
        &mut self,
        call: &ast::Expr,
        callee: &ast::Expr,
        args: &[ast::Arg],
    ) -> Value {
        let text = self.describe(call);
        self.changed_by_call = None;
        let value = self.call_inner(call, callee, args, &text);
        let changed = self.changed_by_call.take();
        self.after_call_in_place(callee, args, changed);
        value
    }

    pub(super) fn call_inner(
        &mut self,
        call: &ast::Expr,
        callee: &ast::Expr,
        args: &[ast::Arg],
        text: &str,
    ) -> Value {
        if args.iter().any(|a| a.unpack.is_some()) {
            return match self.unpacked_args(args) {
                Some(written) => self.call_inner(call, callee, &written, text),
                None => Value::Unknown,
            };
        }
        match &callee.kind {
            ExprKind::Name(name) => {
                if let Some(slot) = self.lookup(name) {
                    let target = slot.value.clone();
                    let site = slot.defined.and_then(|at| layer_site(&target, name, at));
                    return self.applying_layer(site, |frame| {
                        frame.call_value(&target, callee, args, call.range, text)
                    });
                }
                self.call_named(name, args, call.range, text)
            }
            ExprKind::Builtin(builtin) => self.call_builtin(*builtin, args, call.range),
            ExprKind::Field {
                value,
                field: FieldName::Named(method),
            } => {
                let receiver = self.expr(value);
                let own_method = match &receiver {
                    Value::Instance(instance) => self.method_of(instance, &method.text).is_some(),
                    _ => false,
                };
                if super::module_methods::returns_itself(&receiver, &method.text, own_method) {
                    let given = self.evaluate_args(args);
                    return super::module_methods::itself(&receiver, &method.text, &given);
                }
                match &receiver {
                    // Python's `len(x)` of a dict.
                    Value::Instance(dict) if dict.is_dict() && method.text == "__len__" => {
                        length(&receiver)
                    }
                    // `kwargs.get("num_classes", 1000)`, `xs.index(v)`.
                    _ if super::container_methods::reads(&receiver, &method.text) => {
                        let given = self.evaluate_args(args);
                        super::container_methods::call(&receiver, &method.text, &given)
                    }
                    // `info = net.load_state_dict(sd)` (the front end
                    // follows the statement `net.load_state_dict(sd)` with
                    // `Builtin::LoadState`): what a load may replace is
                    // unknown afterwards.
                    Value::Instance(instance)
                        if method.text == "load_state_dict"
                            && self.method_of(instance, &method.text).is_none() =>
                    {
                        for arg in args {
                            self.expr(&arg.value);
                        }
                        if let ExprKind::Name(local) = &value.kind {
                            if self.may_reload_layers(&receiver) {
                                self.assign(local, Value::Unknown);
                            }
                        }
                        Value::Unknown
                    }
                    Value::Instance(instance) => {
                        if let Some((owner, function)) = self.method_of(instance, &method.text) {
                            // `self.m(...)` is the name checks' (they know
                            // `self`'s struct); any other receiver's struct
                            // only the analysis knows.
                            if !matches!(value.kind, ExprKind::SelfValue)
                                && !self.check_method_arguments(
                                    &owner,
                                    &method.text,
                                    &function.function.params,
                                    args,
                                    call.range,
                                )
                            {
                                return Value::Unknown;
                            }
                            let mut bound =
                                vec![("self".to_owned(), receiver.clone(), "self".to_owned())];
                            bound.extend(self.bind_args(&function.function.params, None, args));
                            return self.call_summary(function, bound, call.range, text);
                        }
                        // `self.children()`, `self.named_children()`.
                        if instance.member(&method.text).is_none() {
                            if let Some(value) = self.module_children_call(instance, &method.text) {
                                for arg in args {
                                    self.expr(&arg.value);
                                }
                                return value;
                            }
                        }
                        let member = instance
                            .member(&method.text)
                            .cloned()
                            .unwrap_or(Value::Unknown);
                        let site = self
                            .field_range(&instance.struct_name, &method.text)
                            .and_then(|at| layer_site(&member, &method.text, at));
                        self.applying_layer(site, |frame| {
                            frame.call_value(&member, callee, args, call.range, text)
                        })
                    }
                    // `for m in Mode`, as the front end writes it.
                    Value::Callable(class)
                        if method.text == "__len__" && self.enumeration(class).is_some() =>
                    {
                        let class = class.clone();
                        self.enum_length(&class)
                    }
                    // Python's `len(x)`.
                    _ if method.text == "__len__" => length(&receiver),
                    // A layer of an `nn.Sequential` by name
                    // (`features.conv0(x)`).
                    Value::Layer(layer) if layer.named_layer(&method.text).is_some() => {
                        let member = layer
                            .named_layer(&method.text)
                            .cloned()
                            .unwrap_or(Value::Unknown);
                        self.call_value(&member, callee, args, call.range, text)
                    }
                    // `cls.helper(...)` in a class method: the class's own
                    // function, given the class where it is a class method.
                    Value::Callable(class) => {
                        let name =
                            format!("{class}{}{}", ast::CLASS_FUNCTION_SEPARATOR, method.text);
                        let Some(function) = self.analysis.program.function(&name) else {
                            for arg in args {
                                self.expr(&arg.value);
                            }
                            return Value::Unknown;
                        };
                        let mut args = args.to_vec();
                        if function
                            .function
                            .params
                            .iter()
                            .any(|p| p.name.text == ast::CLASS_ARGUMENT)
                        {
                            args.push(ast::Arg {
                                name: Some(ast::Name {
                                    text: ast::CLASS_ARGUMENT.to_owned(),
                                    range: value.range,
                                }),
                                unpack: None,
                                value: value.as_ref().clone(),
                                range: value.range,
                            });
                        }
                        self.call_named(&name, &args, call.range, text)
                    }
                    Value::Str(text) => {
                        let given = self.evaluate_args(args);
                        let result = super::str_methods::call(text, &method.text, &given);
                        let values: Vec<Value> = given.into_iter().map(|arg| arg.value).collect();
                        self.note_numbers_decide(&result, &values);
                        result
                    }
                    // An object nothing is known of may not be a tensor
                    // (`self._rng.randint(0, n)` is Python's `random`): its
                    // method is not the operation of the same name. Its
                    // arguments are still checked.
                    Value::Unknown => {
                        for arg in args {
                            self.expr(&arg.value);
                        }
                        Value::Unknown
                    }
                    _ => match self.analysis.program.prelude_op(&method.text) {
                        Some(contract) => {
                            let given = self.evaluate_args(args);
                            let receiver = (receiver.clone(), self.describe(value));
                            self.call_prelude_given(
                                &method.text,
                                contract,
                                Some(receiver),
                                given,
                                call.range,
                            )
                        }
                        None => Value::Unknown,
                    },
                }
            }
            _ => {
                let target = self.expr(callee);
                self.call_value(&target, callee, args, call.range, text)
            }
        }
    }

    /// A call of a builtin: each has one handler, by what it does.
    fn call_builtin(&mut self, builtin: Builtin, args: &[ast::Arg], range: TextRange) -> Value {
        match builtin {
            Builtin::Partial => {
                let given = self.evaluate_args(args);
                partial(given)
            }
            Builtin::Power => self.power(args, range),
            Builtin::Map | Builtin::Filter | Builtin::Reduce => {
                self.functional(builtin, args, range)
            }
            Builtin::Sorted | Builtin::Min | Builtin::Max
                if args.iter().any(|a| a.name.is_some()) =>
            {
                self.ordered_by_key(builtin, args, range)
            }
            update if update.is_update() => self.updated_value(update, args),
            value => self.python_builtin(value, args),
        }
    }

    /// A call of the function, struct or prelude operation `name` (not a
    /// local), directly or through a value that names it
    /// ([`Value::Callable`]: `block(inplanes, planes)`).
    fn call_named(&mut self, name: &str, args: &[ast::Arg], range: TextRange, text: &str) -> Value {
        // The prelude's `einsum` (not a function of the program's own, or
        // named so that none can be).
        let einsum = match crate::registry::referenced_operation(name) {
            Some(op) => op == "einsum",
            None => name == "einsum" && self.analysis.program.names_prelude_op(name),
        };
        if einsum {
            if let Some(value) = self.call_einsum(args) {
                return value;
            }
        }
        let given = self.evaluate_args(args);
        self.call_named_given(name, given, range, text)
    }

    /// [`Frame::call_named`] with the arguments evaluated.
    pub(super) fn call_named_given(
        &mut self,
        name: &str,
        given: Vec<GivenArg>,
        range: TextRange,
        text: &str,
    ) -> Value {
        let program = &self.analysis.program;
        // The operation itself, whatever the file calls by its name.
        if let Some(op) = crate::registry::referenced_operation(name) {
            let Some(contract) = program.prelude_op(op) else {
                return Value::Unknown;
            };
            return self.call_prelude_given(op, contract, None, given, range);
        }
        if let Some(function) = program.function(name) {
            let Some(bound) = self.bind_once(name, &function.function.params, &given) else {
                return Value::Unknown;
            };
            return self.call_summary(function, bound, range, text);
        }
        if let Some((def, local)) = program.struct_def(name) {
            // `Mode("same")`: the member holding the value.
            if def.enumeration.is_some() {
                return match given.as_slice() {
                    [GivenArg {
                        name: None, value, ..
                    }] => self.enum_by_value(name, value),
                    _ => Value::Unknown,
                };
            }
            let params = def.params.as_deref().unwrap_or(&[]);
            let Some(bound) = self.bind_once(name, params, &given) else {
                return Value::Unknown;
            };
            // An imported struct's fields are another file's text:
            // what they require is reported at this call.
            let call = CallSite {
                range,
                callee: name.to_owned(),
                text: text.to_owned(),
            };
            let site = match local {
                true => ConstructionSite::ThisFile(call),
                false => ConstructionSite::OtherFile(call),
            };
            return self.construct_at(def, bound, site);
        }
        if let Some(contract) = program.prelude_op(name) {
            return self.call_prelude_given(name, contract, None, given, range);
        }
        Value::Unknown
    }

    /// Applies a callable value (layer or instance), named `callee` in
    /// messages, to one evaluated argument.
    pub fn apply_to(
        &mut self,
        target: &Value,
        callee: &str,
        input: Value,
        text: &str,
        range: TextRange,
    ) -> Value {
        match target {
            Value::Layer(layer) => {
                let input = input.without_elements();
                let from = self.facts.len();
                let value =
                    rules::call_layer(self, layer, callee, vec![(input, text.to_owned())], range);
                self.unless_refused(from, value)
            }
            Value::Instance(instance) => match self.called_method(instance) {
                Some((_, _, forward)) => {
                    let Some(param) = forward.function.params.iter().find(|p| !p.is_self) else {
                        return Value::Unknown;
                    };
                    let bound = vec![
                        ("self".to_owned(), target.clone(), "self".to_owned()),
                        (param.name.text.clone(), input, text.to_owned()),
                    ];
                    self.call_summary(forward, bound, range, text)
                }
                None => Value::Unknown,
            },
            _ => Value::Unknown,
        }
    }

    /// Where the struct `name` of this file declares its field `field`.
    fn field_range(&self, name: &str, field: &str) -> Option<TextRange> {
        let (def, local) = self.analysis.program.struct_def(name)?;
        let field = def.fields.iter().find(|f| f.name.text == field)?;
        local.then_some(field.range)
    }

    /// Calling a value (the `callee` expression's): a layer applies its
    /// rule, an instance its `forward`.
    pub(super) fn call_value(
        &mut self,
        target: &Value,
        callee: &ast::Expr,
        args: &[ast::Arg],
        range: TextRange,
        text: &str,
    ) -> Value {
        match target {
            Value::Layer(layer) => {
                let values: Vec<(Value, String)> = args
                    .iter()
                    .map(|a| (self.expr(&a.value), self.describe(&a.value)))
                    .collect();
                let inputs = self.bind_layer_inputs(&layer.kind, args, values, range);
                let from = self.facts.len();
                let callee = self.describe(callee);
                let value = rules::call_layer(self, layer, &callee, inputs, range);
                self.unless_refused(from, value)
            }
            Value::Instance(instance) => match self.called_method(instance) {
                Some((owner, method, forward)) => {
                    let fits = self.check_method_arguments(
                        &owner,
                        method,
                        &forward.function.params,
                        args,
                        range,
                    );
                    if !fits {
                        // Python raises a TypeError: the call has no result.
                        return Value::Unknown;
                    }
                    let mut bound = vec![("self".to_owned(), target.clone(), "self".to_owned())];
                    bound.extend(self.bind_args(&forward.function.params, None, args));
                    self.call_summary(forward, bound, range, text)
                }
                None => Value::Unknown,
            },
            Value::Callable(name) => self.call_named(name, args, range, text),
            Value::Partial(_) | Value::Closure(_) => {
                let given = self.evaluate_args(args);
                self.call_given(target, given, range, text)
            }
            _ => Value::Unknown,
        }
    }

    /// Calls `target` with `given`, as a call in the source would: a
    /// closure, a named function or class, a partial, a layer or module
    /// applied to one input. `text` names the call in messages.
    pub(super) fn call_given(
        &mut self,
        target: &Value,
        given: Vec<GivenArg>,
        range: TextRange,
        text: &str,
    ) -> Value {
        match target {
            Value::Closure(closure) => self.call_closure(closure, given, range, text),
            Value::Callable(name) => self.call_named_given(name, given, range, text),
            Value::Partial(partial) => {
                let given = partial.with_call_args(given);
                match &partial.callee {
                    PartialCallee::Named(name) => self.call_named_given(name, given, range, text),
                    PartialCallee::Closure(closure) => {
                        self.call_closure(closure, given, range, text)
                    }
                }
            }
            Value::Layer(_) | Value::Instance(_) => match given.as_slice() {
                [GivenArg {
                    name: None,
                    value,
                    text: input,
                }] => self.apply_to(target, text, value.clone(), input, range),
                _ => Value::Unknown,
            },
            _ => Value::Unknown,
        }
    }

    /// The arguments of a call of the function or class `name` bound to
    /// `params`; `None` for a call met while they are being bound (a
    /// default that calls its own function or class, as a half-typed file
    /// can read): binding again would never end, and the call has no value.
    fn bind_once(
        &mut self,
        name: &str,
        params: &[ast::Param],
        given: &[GivenArg],
    ) -> Option<Vec<(String, Value, String)>> {
        if self.building.iter().any(|b| b == name) {
            return None;
        }
        self.building.push(name.to_owned());
        let bound = self.bind_given(params, None, given);
        self.building.pop();
        Some(bound)
    }

    /// What calling an instance runs, with the struct that defines it and
    /// its name: its class's `__call__` where the file defines one (Python
    /// looks it up on the class, and a module's own overrides
    /// `nn.Module.__call__`), else `forward` (which `nn.Module.__call__`
    /// runs).
    pub(super) fn called_method(
        &self,
        instance: &Instance,
    ) -> Option<(String, &'static str, FunctionRef<'a>)> {
        ["__call__", "forward"].into_iter().find_map(|name| {
            let (owner, method) = self.method_of(instance, name)?;
            Some((owner, name, method))
        })
    }

    /// The method `name` of an instance, with the struct that defines it:
    /// its own struct's, else its base's (a Python class derived from
    /// another; the method runs with `self` the derived instance).
    pub(super) fn method_of(
        &self,
        instance: &Instance,
        name: &str,
    ) -> Option<(String, FunctionRef<'a>)> {
        let mut current = Some(instance);
        while let Some(instance) = current {
            if let Some(method) = self.analysis.program.method(&instance.struct_name, name) {
                return Some((instance.struct_name.clone(), method));
            }
            current = instance.base();
        }
        None
    }

    /// Keeps an argument problem for the entry point's report, once (a
    /// call in a loop or in both branches is met more than once).
    fn note_argument_problem(&mut self, diagnostic: tensorfit_base::Diagnostic) {
        if !self.argument_problems.contains(&diagnostic) {
            self.argument_problems.push(diagnostic);
        }
    }

    /// The arguments of a method called through an instance (`m(x)` calls
    /// `M.forward`) against its parameters; what does not fit is reported
    /// at the end of the entry point, as for layers. Whether they fit.
    fn check_method_arguments(
        &mut self,
        struct_name: &str,
        method: &str,
        params: &[ast::Param],
        args: &[ast::Arg],
        range: TextRange,
    ) -> bool {
        let signature = Signature::from_params(format!("{struct_name}.{method}"), params);
        let mut problems = Vec::new();
        signature.check_call(0, args, range, &mut problems);
        let fits = problems.is_empty();
        for diagnostic in problems {
            self.note_argument_problem(diagnostic);
        }
        fits
    }

    /// A layer call's arguments in the order of the layer's `forward`
    /// parameters (`None` where one is not given), bound as any call's; what
    /// does not fit (`attn(q, k, v, key_mask: m)`) is reported at the end of
    /// the entry point. The layer's kind is known here, not to the name
    /// checks.
    pub(super) fn bind_layer_inputs(
        &mut self,
        kind: &str,
        args: &[ast::Arg],
        values: Vec<(Value, String)>,
        range: TextRange,
    ) -> Vec<(Value, String)> {
        let Some(op) = crate::registry::operation(kind).filter(|op| op.is_layer()) else {
            return values;
        };
        let binding = bind(op.forward, 0, &argument_names(args));
        if !binding.problems.is_empty() {
            let signature = op.forward_signature();
            for problem in &binding.problems {
                self.note_argument_problem(signature.diagnostic(problem, args, range));
            }
        }
        op.forward
            .iter()
            .zip(&binding.params)
            .map(|(param, sources)| match sources.first() {
                Some(Source::Arg(i)) => values[*i].clone(),
                _ if param.required => (Value::Unknown, param.name.to_owned()),
                _ => (Value::None, param.name.to_owned()),
            })
            .collect()
    }

    /// Binds a call's arguments to `params` ([`bind`]) after the
    /// first `skip` (a method's receiver, bound by the caller). Every
    /// argument is evaluated, in order, whether it fits or not (what does
    /// not fit is the name checks' to report); a parameter not given takes
    /// its default, or is unknown.
    pub fn bind_args(
        &mut self,
        params: &[ast::Param],
        skip: Option<usize>,
        args: &[ast::Arg],
    ) -> Vec<(String, Value, String)> {
        let given = self.evaluate_args(args);
        self.bind_given(params, skip, &given)
    }

    /// A call's arguments evaluated, in order.
    pub(super) fn evaluate_args(&mut self, args: &[ast::Arg]) -> Vec<GivenArg> {
        args.iter()
            .map(|arg| GivenArg {
                name: arg.name.as_ref().map(|n| n.text.clone()),
                value: self.expr(&arg.value),
                text: self.describe(&arg.value),
            })
            .collect()
    }

    /// [`Frame::bind_args`] for arguments already evaluated.
    pub(super) fn bind_given(
        &mut self,
        params: &[ast::Param],
        skip: Option<usize>,
        given: &[GivenArg],
    ) -> Vec<(String, Value, String)> {
        let skip = skip.unwrap_or(0);
        let params: Vec<&ast::Param> = params.iter().filter(|p| !p.is_self).collect();
        let names: Vec<Option<&str>> = given.iter().map(|a| a.name.as_deref()).collect();
        let binding = bind(&params, skip, &names);
        self.bound_values(&params, skip, given, &binding)
    }

    /// Each parameter's value (after the first `skip`) and its text, as
    /// `binding` binds `given` to `params` (the contract's parameters but
    /// `self`); a parameter not given takes its default, or is unknown.
    fn bound_values(
        &mut self,
        params: &[&ast::Param],
        skip: usize,
        given: &[GivenArg],
        binding: &Binding,
    ) -> Vec<(String, Value, String)> {
        let values: Vec<(Value, String)> = given
            .iter()
            .map(|arg| (arg.value.clone(), arg.text.clone()))
            .collect();
        params
            .iter()
            .zip(&binding.params)
            .skip(skip)
            .map(|(param, sources)| {
                let mut passed = sources.iter().filter_map(|source| match source {
                    Source::Arg(i) => Some(values[*i].clone()),
                    Source::Receiver(_) => None,
                });
                let (value, text) = if let Some(collects) = param.collects {
                    let value = match collects {
                        Unpack::Positional => {
                            Value::Tuple(passed.map(|(value, _)| value).collect())
                        }
                        Unpack::Keywords => keywords(sources, given),
                    };
                    (value, String::new())
                } else if param.variadic {
                    let items: Vec<Value> = passed.map(|(value, _)| value).collect();
                    // `zeros(2, 3)` and `zeros([2, 3])` mean the same.
                    match items.as_slice() {
                        [single @ (Value::List(_) | Value::Tuple(_) | Value::Shape(_))] => {
                            (single.clone(), String::new())
                        }
                        _ => (Value::List(items), String::new()),
                    }
                } else {
                    passed.next().unwrap_or_else(|| {
                        let value = param
                            .default
                            .as_ref()
                            .map(|d| self.default_value(d))
                            .unwrap_or(Value::Unknown);
                        (value, param.name.text.clone())
                    })
                };
                (param.name.text.clone(), value, text)
            })
            .collect()
    }

    pub(super) fn default_value(&mut self, expr: &ast::Expr) -> Value {
        match &expr.kind {
            ExprKind::Name(name) if name == "None" => Value::None,
            _ => {
                let saved = std::mem::replace(&mut self.scopes, vec![HashMap::new()]);
                let value = self.expr(expr);
                self.scopes = saved;
                // A default (or class attribute) is one object shared by
                // every call, which any of them may change in place: its
                // tensors' items are not kept.
                value.without_elements()
            }
        }
    }

    /// A call of the prelude operation `op` with its arguments evaluated
    /// (after `receiver`, a method call's object and its text), bound as
    /// PyTorch binds them ([`pytorch_keywords::fit`]); unknown where they
    /// do not fit the contract.
    fn call_prelude_given(
        &mut self,
        op: &str,
        contract: &'a ast::Function,
        receiver: Option<(Value, String)>,
        given: Vec<GivenArg>,
        range: TextRange,
    ) -> Value {
        let receivers = usize::from(receiver.is_some());
        let Some(fitted) = pytorch_keywords::fit(op, contract, receivers, given) else {
            return Value::Unknown;
        };
        let params = pytorch_keywords::parameters(contract);
        let mut bound = self.bound_values(&params, receivers, &fitted.given, &fitted.binding);
        if let (Some((value, text)), Some(first)) = (receiver, contract.params.first()) {
            bound.insert(0, (first.name.text.clone(), value, text));
        }
        self.call_prelude(op, contract, bound, range, fitted.all_keywords_modelled)
    }

    pub(super) fn call_prelude(
        &mut self,
        name: &str,
        contract: &'a ast::Function,
        bound: Vec<(String, Value, String)>,
        range: TextRange,
        all_keywords_bound: bool,
    ) -> Value {
        if matches!(name, "size" | "dim" | "numel") {
            self.shape_reads += 1;
        }
        // A keyword the contract does not have (`dtype=`, `decimals=`)
        // may change the items: they are not computed then.
        if all_keywords_bound {
            if let Some(items) = self.operation_items(name, &bound) {
                return items;
            }
        }
        // The operations below read a tensor with known items as its shape.
        let bound: Vec<(String, Value, String)> = bound
            .into_iter()
            .map(|(n, v, t)| (n, v.without_elements(), t))
            .collect();
        let target = rules::reshape_target(name);
        let infers_a_size = bound.iter().any(|(n, v, _)| {
            n == target
                && v.as_dims()
                    .and_then(|d| d.dims().map(|d| d.contains(&Term::int(-1))))
                    .unwrap_or(true)
        });
        let op = crate::registry::operation(name);
        let needs_ranks = op.is_some_and(|op| op.needs_known_ranks(infers_a_size));
        if needs_ranks && self.has_opaque_tensor(&bound) {
            // A check-only deferral keeps the input's value (the first
            // parameter of `softmax`, `cumsum`, ...) as the result.
            let kept_shape = op
                .filter(|op| op.ranks == crate::registry::Ranks::KnownToCheck)
                .and_then(|_| bound.first())
                .map(|(_, input, _)| input.clone());
            let deferred = self.defer(name, bound, range);
            return kept_shape.unwrap_or(deferred);
        }
        let opaque_input = self.has_opaque_tensor(&bound);
        let symbolic_input = self.has_symbolic_number(&bound);
        let args = Args::new(bound);
        // The registry says whether the contract or a built-in rule gives
        // the shape; a rule that cannot tell (an argument not modelled)
        // leaves it to the contract.
        if op.is_some_and(|op| op.shape == crate::registry::ShapeBy::Rule) {
            let from = self.facts.len();
            if let Some(value) = rules::apply(self, name, &args, range) {
                // A rule that cannot tell for a dimension or number not
                // known here (`x.chunk(2, dim=1)` of an odd or even
                // channel count): a call that passes numbers may tell.
                if symbolic_input && value == Value::Unknown && !self.refused_since(from) {
                    self.numbers_decide = true;
                }
                return self.unless_refused(from, value);
            }
            // A rule that needs the rank of an input this function does
            // not know (`x.chunk(2, dim=1)` of a parameter): a call that
            // passes tensors of known ranks may know it.
            if opaque_input {
                self.ranks_decide = true;
            }
        }
        // A layer constructor returns its own type: `Conv2d(...) -> Conv2d`.
        let constructs_layer = matches!(
            contract.return_type.as_ref().map(|t| &t.kind),
            Some(ast::TypeKind::Named(ty)) if ty.text == name
        );
        if constructs_layer {
            rules::check_construction(self, name, &args, range);
            if name == "Sequential" {
                let layers = args.into_pairs().into_iter().next().map(|(_, v)| v);
                return crate::shapes::value::sequential_of(layers.unwrap_or(Value::Unknown));
            }
            return Value::Layer(Arc::new(Layer {
                kind: name.to_owned(),
                args: args.into_pairs(),
            }));
        }
        // A contract: instantiate its summary like any function's.
        let function = FunctionRef::item(contract, None, false);
        self.call_summary(function, args.into_triples(), range, name)
    }

    /// An operation's result, or nothing when it refused its input
    /// ([`Frame::refused_since`]): a shape computed from the refused input
    /// would only fail again further on, for the same mistake.
    fn unless_refused(&self, from: usize, value: Value) -> Value {
        match self.refused_since(from) {
            true => Value::Unknown,
            false => value,
        }
    }

    pub(in crate::shapes) fn has_opaque_tensor(&self, bound: &[(String, Value, String)]) -> bool {
        let opaque = |v: &Value| matches!(v, Value::Tensor(shape) if self.refine_shape(shape).dims().is_none());
        bound.iter().any(|(_, v, _)| match v {
            Value::List(items) | Value::Tuple(items) => items.iter().any(opaque),
            other => opaque(other),
        })
    }

    /// `a ** b` (`Builtin::Power`): Python's power of numbers, else the
    /// prelude's `pow` (a tensor's elementwise power).
    fn power(&mut self, args: &[ast::Arg], range: TextRange) -> Value {
        let given = self.evaluate_args(args);
        if let [base, exponent] = given.as_slice() {
            if let Some(value) = super::numbers::power(&base.value, &exponent.value) {
                let inputs = [base.value.clone(), exponent.value.clone()];
                self.note_numbers_decide(&value, &inputs);
                return value;
            }
        }
        match self.analysis.program.prelude_op("pow") {
            Some(contract) => self.call_prelude_given("pow", contract, None, given, range),
            None => Value::Unknown,
        }
    }

    /// Whether an argument is, or holds, a number not known here: an
    /// `int` or a dimension of a tensor of known rank.
    fn has_symbolic_number(&self, bound: &[(String, Value, String)]) -> bool {
        let symbolic = |v: &Value| match v {
            Value::Int(term) => self.known(term).as_const().is_none(),
            Value::Tensor(shape) => self
                .refine_shape(shape)
                .dims()
                .is_some_and(|dims| dims.iter().any(|d| self.known(d).as_const().is_none())),
            _ => false,
        };
        bound.iter().any(|(_, v, _)| match v {
            Value::List(items) | Value::Tuple(items) => items.iter().any(symbolic),
            other => symbolic(other),
        })
    }

    /// Records a deferred operation; its result is a fresh opaque shape.
    /// Keeps a rank-dependent operation in the summary, to be applied at
    /// each call; its result stands for the operation's until then.
    pub fn defer(
        &mut self,
        op: &str,
        args: Vec<(String, Value, String)>,
        range: TextRange,
    ) -> Value {
        // The same operation on the same values on the same path has the
        // same result: a callee called three times with one argument
        // defers its operations once, not three times at every level of
        // calls (3^k deferred operations for a chain of k such functions).
        // Such repeats come a few operations apart: only the latest are
        // compared (a loop that defers a million operations would compare
        // each with all before it).
        let same = |d: &Deferred| {
            d.op == op
                && d.range == range
                && d.guard == self.guard
                && d.args.len() == args.len()
                && d.args
                    .iter()
                    .zip(&args)
                    .all(|((n, v, _), (m, w, _))| n == m && v == w)
        };
        const LATEST: usize = 64;
        if let Some(earlier) = self.deferred.iter().rev().take(LATEST).find(|d| same(d)) {
            return Value::Tensor(Shape::opaque(earlier.result));
        }
        let result = self.analysis.vars.fresh();
        let shape = Shape::opaque(result);
        self.assume(shape.well_formed(), range);
        self.deferred.push(Deferred {
            op: op.to_owned(),
            args,
            result,
            range,
            guard: self.guard.clone(),
        });
        Value::Tensor(shape)
    }

    /// Instantiates the callee's summary with the arguments.
    pub fn call_summary(
        &mut self,
        function: FunctionRef<'a>,
        bound: Vec<(String, Value, String)>,
        range: TextRange,
        text: &str,
    ) -> Value {
        let Some(mut summary) = self.analysis.summary(function.clone()) else {
            return Value::Unknown;
        };
        // Only a body can be summarised again (the file's, or an imported
        // file's, which the source has); a contract's placeholders are
        // what it states.
        let has_body = !function.function.is_extern;
        let fixed = match has_body {
            true => super::specialise::fixed_arguments(&summary, &bound),
            false => Vec::new(),
        };
        if !fixed.is_empty() {
            match self
                .analysis
                .summary_for_arguments(function.clone(), &fixed)
            {
                Some(own) => summary = own,
                None => return Value::Unknown,
            }
        }
        // A list or dict the summary loses track of (changed on a path a
        // number decides, `if width not in (1, 2)`): the call's own
        // numbers decide that path.
        if has_body && super::specialise::loses_containers(&summary) {
            let all = super::specialise::all_but_tensors(&bound);
            if all.len() > fixed.len() {
                match self.analysis.summary_for_arguments(function.clone(), &all) {
                    Some(own) => summary = own,
                    None => return Value::Unknown,
                }
            }
        }
        if has_body && (summary.numbers_decide || summary.ranks_decide) {
            if let Some(own) = self.summary_for_call_values(function.clone(), &summary, &bound) {
                summary = own;
            }
        }
        // Still lost here: this function's callers may know the numbers
        // or ranks.
        self.numbers_decide |= summary.numbers_decide;
        self.ranks_decide |= summary.ranks_decide;
        let call = CallSite {
            range,
            callee: function.key(),
            text: text.to_owned(),
        };
        self.instantiate(&summary, call, bound)
    }
}

impl<'f, 'a> Frame<'f, 'a> {
    /// A summary of `function` for this call's own values, where the one
    /// given lost a value they decide (see `Summary::numbers_decide` and
    /// `Summary::ranks_decide`): its known numbers (a module name formatted
    /// from one, a loop's count), and its tensors where their ranks are
    /// known (`x.chunk(2, dim=1)`, `[1] * (x.ndim - 1)`). `None` where the
    /// call knows nothing more, or past the limits (the summary with
    /// placeholders still holds then).
    fn summary_for_call_values(
        &mut self,
        function: FunctionRef<'a>,
        summary: &Summary,
        bound: &[(String, Value, String)],
    ) -> Option<Arc<Summary>> {
        let refined: Vec<(String, Value, String)> = bound
            .iter()
            .map(|(name, value, text)| (name.clone(), self.refine(value.clone()), text.clone()))
            .collect();
        let tensors_known = refined
            .iter()
            .any(|(_, v, _)| matches!(v, Value::Tensor(shape) if shape.dims().is_some()));
        let numbers_known = refined
            .iter()
            .any(|(_, v, _)| super::specialise::holds_known_number(v));
        let fixed = match (tensors_known, summary.numbers_decide && numbers_known) {
            (true, _) => super::specialise::all_known(&refined),
            (false, true) => super::specialise::all_but_tensors(&refined),
            (false, false) => return None,
        };
        self.analysis.summary_for_arguments(function, &fixed)
    }
}

/// Python's `**kwargs`: the named arguments no other parameter took, as a
/// dict.
fn keywords(sources: &[Source], given: &[GivenArg]) -> Value {
    let fields = sources
        .iter()
        .filter_map(|source| match source {
            Source::Arg(i) => Some((given[*i].name.clone()?, given[*i].value.clone())),
            Source::Receiver(_) => None,
        })
        .collect();
    Instance::dict(fields)
}

/// `functools.partial(callee, ...)`: a partial of a callable value, with
/// the arguments after it; of a partial, its arguments and these.
fn partial(mut given: Vec<GivenArg>) -> Value {
    if given.first().is_none_or(|first| first.name.is_some()) {
        return Value::Unknown;
    }
    let callee = given.remove(0);
    match callee.value {
        Value::Callable(name) => Value::Partial(Arc::new(Partial {
            callee: PartialCallee::Named(name),
            args: given,
        })),
        Value::Closure(closure) => Value::Partial(Arc::new(Partial {
            callee: PartialCallee::Closure(closure),
            args: given,
        })),
        Value::Partial(inner) => Value::Partial(Arc::new(Partial {
            callee: inner.callee.clone(),
            args: inner.with_call_args(given),
        })),
        _ => Value::Unknown,
    }
}

/// `len(value)`: a list's or tuple's number of items, a shape's rank, a
/// tensor's first dimension.
fn length(value: &Value) -> Value {
    match value {
        Value::List(items) | Value::Tuple(items) => Value::Int(Term::int(items.len() as i64)),
        Value::Shape(shape) => Value::Int(shape.rank()),
        Value::Str(text) => Value::Int(Term::int(text.chars().count() as i64)),
        Value::Instance(dict) => match dict.known_len() {
            Some(n) => Value::Int(Term::int(n as i64)),
            None => Value::Unknown,
        },
        Value::Tensor(shape) => match shape.dims() {
            Some([first, ..]) => Value::Int(first.clone()),
            _ => Value::Unknown,
        },
        Value::Layer(layer) => match layer.sequential_layers() {
            Some(layers) => Value::Int(Term::int(layers.len() as i64)),
            None => Value::Unknown,
        },
        _ => Value::Unknown,
    }
}

/// The site of `value` if it is a layer, held by `name` defined at `at`.
fn layer_site(value: &Value, name: &str, at: TextRange) -> Option<LayerSite> {
    let Value::Layer(layer) = value else {
        return None;
    };
    Some(LayerSite {
        name: name.to_owned(),
        constructed: at,
        parameters: layer.args.iter().map(|(p, _)| p.clone()).collect(),
    })
}
