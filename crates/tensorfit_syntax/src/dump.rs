//! The lowered tree as text, a statement a line: what a front end made of
//! a program, for tests that show a lowering (`tests/lowering/` of the
//! Python front end) and for reading one while debugging. Expressions are
//! printed with everything the tree holds (an unknown's reason, `*` and
//! `**` of arguments); ranges are left out, so a snapshot changes only
//! when the lowering does.

use std::fmt::Write;

use crate::ast::{self, ElseBranch, Item, Pattern, StmtKind, TypeKind};
use crate::print::expr_exact as expr;

/// The whole file: its items in order, then its script.
pub fn source_file(file: &ast::SourceFile) -> String {
    let mut out = Dump::default();
    for item in &file.items {
        out.item(item);
    }
    if !file.script.is_empty() {
        out.line("script:");
        out.indented(|out| out.stmts(&file.script));
    }
    out.text
}

#[derive(Default)]
struct Dump {
    text: String,
    depth: usize,
}

impl Dump {
    fn line(&mut self, line: &str) {
        for _ in 0..self.depth {
            self.text.push_str("  ");
        }
        self.text.push_str(line);
        self.text.push('\n');
    }

    fn indented(&mut self, inside: impl FnOnce(&mut Dump)) {
        self.depth += 1;
        inside(self);
        self.depth -= 1;
    }

    /// `field name: Type = value`, after `kind` (`field`, `class field`).
    fn field(&mut self, kind: &str, field: &ast::Field) {
        let (name, ty) = (&field.name.text, annotation(&field.ty));
        self.line(&format!("{kind} {name}{ty} = {}", expr(&field.value)));
    }

    fn item(&mut self, item: &Item) {
        match item {
            Item::Const(c) => {
                let name = c.name.as_ref().map_or("…", |n| n.text.as_str());
                self.line(&format!(
                    "const {name}{} = {}",
                    annotation(&c.ty),
                    expr(&c.value)
                ));
            }
            Item::Import(import) => {
                let path = import.path.as_deref().unwrap_or("…");
                match import.names.as_slice() {
                    [] => self.line(&format!("import {path:?}")),
                    names => self.line(&format!("from {path:?} import {}", names.join(", "))),
                }
            }
            Item::Function(function) => self.function(function),
            Item::Struct(s) => {
                let name = s.name.as_ref().map_or("…", |n| n.text.as_str());
                let params = s.params.as_deref().map(params).unwrap_or_default();
                let kind = match s.enumeration {
                    None => "struct",
                    Some(ast::Enumeration::Plain) => "enum",
                    Some(ast::Enumeration::Int) => "enum(int)",
                    Some(ast::Enumeration::Str) => "enum(str)",
                };
                self.line(&format!("{kind} {name}({params})"));
                self.indented(|out| {
                    for field in &s.class_fields {
                        out.field("class field", field);
                    }
                    if let Some(init) = &s.init {
                        out.line("init:");
                        out.indented(|out| out.stmts(&init.stmts));
                    }
                    for field in &s.fields {
                        out.field("field", field);
                    }
                    for method in &s.methods {
                        out.function(method);
                    }
                });
            }
        }
    }

    fn function(&mut self, function: &ast::Function) {
        let name = function.name.as_ref().map_or("…", |n| n.text.as_str());
        let result = match &function.return_type {
            Some(ty) => format!(" -> {}", type_text(ty)),
            None => String::new(),
        };
        let extern_ = if function.is_extern { "extern " } else { "" };
        self.line(&format!(
            "{extern_}fn {name}({}){result}",
            params(&function.params)
        ));
        self.indented(|out| {
            for clause in &function.where_clauses {
                out.line(&format!("where {}", expr(clause)));
            }
            if let Some(body) = &function.body {
                out.stmts(&body.stmts);
            }
        });
    }

    /// The functions a statement's expressions make, each written below
    /// it with the values it takes from around it.
    fn closures_of(&mut self, stmt: &ast::Stmt) {
        for value in stmt.exprs() {
            for inner in value.descendants() {
                let ast::ExprKind::Closure(closure) = &inner.kind else {
                    continue;
                };
                self.indented(|out| {
                    out.function(&closure.function);
                    out.indented(|out| {
                        for capture in &closure.captures {
                            let (name, value) = (&capture.name.text, expr(&capture.value));
                            out.line(&format!("takes {name} = {value}"));
                        }
                    });
                });
            }
        }
    }

    fn stmts(&mut self, stmts: &[ast::Stmt]) {
        // An empty block is written as Python writes one, so that the
        // lines after it are not read as its body.
        if stmts.is_empty() {
            self.line("pass");
        }
        for stmt in stmts {
            self.stmt(stmt);
        }
    }

    fn stmt(&mut self, stmt: &ast::Stmt) {
        self.stmt_lines(stmt);
        self.closures_of(stmt);
    }

    fn stmt_lines(&mut self, stmt: &ast::Stmt) {
        match &stmt.kind {
            StmtKind::Let { pattern, ty, value } => {
                self.line(&format!(
                    "let {}{} = {}",
                    pattern_text(pattern),
                    annotation(ty),
                    expr(value)
                ));
            }
            StmtKind::Var { pattern, ty, value } => {
                let value = value
                    .as_ref()
                    .map(|v| format!(" = {}", expr(v)))
                    .unwrap_or_default();
                self.line(&format!(
                    "var {}{}{value}",
                    pattern_text(pattern),
                    annotation(ty)
                ));
            }
            StmtKind::Assign { target, op, value } => {
                let op = match op {
                    ast::AssignOp::Assign => "=",
                    ast::AssignOp::AddAssign => "+=",
                };
                self.line(&format!("{} {op} {}", expr(target), expr(value)));
            }
            StmtKind::Assert {
                condition,
                message,
                guard,
            } => {
                let keyword = if *guard { "guard" } else { "assert" };
                let message = message
                    .as_ref()
                    .map(|m| format!(", {}", expr(m)))
                    .unwrap_or_default();
                self.line(&format!("{keyword} {}{message}", expr(condition)));
            }
            StmtKind::If {
                condition,
                then_branch,
                else_branch,
            } => {
                self.line(&format!("if {}:", expr(condition)));
                self.indented(|out| out.stmts(&then_branch.stmts));
                let mut rest = else_branch.as_ref();
                while let Some(branch) = rest {
                    match branch {
                        ElseBranch::Block(block) => {
                            self.line("else:");
                            self.indented(|out| out.stmts(&block.stmts));
                            rest = None;
                        }
                        ElseBranch::If(nested) => {
                            let StmtKind::If {
                                condition,
                                then_branch,
                                else_branch,
                            } = &nested.kind
                            else {
                                self.line("else:");
                                self.indented(|out| out.stmt(nested));
                                break;
                            };
                            self.line(&format!("elif {}:", expr(condition)));
                            self.indented(|out| out.stmts(&then_branch.stmts));
                            rest = else_branch.as_ref();
                        }
                    }
                }
            }
            StmtKind::For {
                variable,
                start,
                end,
                body,
            } => {
                let variable = variable.as_ref().map_or("_", |v| v.text.as_str());
                self.line(&format!(
                    "for {variable} in {}..{}:",
                    expr(start),
                    expr(end)
                ));
                self.indented(|out| out.stmts(&body.stmts));
            }
            StmtKind::While { condition, body } => {
                self.line(&format!("while {}:", expr(condition)));
                self.indented(|out| out.stmts(&body.stmts));
            }
            StmtKind::Return(value) => match value {
                Some(value) => self.line(&format!("return {}", expr(value))),
                None => self.line("return"),
            },
            StmtKind::Expr(value) => self.line(&expr(value)),
        }
    }
}

fn params(params: &[ast::Param]) -> String {
    let written: Vec<String> = params
        .iter()
        .map(|param| {
            let mut text = String::new();
            if param.variadic {
                text.push_str("..");
            }
            match param.collects {
                Some(ast::Unpack::Positional) => text.push('*'),
                Some(ast::Unpack::Keywords) => text.push_str("**"),
                None => {}
            }
            text.push_str(&param.name.text);
            text.push_str(&annotation(&param.ty));
            if let Some(default) = &param.default {
                let _ = write!(text, " = {}", expr(default));
            }
            text
        })
        .collect();
    written.join(", ")
}

fn annotation(ty: &Option<ast::Type>) -> String {
    match ty {
        Some(ty) => format!(": {}", type_text(ty)),
        None => String::new(),
    }
}

fn type_text(ty: &ast::Type) -> String {
    match &ty.kind {
        TypeKind::Int => "Int".to_owned(),
        TypeKind::Number => "Number".to_owned(),
        TypeKind::Bool => "Bool".to_owned(),
        TypeKind::Float => "Float".to_owned(),
        TypeKind::Shape => "Shape".to_owned(),
        TypeKind::Tensor { dims: None } => "Tensor".to_owned(),
        TypeKind::Tensor { dims: Some(dims) } => {
            let dims: Vec<String> = dims
                .iter()
                .map(|dim| match dim {
                    ast::Dim::Unknown(_) => "?".to_owned(),
                    ast::Dim::Segment { name, args, .. } => match args {
                        Some(args) => {
                            let args: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
                            format!("..{}({})", name.text, args.join(", "))
                        }
                        None => format!("..{}", name.text),
                    },
                    ast::Dim::Expr(e) => expr(e),
                })
                .collect();
            format!("Tensor[{}]", dims.join(", "))
        }
        TypeKind::Tuple(items) => {
            let items: Vec<String> = items.iter().map(type_text).collect();
            format!("({})", items.join(", "))
        }
        TypeKind::Named(name) => name.text.clone(),
        TypeKind::Missing => "…".to_owned(),
    }
}

fn pattern_text(pattern: &Pattern) -> String {
    match pattern {
        Pattern::Name(name) => name.text.clone(),
        Pattern::Tuple { elements, .. } => {
            let elements: Vec<String> = elements.iter().map(pattern_text).collect();
            format!("({})", elements.join(", "))
        }
        Pattern::Index { name, indices, .. } => {
            let indices: Vec<&str> = indices.iter().map(|i| i.text.as_str()).collect();
            format!("{}[{}]", name.text, indices.join(", "))
        }
        Pattern::Missing(_) => "…".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_tensor_program_reads_back() {
        let parse = crate::parse(
            "struct M(n: Int = 2) {\n  fc = Linear(n, 4)\n  fn forward(self, x: Tensor[b, ?]) -> Tensor {\n    if x.shape[0] > 1 {\n      return self.fc(x)\n    } else if x.shape[0] == 1 {\n      return x\n    }\n    return x\n  }\n}\nlet m = M()\nfor i in 0..3 {\n  var y = m(zeros(2, 2))\n}\n",
        );
        expect_test::expect![[r#"
            struct M(n: Int = 2)
              field fc = Linear(n, 4)
              fn forward(self, x: Tensor[b, ?]) -> Tensor
                if x.shape[0] > 1:
                  return self.fc(x)
                elif x.shape[0] == 1:
                  return x
                return x
            script:
              let m = M()
              for i in 0..3:
                var y = m(zeros(2, 2))
        "#]]
        .assert_eq(&super::source_file(&parse.file));
    }
}
