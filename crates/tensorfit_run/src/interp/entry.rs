//! Entry points: the script body, or a function (or `Struct.method`)
//! whose parameters come from `--input` or are drawn at random when their
//! types fix their shapes.

use std::collections::HashMap;

use tensorfit_syntax::ast::{self, Dim, TypeKind};

use super::call::CallArgs;
use super::{Flow, Frame, Interpreter};
use crate::error::{Failure, Outcome};
use crate::ops::creation;
use crate::program::{FileId, ItemRef};
use crate::value::Value;

/// A value given on the command line: `x=2x3x4` (a random tensor of that
/// shape), `n=5` (an `Int`), `p=0.5` (a `Float`).
#[derive(Clone, Debug, PartialEq)]
pub enum InputValue {
    Shape(Vec<i64>),
    Int(i64),
    Float(f64),
}

impl InputValue {
    pub fn parse(text: &str) -> Result<InputValue, String> {
        if let Ok(i) = text.parse::<i64>() {
            return Ok(InputValue::Int(i));
        }
        if text.contains('x') || text.starts_with('[') {
            let inner = text.trim_start_matches('[').trim_end_matches(']');
            let dims: Result<Vec<i64>, _> = inner
                .split(['x', ','])
                .filter(|p| !p.trim().is_empty())
                .map(|p| p.trim().parse::<i64>())
                .collect();
            return dims
                .map(InputValue::Shape)
                .map_err(|_| format!("`{text}` is not a shape like 2x3x4"));
        }
        text.parse::<f64>()
            .map(InputValue::Float)
            .map_err(|_| format!("`{text}` is not a shape like 2x3x4, an Int or a Float"))
    }
}

impl Interpreter<'_> {
    /// Runs the script body of the main file; gives its top-level names.
    pub fn run_script(&mut self) -> Outcome<Vec<(String, Value)>> {
        let file = self.program.main();
        let tree = self.program.file(file).tree.clone();
        let mut frame = Frame::new(file);
        if let Flow::Return(_) = self.exec_stmts(&mut frame, &tree.script)? {
            return Err(Failure::program("`return` is not allowed in the script"));
        }
        let mut names = Vec::new();
        for stmt in &tree.script {
            let pattern = match &stmt.kind {
                ast::StmtKind::Let { pattern, .. } | ast::StmtKind::Var { pattern, .. } => pattern,
                _ => continue,
            };
            collect_names(pattern, &mut names);
        }
        names.dedup();
        Ok(names
            .into_iter()
            .filter_map(|n| {
                let v = frame.lookup(&n)?.value.clone()?;
                Some((n, v))
            })
            .collect())
    }

    /// Calls `entry` (`f` or `Struct.method`) with `inputs`, drawing the
    /// others at random.
    pub fn run_entry(
        &mut self,
        entry: &str,
        inputs: &HashMap<String, InputValue>,
    ) -> Outcome<Value> {
        let file = self.program.main();
        let (struct_name, method) = match entry.split_once('.') {
            Some((s, m)) => (Some(s), m),
            None => (None, entry),
        };
        let scope = &self.program.file(file).scope;
        match struct_name {
            None => {
                let Some(ItemRef::Function { file, item }) = scope.get(method).copied() else {
                    return Err(Failure::program(format!(
                        "there is no function `{entry}` in the file"
                    )));
                };
                let function = self.program.function(file, item);
                let args = self.entry_arguments(file, &function.params, inputs)?;
                self.call_function(file, item, None, args)
            }
            Some(struct_name) => {
                let Some(ItemRef::Struct(id)) = scope.get(struct_name).copied() else {
                    return Err(Failure::program(format!(
                        "there is no struct `{struct_name}` in the file"
                    )));
                };
                let def = self.program.struct_def(id);
                let params = def.params.clone().unwrap_or_default();
                let constructor_args = self.entry_arguments(id.file, &params, inputs)?;
                let instance = self.construct(id, constructor_args)?;
                let Some(function) = def
                    .methods
                    .iter()
                    .find(|m| m.name.as_ref().is_some_and(|n| n.text == method))
                else {
                    return Err(Failure::program(format!(
                        "`{struct_name}` has no method `{method}`"
                    )));
                };
                let args = self.entry_arguments(id.file, &function.params, inputs)?;
                self.call_method(instance, method, args)
            }
        }
    }

    /// Calls the function `entry` with the given positional arguments.
    pub fn call_entry_with(&mut self, entry: &str, arguments: Vec<Value>) -> Outcome<Value> {
        let file = self.program.main();
        let Some(ItemRef::Function { file, item }) = self.program.lookup(file, entry) else {
            return Err(Failure::program(format!(
                "there is no function `{entry}` in the file"
            )));
        };
        self.call_function(file, item, None, CallArgs::positional(arguments))
    }

    fn entry_arguments(
        &mut self,
        file: FileId,
        params: &[ast::Param],
        inputs: &HashMap<String, InputValue>,
    ) -> Outcome<CallArgs> {
        let mut frame = Frame::new(file);
        let param_names: Vec<&str> = params.iter().map(|p| p.name.text.as_str()).collect();
        // Inputs that name no parameter fix dimension names: `--input n=4`.
        for (name, value) in inputs {
            if let (false, InputValue::Int(i)) = (param_names.contains(&name.as_str()), value) {
                frame.define(name, Some(Value::Int(*i)), false, None);
            }
        }
        let mut args = CallArgs::default();
        for param in params.iter().filter(|p| !p.is_self) {
            let name = &param.name.text;
            let value = match inputs.get(name) {
                Some(InputValue::Int(i)) if !is_tensor(param.ty.as_ref()) => Value::Int(*i),
                Some(InputValue::Int(i)) => {
                    Value::tensor(creation::random(&mut self.ops, &[*i], true)?)
                }
                Some(InputValue::Float(f)) => Value::Float(*f),
                Some(InputValue::Shape(dims)) => {
                    Value::tensor(creation::random(&mut self.ops, dims, true)?)
                }
                None if param.default.is_some() => continue,
                None => self.random_argument(&mut frame, param)?,
            };
            if let Some(ty) = &param.ty {
                let what = format!("`{name}`");
                self.check_type(&mut frame, ty, &value, &what, true)?;
            }
            args.named.push((name.clone(), value));
        }
        Ok(args)
    }

    /// A random tensor for a parameter whose type fixes its shape.
    fn random_argument(&mut self, frame: &mut Frame, param: &ast::Param) -> Outcome<Value> {
        let name = &param.name.text;
        let needs_input = |why: &str| {
            Failure::program(format!(
                "give the parameter `{name}` with `--input {name}=…`: {why}"
            ))
        };
        let Some(ty) = &param.ty else {
            return Err(needs_input("it has no type"));
        };
        let TypeKind::Tensor { dims: Some(dims) } = &ty.kind else {
            return Err(needs_input(&format!(
                "its type `{}` does not fix a shape",
                self.text(frame.file, ty.range)
            )));
        };
        let mut shape = Vec::new();
        for dim in dims {
            match dim {
                Dim::Unknown(_) => return Err(needs_input("its type has `?`")),
                Dim::Segment { name: segment, .. } => {
                    match frame
                        .lookup(&segment.text)
                        .and_then(|s| s.value.as_ref())
                        .and_then(Value::as_dims)
                    {
                        Some(d) => shape.extend(d),
                        None => {
                            return Err(needs_input(&format!("nothing fixes `..{}`", segment.text)))
                        }
                    }
                }
                Dim::Expr(e) => {
                    if let Some(dim_name) = e.as_name() {
                        let known = frame.lookup(dim_name).is_some()
                            || self.program.lookup(frame.file, dim_name).is_some();
                        if !known {
                            return Err(needs_input(&format!(
                                "nothing fixes `{dim_name}` (or give it: `--input {dim_name}=…`)"
                            )));
                        }
                    }
                    shape.push(self.int(frame, e)?);
                }
            }
        }
        Ok(Value::tensor(creation::random(
            &mut self.ops,
            &shape,
            true,
        )?))
    }
}

fn is_tensor(ty: Option<&ast::Type>) -> bool {
    matches!(ty.map(|t| &t.kind), Some(TypeKind::Tensor { .. }))
}

fn collect_names(pattern: &ast::Pattern, out: &mut Vec<String>) {
    match pattern {
        ast::Pattern::Name(n) => out.push(n.text.clone()),
        ast::Pattern::Index { name, .. } => out.push(name.text.clone()),
        ast::Pattern::Tuple { elements, .. } => elements.iter().for_each(|e| collect_names(e, out)),
        ast::Pattern::Missing(_) => {}
    }
}
