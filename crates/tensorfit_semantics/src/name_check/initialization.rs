//! Reads of a `var` before it is assigned on every path, and `return`
//! outside a function.
//!
//! A forward data-flow over the statement tree: the set of `var`s
//! definitely assigned at each point. Which declaration a name is, is the
//! resolver's answer: an expression's reads are the resolved uses inside
//! its range (expressions hold no statements, so no flow happens inside
//! one).

use std::collections::HashSet;

use tensorfit_base::{Code, Diagnostic, TextRange};
use tensorfit_syntax::ast::{self, ExprKind, Pattern, StmtKind};

use crate::resolve::{name_range, DefId, DefKind, Resolution, Role, Target};

/// The `var`s definitely assigned on every path reaching a point; `None`
/// when no path reaches it (after `return`).
type Assigned = Option<HashSet<DefId>>;

pub(super) fn check(res: &Resolution<'_>, part: &ast::SourceFile, out: &mut Vec<Diagnostic>) {
    let mut flow = Flow {
        res,
        assigned: Some(HashSet::new()),
        reported: HashSet::new(),
        in_function: false,
        diagnostics: out,
    };
    for item in &part.items {
        match item {
            ast::Item::Function(f) => flow.function(f),
            ast::Item::Struct(s) => s.methods.iter().for_each(|m| flow.function(m)),
            ast::Item::Const(_) | ast::Item::Import(_) => {}
        }
    }
    flow.assigned = Some(HashSet::new());
    flow.stmts(&part.script);
}

struct Flow<'r, 'd> {
    res: &'r Resolution<'r>,
    assigned: Assigned,
    /// A `var` read too early is reported once.
    reported: HashSet<DefId>,
    in_function: bool,
    diagnostics: &'d mut Vec<Diagnostic>,
}

impl Flow<'_, '_> {
    fn function(&mut self, f: &ast::Function) {
        self.assigned = Some(HashSet::new());
        self.in_function = true;
        if let Some(body) = &f.body {
            self.stmts(&body.stmts);
        }
        self.in_function = false;
    }

    fn stmts(&mut self, stmts: &[ast::Stmt]) {
        for stmt in stmts {
            self.stmt(stmt);
        }
    }

    fn stmt(&mut self, stmt: &ast::Stmt) {
        match &stmt.kind {
            StmtKind::Let { pattern, ty, value } => {
                self.reads(value.range);
                self.type_reads(ty.as_ref());
                self.declared(pattern, true);
            }
            StmtKind::Var { pattern, ty, value } => {
                if let Some(value) = value {
                    self.reads(value.range);
                }
                self.type_reads(ty.as_ref());
                self.declared(pattern, value.is_some());
            }
            StmtKind::Assign { target, op, value } => {
                self.reads(value.range);
                self.assignment(target, *op);
            }
            StmtKind::Assert {
                condition, message, ..
            } => {
                self.reads(condition.range);
                if let Some(message) = message {
                    self.reads(message.range);
                }
            }
            StmtKind::If {
                condition,
                then_branch,
                else_branch,
            } => {
                self.reads(condition.range);
                let before = self.assigned.clone();
                self.stmts(&then_branch.stmts);
                let after_then = std::mem::replace(&mut self.assigned, before);
                match else_branch {
                    Some(ast::ElseBranch::Block(block)) => self.stmts(&block.stmts),
                    Some(ast::ElseBranch::If(nested)) => self.stmt(nested),
                    None => {}
                }
                let after_else = self.assigned.take();
                self.assigned = join(after_then, after_else);
            }
            StmtKind::For {
                start, end, body, ..
            } => {
                self.reads(start.range);
                self.reads(end.range);
                self.loop_body(body);
            }
            StmtKind::While { condition, body } => {
                self.reads(condition.range);
                self.loop_body(body);
            }
            StmtKind::Return(value) => {
                if let Some(value) = value {
                    self.reads(value.range);
                }
                if !self.in_function {
                    self.diagnostics.push(Diagnostic::new(
                        Code::ReturnOutsideFunction,
                        stmt.range,
                        "`return` outside of a function: the script body has no result",
                    ));
                }
                self.assigned = None;
            }
            StmtKind::Expr(expr) => self.reads(expr.range),
        }
    }

    /// A loop body may run zero times: what it assigns is not assigned
    /// after it.
    fn loop_body(&mut self, body: &ast::Block) {
        let before = self.assigned.clone();
        self.stmts(&body.stmts);
        self.assigned = before;
    }

    fn type_reads(&mut self, ty: Option<&ast::Type>) {
        if let Some(ty) = ty {
            self.reads(ty.range);
        }
    }

    /// Every `var` read inside `range` must be assigned by now.
    fn reads(&mut self, range: TextRange) {
        let res = self.res;
        for occurrence in res.occurrences_within(range) {
            if occurrence.declaration || occurrence.role == Role::Assigned {
                continue;
            }
            if let Target::Def(id) = occurrence.target {
                if res.defs[id].kind == DefKind::Var {
                    self.check_initialized(id, occurrence.range);
                }
            }
        }
    }

    fn declared(&mut self, pattern: &Pattern, initialized: bool) {
        match pattern {
            Pattern::Name(name) | Pattern::Index { name, .. } => {
                if initialized {
                    if let Some(id) = self.declaration_at(name.range) {
                        self.mark_assigned(id);
                    }
                }
            }
            Pattern::Tuple { elements, .. } => {
                for element in elements {
                    self.declared(element, initialized);
                }
            }
            Pattern::Missing(_) => {}
        }
    }

    /// `x = ...`, `x += ...`, `x[i] = ...`: the name's `var` (or parameter)
    /// is assigned from here on; `+=` reads it first.
    fn assignment(&mut self, target: &ast::Expr, op: ast::AssignOp) {
        let named = match &target.kind {
            ExprKind::Name(name) => Some((target, name.as_str())),
            ExprKind::Subscript { value, .. } => value.as_name().map(|name| (&**value, name)),
            _ => None,
        };
        let Some((expr, name)) = named else { return };
        let range = name_range(expr, name);
        let Some(occurrence) = self.res.occurrence_exactly_at(range) else {
            return;
        };
        let Target::Def(id) = occurrence.target else {
            return;
        };
        if matches!(self.res.defs[id].kind, DefKind::Var | DefKind::Param) {
            if op == ast::AssignOp::AddAssign {
                self.check_initialized(id, range);
            }
            self.mark_assigned(id);
        }
    }

    fn declaration_at(&self, range: TextRange) -> Option<DefId> {
        let occurrence = self.res.occurrence_exactly_at(range)?;
        match occurrence.target {
            Target::Def(id) if occurrence.declaration => Some(id),
            _ => None,
        }
    }

    fn check_initialized(&mut self, id: DefId, range: TextRange) {
        let Some(assigned) = &self.assigned else {
            return;
        };
        if assigned.contains(&id) || !self.reported.insert(id) {
            return;
        }
        let def = &self.res.defs[id];
        self.diagnostics.push(
            Diagnostic::new(
                Code::UninitializedRead,
                range,
                format!(
                    "`{}` is read before it is initialized on some path",
                    def.name
                ),
            )
            .with_related(
                def.name_range,
                format!("`{}` is declared here without a value", def.name),
            ),
        );
    }

    fn mark_assigned(&mut self, id: DefId) {
        if let Some(assigned) = &mut self.assigned {
            assigned.insert(id);
        }
    }
}

/// What is assigned after an `if`: assigned on both branches, where a
/// branch that cannot finish (it returned) does not count.
fn join(a: Assigned, b: Assigned) -> Assigned {
    match (a, b) {
        (None, other) | (other, None) => other,
        (Some(a), Some(b)) => Some(a.intersection(&b).copied().collect()),
    }
}
