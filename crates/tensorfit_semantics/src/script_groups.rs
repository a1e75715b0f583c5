//! The script body cut into groups of statements that share no variable.
//!
//! The script is one entry point, but its statements are often unrelated
//! (`let a = f(randn(8, 16))`, `let b = g(randn(4, 32))`). Statements that
//! share no variable of the script share no unknown of the analysis either
//! (holes are the program's own unknowns and are solved across entry
//! points anyway), so analysing each group on its own finds the same errors,
//! shapes and conditions, and lets the database re-solve only the group a
//! changed summary or statement reaches.
//!
//! The cut is conservative: two statements are joined when they mention
//! the same name that the script binds anywhere (with `let`, `var`, `for`,
//! index notation or a dimension name in an annotation), at any depth. A
//! `return` in the script ends the path for everything after it, so a
//! script with one is kept whole.

use std::collections::BTreeSet;

use tensorfit_syntax::ast;

/// The statements of `script` in groups that share no variable: indices
/// into `script`, each group in program order, the groups ordered by their
/// first statement.
pub fn independent_groups(script: &[ast::Stmt]) -> Vec<Vec<usize>> {
    if script.is_empty() {
        return Vec::new();
    }
    if script.iter().any(returns) {
        return vec![(0..script.len()).collect()];
    }
    let mut bound = BTreeSet::new();
    for stmt in script {
        collect_bound(stmt, &mut bound);
    }
    tensorfit_solver::components::group_by_shared_keys(script.iter().map(|stmt| {
        let mut mentioned = BTreeSet::new();
        Names(&mut mentioned).stmt(stmt);
        mentioned.retain(|name| bound.contains(name));
        mentioned
    }))
}

fn returns(stmt: &ast::Stmt) -> bool {
    matches!(stmt.kind, ast::StmtKind::Return(_)) || stmt.nested().into_iter().any(returns)
}

/// The names a statement binds, at any depth, and the names its type
/// annotations mention (a dimension name binds on first use).
fn collect_bound(stmt: &ast::Stmt, bound: &mut BTreeSet<String>) {
    match &stmt.kind {
        ast::StmtKind::Let { pattern, ty, .. } | ast::StmtKind::Var { pattern, ty, .. } => {
            let mut names = Names(bound);
            names.pattern(pattern);
            ty.iter().for_each(|t| names.ty(t));
        }
        ast::StmtKind::For {
            variable: Some(variable),
            ..
        } => {
            bound.insert(variable.text.clone());
        }
        _ => {}
    }
    for inner in stmt.nested() {
        collect_bound(inner, bound);
    }
}

/// Collects every name a piece of syntax mentions as a value, a binding,
/// an index or a dimension (not argument names or field names, which name
/// no variable).
struct Names<'a>(&'a mut BTreeSet<String>);

impl Names<'_> {
    fn name(&mut self, name: &ast::Name) {
        self.0.insert(name.text.clone());
    }

    fn stmt(&mut self, stmt: &ast::Stmt) {
        match &stmt.kind {
            ast::StmtKind::Let { pattern, ty, value } => {
                self.pattern(pattern);
                ty.iter().for_each(|t| self.ty(t));
                self.expr(value);
            }
            ast::StmtKind::Var { pattern, ty, value } => {
                self.pattern(pattern);
                ty.iter().for_each(|t| self.ty(t));
                value.iter().for_each(|v| self.expr(v));
            }
            ast::StmtKind::Assign { target, value, .. } => {
                self.expr(target);
                self.expr(value);
            }
            ast::StmtKind::Assert {
                condition, message, ..
            } => {
                self.expr(condition);
                message.iter().for_each(|m| self.expr(m));
            }
            ast::StmtKind::If {
                condition,
                then_branch,
                else_branch,
            } => {
                self.expr(condition);
                self.block(then_branch);
                match else_branch {
                    Some(ast::ElseBranch::Block(block)) => self.block(block),
                    Some(ast::ElseBranch::If(stmt)) => self.stmt(stmt),
                    None => {}
                }
            }
            ast::StmtKind::For {
                variable,
                start,
                end,
                body,
            } => {
                variable.iter().for_each(|v| self.name(v));
                self.expr(start);
                self.expr(end);
                self.block(body);
            }
            ast::StmtKind::While { condition, body } => {
                self.expr(condition);
                self.block(body);
            }
            ast::StmtKind::Return(value) => value.iter().for_each(|v| self.expr(v)),
            ast::StmtKind::Expr(expr) => self.expr(expr),
        }
    }

    fn block(&mut self, block: &ast::Block) {
        block.stmts.iter().for_each(|s| self.stmt(s));
    }

    fn pattern(&mut self, pattern: &ast::Pattern) {
        match pattern {
            ast::Pattern::Name(name) => self.name(name),
            ast::Pattern::Tuple { elements, .. } => elements.iter().for_each(|p| self.pattern(p)),
            ast::Pattern::Index { name, indices, .. } => {
                self.name(name);
                indices.iter().for_each(|i| self.name(i));
            }
            ast::Pattern::Missing(_) => {}
        }
    }

    fn ty(&mut self, ty: &ast::Type) {
        match &ty.kind {
            ast::TypeKind::Tensor { dims: Some(dims) } => {
                for dim in dims {
                    match dim {
                        ast::Dim::Unknown(_) => {}
                        ast::Dim::Segment { name, args, .. } => {
                            self.name(name);
                            args.iter().flatten().for_each(|a| self.name(a));
                        }
                        ast::Dim::Expr(expr) => self.expr(expr),
                    }
                }
            }
            ast::TypeKind::Tuple(types) => types.iter().for_each(|t| self.ty(t)),
            _ => {}
        }
    }

    fn expr(&mut self, expr: &ast::Expr) {
        match &expr.kind {
            ast::ExprKind::Name(name) => {
                self.0.insert(name.clone());
            }
            ast::ExprKind::List(items) | ast::ExprKind::Tuple(items) => {
                items.iter().for_each(|e| self.expr(e))
            }
            ast::ExprKind::Call { callee, args } => {
                self.expr(callee);
                args.iter().for_each(|a| self.expr(&a.value));
            }
            ast::ExprKind::Subscript { value, indices } => {
                self.expr(value);
                indices.iter().for_each(|e| self.expr(e));
            }
            ast::ExprKind::Slice { .. } => expr.children().into_iter().for_each(|e| self.expr(e)),
            ast::ExprKind::Field { value, .. } => self.expr(value),
            ast::ExprKind::Record(fields) => fields.iter().for_each(|f| self.expr(&f.value)),
            ast::ExprKind::Closure(closure) => {
                closure.captures.iter().for_each(|c| self.expr(&c.value))
            }
            ast::ExprKind::Unary { operand, .. } => self.expr(operand),
            ast::ExprKind::Binary { lhs, rhs, .. } => {
                self.expr(lhs);
                self.expr(rhs);
            }
            ast::ExprKind::Compare { operands, .. } => operands.iter().for_each(|e| self.expr(e)),
            ast::ExprKind::ShapeAssert { value, pattern, .. } => {
                self.expr(value);
                pattern.iter().for_each(|e| self.expr(e));
            }
            ast::ExprKind::Reduction { bindings, body, .. } => {
                for binding in bindings {
                    self.name(&binding.index);
                    if let Some((start, end)) = &binding.range {
                        self.expr(start);
                        self.expr(end);
                    }
                }
                self.expr(body);
            }
            ast::ExprKind::SelfValue
            | ast::ExprKind::Int(_)
            | ast::ExprKind::Float(_)
            | ast::ExprKind::Bool(_)
            | ast::ExprKind::Str(_)
            | ast::ExprKind::Hole
            | ast::ExprKind::UnknownDim
            | ast::ExprKind::Ellipsis
            | ast::ExprKind::NewAxis
            | ast::ExprKind::Missing
            | ast::ExprKind::Unknown(_)
            | ast::ExprKind::Builtin(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::independent_groups;

    fn groups(source: &str) -> Vec<Vec<usize>> {
        let file = tensorfit_syntax::parse(source).file;
        independent_groups(&file.script)
    }

    #[test]
    fn unrelated_statements_are_apart_and_related_ones_together() {
        let script = "\
let a = randn(8, 16)
let b = randn(4, 32)
let c = a @ ones(16, 2)
relu(b)
zeros(3) @ ones(4)
";
        assert_eq!(groups(script), vec![vec![0, 2], vec![1, 3], vec![4]]);
    }

    #[test]
    fn functions_and_prelude_names_do_not_join_but_shadowing_names_do() {
        let script = "\
let x = relu(randn(2, 3))
let y = relu(randn(4, 5))
let relu = ReLU()
let z = relu(randn(6, 7))
";
        // `relu` is bound by the script, so every statement naming it joins.
        assert_eq!(groups(script), vec![vec![0, 1, 2, 3]]);
        assert_eq!(
            groups("let x = relu(randn(2, 3))\nlet y = relu(randn(4, 5))\n"),
            vec![vec![0], vec![1]]
        );
    }

    #[test]
    fn blocks_vars_dimension_names_and_index_notation_join() {
        let script = "\
var acc = zeros(4)
let w = randn(4)
for i in 0..3 {
  acc = acc + w
}
let p: Tensor[n, 2] = randn(3, 2)
let q: Tensor[n, 2] = randn(5, 2)
let A[i, j] = w[i] * w[j]
";
        assert_eq!(groups(script), vec![vec![0, 1, 2, 5], vec![3, 4]]);
    }

    #[test]
    fn a_script_that_returns_stays_whole() {
        let script = "let a = randn(2)\nif true { return a }\nlet b = randn(3)\n";
        assert_eq!(groups(script), vec![vec![0, 1, 2]]);
    }
}
