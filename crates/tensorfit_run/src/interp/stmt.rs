//! Statements: bindings, assignments, assertions and control flow.

use tensorfit_syntax::ast::{self, AssignOp, ElseBranch, Pattern, Stmt, StmtKind};

use super::{Frame, Interpreter};
use crate::error::{Failure, Outcome};
use crate::value::Value;

/// How a block ended.
pub enum Flow {
    Normal,
    Return(Value),
}

impl Interpreter<'_> {
    pub(crate) fn exec_block(&mut self, frame: &mut Frame, stmts: &[Stmt]) -> Outcome<Flow> {
        frame.push_scope();
        let result = self.exec_stmts(frame, stmts);
        frame.pop_scope();
        result
    }

    /// Statements in the current scope (the script body's are all in one).
    pub(crate) fn exec_stmts(&mut self, frame: &mut Frame, stmts: &[Stmt]) -> Outcome<Flow> {
        for stmt in stmts {
            if let Flow::Return(v) = self.exec(frame, stmt)? {
                return Ok(Flow::Return(v));
            }
        }
        Ok(Flow::Normal)
    }

    fn exec(&mut self, frame: &mut Frame, stmt: &Stmt) -> Outcome<Flow> {
        self.step()?;
        if let Some(trace) = self.trace.as_mut() {
            trace.reached.insert((frame.file, stmt.range));
        }
        let location = self.location(frame, stmt.range);
        self.exec_kind(frame, stmt).map_err(|f| f.at(location))
    }

    fn exec_kind(&mut self, frame: &mut Frame, stmt: &Stmt) -> Outcome<Flow> {
        match &stmt.kind {
            StmtKind::Let { pattern, ty, value } => {
                self.bind_statement(frame, pattern, ty.as_ref(), Some(value), false)?;
            }
            StmtKind::Var { pattern, ty, value } => {
                self.bind_statement(frame, pattern, ty.as_ref(), value.as_ref(), true)?;
            }
            StmtKind::Assign { target, op, value } => self.assign(frame, target, *op, value)?,
            StmtKind::Assert {
                condition, message, ..
            } => {
                if !self.condition(frame, condition)? {
                    let said = match message {
                        Some(m) => match self.eval(frame, m)? {
                            Value::Str(s) => format!(": {s}"),
                            other => format!(": {other}"),
                        },
                        None => String::new(),
                    };
                    let why = self.explain(frame, condition);
                    return Err(Failure::shape(format!(
                        "assertion failed: `{}`{why}{said}",
                        self.text(frame.file, condition.range)
                    )));
                }
            }
            StmtKind::If {
                condition,
                then_branch,
                else_branch,
            } => {
                if self.condition(frame, condition)? {
                    return self.exec_block(frame, &then_branch.stmts);
                }
                match else_branch {
                    None => {}
                    Some(ElseBranch::Block(block)) => return self.exec_block(frame, &block.stmts),
                    Some(ElseBranch::If(stmt)) => {
                        frame.push_scope();
                        let flow = self.exec(frame, stmt);
                        frame.pop_scope();
                        return flow;
                    }
                }
            }
            StmtKind::For {
                variable,
                start,
                end,
                body,
            } => {
                let start = self.int(frame, start)?;
                let end = self.int(frame, end)?;
                for i in start..end {
                    self.step()?;
                    frame.push_scope();
                    if let Some(name) = variable {
                        frame.define(&name.text, Some(Value::Int(i)), false, None);
                    }
                    let flow = self.exec_block(frame, &body.stmts);
                    frame.pop_scope();
                    if let Flow::Return(v) = flow? {
                        return Ok(Flow::Return(v));
                    }
                }
            }
            StmtKind::While { condition, body } => {
                while self.condition(frame, condition)? {
                    self.step()?;
                    if let Flow::Return(v) = self.exec_block(frame, &body.stmts)? {
                        return Ok(Flow::Return(v));
                    }
                }
            }
            StmtKind::Return(value) => {
                let value = match value {
                    Some(e) => self.eval(frame, e)?,
                    None => Value::None,
                };
                if let Some((ty, display)) = frame.result.clone() {
                    let what = format!("the result of `{display}`");
                    self.check_type(frame, &ty, &value, &what, false)?;
                }
                return Ok(Flow::Return(value));
            }
            StmtKind::Expr(e) => {
                self.eval(frame, e)?;
            }
        }
        Ok(Flow::Normal)
    }

    /// `let` and `var`.
    fn bind_statement(
        &mut self,
        frame: &mut Frame,
        pattern: &Pattern,
        ty: Option<&ast::Type>,
        value: Option<&ast::Expr>,
        mutable: bool,
    ) -> Outcome<()> {
        if let Pattern::Index { .. } = pattern {
            let Some(value) = value else {
                return Err(Failure::program("an index-notation `var` needs a value"));
            };
            let result = self.kernel_define(frame, pattern, value)?;
            self.record_binding(frame, pattern.range(), &result);
            if let Pattern::Index { name, .. } = pattern {
                frame.define(&name.text, Some(result), mutable, None);
            }
            return Ok(());
        }
        let value = match value {
            Some(e) => Some(self.eval(frame, e)?),
            None => None,
        };
        if let (Some(ty), Some(v)) = (ty, &value) {
            let what = self.text(frame.file, pattern.range());
            // An annotation may name new dimensions (docs/language.md).
            self.check_type(frame, ty, v, what, true)?;
        }
        match value {
            Some(v) => self.destructure(frame, pattern, v, mutable, ty),
            None => {
                if let Pattern::Name(name) = pattern {
                    frame.define(&name.text, None, mutable, ty.cloned());
                }
                Ok(())
            }
        }
    }

    fn destructure(
        &mut self,
        frame: &mut Frame,
        pattern: &Pattern,
        value: Value,
        mutable: bool,
        ty: Option<&ast::Type>,
    ) -> Outcome<()> {
        match pattern {
            Pattern::Name(name) => {
                self.record_binding(frame, name.range, &value);
                frame.define(&name.text, Some(value), mutable, ty.cloned());
                Ok(())
            }
            Pattern::Tuple { elements, .. } => {
                let items = match &value {
                    Value::Tuple(items) | Value::List(items) => items.clone(),
                    // `let (b, t, c) = x.shape`: one name per dimension, as
                    // the analysis reads it.
                    Value::Shape(dims) => {
                        std::rc::Rc::new(dims.iter().map(|d| Value::Int(*d)).collect())
                    }
                    other => {
                        return Err(Failure::shape(format!(
                            "cannot unpack {} into {} names",
                            other.describe(),
                            elements.len()
                        )))
                    }
                };
                if items.len() != elements.len() {
                    return Err(Failure::shape(format!(
                        "cannot unpack {} values into {} names",
                        items.len(),
                        elements.len()
                    )));
                }
                for (element, item) in elements.iter().zip(items.iter()) {
                    self.destructure(frame, element, item.clone(), mutable, None)?;
                }
                Ok(())
            }
            Pattern::Index { .. } | Pattern::Missing(_) => {
                Err(Failure::program("this binding is incomplete"))
            }
        }
    }

    fn assign(
        &mut self,
        frame: &mut Frame,
        target: &ast::Expr,
        op: AssignOp,
        value: &ast::Expr,
    ) -> Outcome<()> {
        if let ast::ExprKind::Subscript { .. } = &target.kind {
            return self.kernel_update(frame, target, op, value);
        }
        let Some(name) = target.as_name() else {
            return Err(Failure::program(format!(
                "cannot assign to `{}`",
                self.text(frame.file, target.range)
            )));
        };
        let new = self.eval(frame, value)?;
        let new = match op {
            AssignOp::Assign => new,
            AssignOp::AddAssign => {
                let old = self.read_name(frame, name)?;
                self.arithmetic(ast::BinaryOp::Add, &old, &new)?
            }
        };
        let declared = match frame.lookup(name) {
            None => {
                return Err(Failure::program(format!(
                    "`{name}` is assigned but never declared"
                )))
            }
            Some(slot) if !slot.mutable => {
                return Err(Failure::program(format!(
                    "`{name}` cannot be assigned: it is not a `var` or a parameter"
                )))
            }
            Some(slot) => slot.ty.clone(),
        };
        if let Some(ty) = declared {
            frame.push_scope();
            let checked = self.check_type(frame, &ty, &new, name, true);
            frame.pop_scope();
            checked?;
        }
        self.record_binding(frame, target.range, &new);
        if let Some(slot) = frame.lookup_mut(name) {
            slot.value = Some(new);
        }
        Ok(())
    }

    /// A condition of `if`, `while` or `assert`: a `Bool`, or a tensor of
    /// one element (PyTorch's `bool(t)`).
    pub(crate) fn condition(&mut self, frame: &mut Frame, e: &ast::Expr) -> Outcome<bool> {
        match self.eval(frame, e)? {
            Value::Bool(b) => Ok(b),
            Value::Tensor(t) if t.len() == 1 => Ok(t.iter().next().is_some_and(|v| *v != 0.0)),
            other => Err(Failure::shape(format!(
                "a condition must be a Bool, but `{}` is {}",
                self.text(frame.file, e.range),
                other.describe()
            ))),
        }
    }

    pub(crate) fn int(&mut self, frame: &mut Frame, e: &ast::Expr) -> Outcome<i64> {
        match self.eval(frame, e)? {
            Value::Int(i) => Ok(i),
            other => Err(Failure::shape(format!(
                "`{}` must be an Int, but it is {}",
                self.text(frame.file, e.range),
                other.describe()
            ))),
        }
    }

    /// For a failed comparison: the values its sides had, e.g.
    /// ` (x.shape[1] = 10, y.shape[0] = 30)`.
    pub(crate) fn explain(&mut self, frame: &mut Frame, e: &ast::Expr) -> String {
        let mut parts = Vec::new();
        self.collect_explained(frame, e, &mut parts);
        if parts.is_empty() {
            String::new()
        } else {
            format!(" ({})", parts.join(", "))
        }
    }

    fn collect_explained(&mut self, frame: &mut Frame, e: &ast::Expr, parts: &mut Vec<String>) {
        match &e.kind {
            ast::ExprKind::Compare { operands, .. } => {
                for operand in operands {
                    if matches!(
                        operand.kind,
                        ast::ExprKind::Int(_) | ast::ExprKind::Float(_) | ast::ExprKind::Bool(_)
                    ) {
                        continue;
                    }
                    if let Ok(v) = self.eval(frame, operand) {
                        parts.push(format!("{} = {v}", self.text(frame.file, operand.range)));
                    }
                }
            }
            ast::ExprKind::Binary {
                op: ast::BinaryOp::And | ast::BinaryOp::Or,
                lhs,
                rhs,
            } => {
                self.collect_explained(frame, lhs, parts);
                self.collect_explained(frame, rhs, parts);
            }
            ast::ExprKind::Unary { operand, .. } => self.collect_explained(frame, operand, parts),
            _ => {}
        }
    }
}
