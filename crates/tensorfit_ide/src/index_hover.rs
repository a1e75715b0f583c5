//! Hover on an index of an index-notation kernel: the extent it ranges
//! over, where that extent comes from (LANGUAGE.md §7): its explicit range
//! (`k: index over 0..h`), else the first dimension it indexes
//! (`i: index over M.shape[0] = m`, the dimension as hover shows `M`).

use tensorfit_base::TextRange;
use tensorfit_syntax::ast::{self, ElseBranch, Expr, ExprKind, Stmt, StmtKind};

use crate::analysis::FileAnalysis;
use crate::hover_basics::{Hover, Names};
use tensorfit_semantics::resolve::{DefKind, Target};

pub(crate) fn index_hover(analysis: &FileAnalysis, offset: u32, names: Names) -> Option<Hover> {
    // Resolving names walks the item around the offset: only done inside
    // an index statement.
    let stmt = statement_at(analysis.tree(), offset)?;
    let mut exprs = Vec::new();
    stmt_exprs(stmt, &mut exprs);
    let is_kernel = matches!(
        &stmt.kind,
        StmtKind::Let {
            pattern: ast::Pattern::Index { .. },
            ..
        } | StmtKind::Var {
            pattern: ast::Pattern::Index { .. },
            ..
        } | StmtKind::Assign {
            target: Expr {
                kind: ExprKind::Subscript { .. },
                ..
            },
            ..
        }
    ) || exprs
        .iter()
        .any(|e| matches!(e.kind, ExprKind::Reduction { .. }));
    if !is_kernel {
        return None;
    }
    let resolution = names.resolve(analysis, offset);
    let occurrence = resolution.occurrence_at(offset as usize)?;
    let Target::Def(id) = occurrence.target else {
        return None;
    };
    let def = resolution.defs.get(id)?;
    if def.kind != DefKind::IndexVar {
        return None;
    }
    let text = &analysis.text;
    let slice = |range: TextRange| text.get(range.as_usize()).unwrap_or("").trim().to_owned();
    // An explicit range: `sum(k in 0..h)`.
    for e in &exprs {
        if let ExprKind::Reduction { bindings, .. } = &e.kind {
            for binding in bindings {
                if binding.index.range == def.name_range {
                    if let Some((start, end)) = &binding.range {
                        return Some(hover_text(
                            occurrence.range,
                            format!(
                                "{}: index over {}..{}",
                                def.name,
                                slice(start.range),
                                slice(end.range)
                            ),
                        ));
                    }
                }
            }
        }
    }
    // Else the first dimension it indexes, in source order.
    let uses: Vec<TextRange> = resolution
        .occurrences
        .iter()
        .filter(|o| o.target == Target::Def(id))
        .map(|o| o.range)
        .collect();
    let mut subscripts: Vec<(&Expr, usize, TextRange)> = Vec::new();
    for e in &exprs {
        if let ExprKind::Subscript { value, indices } = &e.kind {
            for (position, index) in indices.iter().enumerate() {
                if uses.contains(&index.range) {
                    subscripts.push((value, position, index.range));
                }
            }
        }
    }
    subscripts.sort_by_key(|(_, _, range)| range.start);
    let (tensor, position, _) = subscripts.first()?;
    let tensor_text = slice(tensor.range);
    let dimension = shape_at(analysis, tensor.range)
        .and_then(|shape| dims(&shape).get(*position).cloned())
        .map(|d| format!(" = {d}"))
        .unwrap_or_default();
    Some(hover_text(
        occurrence.range,
        format!(
            "{}: index over {tensor_text}.shape[{position}]{dimension}",
            def.name
        ),
    ))
}

fn hover_text(range: TextRange, text: String) -> Hover {
    Hover {
        range,
        text,
        documentation: None,
    }
}

/// The shape hover shows for the expression at exactly `range`.
fn shape_at(analysis: &FileAnalysis, range: TextRange) -> Option<String> {
    let shapes = analysis.shapes();
    shapes
        .expressions
        .iter()
        .chain(&shapes.bindings)
        .find(|s| s.range == range)
        .map(|s| s.shape.clone())
}

/// The dimensions of `Tensor[a, b / 2, c]`, split at top-level commas.
fn dims(shape: &str) -> Vec<String> {
    let Some(inner) = shape
        .strip_prefix("Tensor[")
        .and_then(|s| s.strip_suffix(']'))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let (mut depth, mut current) = (0i32, String::new());
    for c in inner.chars() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(current.trim().to_owned());
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_owned());
    }
    out
}

/// The innermost simple statement (not a block) containing `offset`.
fn statement_at(file: &ast::SourceFile, offset: u32) -> Option<&Stmt> {
    let contains = |range: TextRange| range.start <= offset && offset <= range.end;
    let mut bodies: Vec<&[Stmt]> = vec![&file.script];
    for item in &file.items {
        match item {
            ast::Item::Function(f) => bodies.extend(f.body.as_ref().map(|b| b.stmts.as_slice())),
            ast::Item::Struct(s) => bodies.extend(
                s.methods
                    .iter()
                    .filter_map(|m| m.body.as_ref().map(|b| b.stmts.as_slice())),
            ),
            _ => {}
        }
    }
    let mut found = None;
    while let Some(stmts) = bodies.pop() {
        for stmt in stmts.iter().filter(|s| contains(s.range)) {
            match &stmt.kind {
                StmtKind::If {
                    then_branch,
                    else_branch,
                    ..
                } => {
                    bodies.push(&then_branch.stmts);
                    let mut next = else_branch.as_ref();
                    while let Some(branch) = next {
                        match branch {
                            ElseBranch::Block(block) => {
                                bodies.push(&block.stmts);
                                next = None;
                            }
                            ElseBranch::If(nested) => {
                                if let StmtKind::If {
                                    then_branch,
                                    else_branch,
                                    ..
                                } = &nested.kind
                                {
                                    bodies.push(&then_branch.stmts);
                                    next = else_branch.as_ref();
                                } else {
                                    next = None;
                                }
                            }
                        }
                    }
                }
                StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
                    bodies.push(&body.stmts)
                }
                _ => found = Some(stmt),
            }
        }
    }
    found
}

/// The expressions of a statement, every sub-expression included.
fn stmt_exprs<'a>(stmt: &'a Stmt, out: &mut Vec<&'a Expr>) {
    match &stmt.kind {
        StmtKind::Let { value, .. }
        | StmtKind::Var {
            value: Some(value), ..
        } => expr_tree(value, out),
        StmtKind::Assign { target, value, .. } => {
            expr_tree(target, out);
            expr_tree(value, out);
        }
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) => expr_tree(e, out),
        _ => {}
    }
}

fn expr_tree<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    out.push(e);
    match &e.kind {
        ExprKind::List(items) | ExprKind::Tuple(items) => {
            items.iter().for_each(|i| expr_tree(i, out))
        }
        ExprKind::Call { callee, args } => {
            expr_tree(callee, out);
            args.iter().for_each(|a| expr_tree(&a.value, out));
        }
        ExprKind::Subscript { value, indices } => {
            expr_tree(value, out);
            indices.iter().for_each(|i| expr_tree(i, out));
        }
        ExprKind::Field { value, .. } => expr_tree(value, out),
        ExprKind::Unary { operand, .. } => expr_tree(operand, out),
        ExprKind::Binary { lhs, rhs, .. } => {
            expr_tree(lhs, out);
            expr_tree(rhs, out);
        }
        ExprKind::Compare { operands, .. } => operands.iter().for_each(|o| expr_tree(o, out)),
        ExprKind::ShapeAssert { value, pattern, .. } => {
            expr_tree(value, out);
            pattern.iter().for_each(|p| expr_tree(p, out));
        }
        ExprKind::Reduction { bindings, body, .. } => {
            for binding in bindings {
                if let Some((start, end)) = &binding.range {
                    expr_tree(start, out);
                    expr_tree(end, out);
                }
            }
            expr_tree(body, out);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::dims;

    #[test]
    fn dimensions_split_at_top_level_commas() {
        assert_eq!(
            dims("Tensor[batch, x.shape[2] / 2, f(a, b)]"),
            ["batch", "x.shape[2] / 2", "f(a, b)"]
        );
        assert_eq!(dims("Tensor[]"), Vec::<String>::new());
        assert_eq!(dims("Tensor"), Vec::<String>::new());
    }
}
