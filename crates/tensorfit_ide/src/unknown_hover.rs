//! Hover on a value tensorfit does not model says why (PYTHON.md §6:
//! "Hover on an unknown value says why it is unknown"): on the expression
//! the front end read as unknown, the reason it gave (`` `torch.fft.rfft`
//! is not modelled ``), and on a name assigned such an expression, the
//! same reason for the name.
//!
//! Only reasons the front end recorded are shown: a value that became
//! unknown through the analysis (an operation on an unknown value) shows
//! nothing, since the chain that led there is not kept.

use tensorfit_base::TextRange;
use tensorfit_syntax::ast::{self, Expr, ExprKind, Pattern, Stmt, StmtKind};

use crate::hover::Hover;
use crate::FileAnalysis;

/// The hover at `offset` if it is on an unknown expression, or on a name
/// assigned one.
pub fn unknown_hover(analysis: &FileAnalysis, offset: u32) -> Option<Hover> {
    let covers = |range: TextRange| range.start <= offset && offset <= range.end;
    let mut statements: Vec<&Stmt> = Vec::new();
    for item in &analysis.tree.items {
        match item {
            ast::Item::Function(f) => statements.extend(body_of(f)),
            ast::Item::Struct(s) => {
                statements.extend(s.init.iter().flat_map(|b| &b.stmts));
                statements.extend(s.methods.iter().flat_map(body_of));
            }
            _ => {}
        }
    }
    statements.extend(&analysis.tree.script);
    while let Some(stmt) = statements.pop() {
        if !covers(stmt.range) {
            continue;
        }
        if let Some(hover) = assigned_unknown(stmt, &covers) {
            return Some(hover);
        }
        for expr in stmt.exprs() {
            if let Some((range, why)) = innermost_unknown(expr, &covers) {
                return Some(Hover {
                    range,
                    text: format!("unknown: {why}"),
                    documentation: None,
                });
            }
        }
        statements.extend(stmt.nested());
    }
    None
}

fn body_of(function: &ast::Function) -> impl Iterator<Item = &Stmt> {
    function.body.iter().flat_map(|b| &b.stmts)
}

/// `y = torch.fft.rfft(x)` with the cursor on `y`.
fn assigned_unknown(stmt: &Stmt, covers: &dyn Fn(TextRange) -> bool) -> Option<Hover> {
    let (name, value) = match &stmt.kind {
        StmtKind::Let {
            pattern: Pattern::Name(name),
            value,
            ..
        } => (name.text.clone(), value),
        StmtKind::Assign { target, value, .. } => match &target.kind {
            ExprKind::Name(name) if covers(target.range) => (name.clone(), value),
            _ => return None,
        },
        _ => return None,
    };
    // `np.meshgrid(x, x)`: a call of something unknown is as unknown.
    let value = match &value.kind {
        ExprKind::Call { callee, .. } => callee,
        _ => value,
    };
    let ExprKind::Unknown(why) = &value.kind else {
        return None;
    };
    let range = match &stmt.kind {
        StmtKind::Let {
            pattern: Pattern::Name(n),
            ..
        } => n.range,
        StmtKind::Assign { target, .. } => target.range,
        _ => return None,
    };
    covers(range).then(|| Hover {
        range,
        text: format!("{name}: unknown: {why}"),
        documentation: None,
    })
}

/// The smallest unknown expression under the cursor, walked with a stack
/// (expressions nest as deep as the text does).
fn innermost_unknown<'e>(
    expr: &'e Expr,
    covers: &dyn Fn(TextRange) -> bool,
) -> Option<(TextRange, &'e str)> {
    let mut best: Option<(TextRange, &str)> = None;
    let mut stack = vec![expr];
    while let Some(expr) = stack.pop() {
        if !covers(expr.range) {
            continue;
        }
        if let ExprKind::Unknown(why) = &expr.kind {
            let len = |r: TextRange| r.end - r.start;
            let smaller = best.is_none_or(|(r, _)| len(expr.range) < len(r));
            if smaller && !why.is_empty() {
                best = Some((expr.range, why));
            }
        }
        stack.extend(expr.children());
    }
    best
}
