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

use crate::hover_basics::Hover;
use crate::FileAnalysis;

/// The hover at `offset` if it is on an unknown expression, or on a name
/// assigned one.
pub fn unknown_hover(analysis: &FileAnalysis, offset: u32) -> Option<Hover> {
    let covers = |range: TextRange| range.start <= offset && offset <= range.end;
    // Only the statements around the offset: the item that holds it, and
    // the script's statements that do. Gathering every statement of the
    // file made each hover allocate in proportion to the file, and right
    // after an analysis had freed its memory such an allocation could
    // wait 2-3 ms for the allocator to sort its free lists.
    let tree = analysis.tree();
    let mut statements: Vec<&Stmt> = Vec::new();
    for item in &tree.items {
        match item {
            ast::Item::Function(f) if covers(f.range) => statements.extend(body_of(f)),
            ast::Item::Struct(s) if covers(s.range) => {
                statements.extend(s.init.iter().flat_map(|b| &b.stmts));
                let methods = s.methods.iter().filter(|m| covers(m.range));
                statements.extend(methods.flat_map(body_of));
            }
            _ => {}
        }
    }
    statements.extend(tree.script.iter().filter(|s| covers(s.range)));
    while let Some(stmt) = statements.pop() {
        if !covers(stmt.range) {
            continue;
        }
        if let Some(hover) = assigned_unknown(stmt, &covers) {
            return Some(hover);
        }
        for expr in stmt.exprs() {
            if let Some((range, why)) = unknown_at(expr, &covers) {
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
    let (name, range, value) = match &stmt.kind {
        StmtKind::Let {
            pattern: Pattern::Name(name),
            value,
            ..
        } => (name.text.as_str(), name.range, value),
        StmtKind::Assign { target, value, .. } => match &target.kind {
            ExprKind::Name(name) => (name.as_str(), target.range, value),
            _ => return None,
        },
        _ => return None,
    };
    // `np.meshgrid(x, x)`: a call of something unknown is as unknown.
    let value = match &value.kind {
        ExprKind::Call { callee, .. } => callee,
        _ => value,
    };
    match &value.kind {
        ExprKind::Unknown(why) if covers(range) => Some(Hover {
            range,
            text: format!("{name}: unknown: {why}"),
            documentation: None,
        }),
        _ => None,
    }
}

/// The unknown expression under the cursor. Unknown expressions have no
/// children, so the first found is the innermost. Walked with a stack:
/// expressions nest as deep as the text does.
fn unknown_at<'e>(
    expr: &'e Expr,
    covers: &dyn Fn(TextRange) -> bool,
) -> Option<(TextRange, &'e str)> {
    let mut stack = vec![expr];
    while let Some(expr) = stack.pop() {
        if !covers(expr.range) {
            continue;
        }
        match &expr.kind {
            ExprKind::Unknown(why) if !why.is_empty() => return Some((expr.range, why)),
            _ => stack.extend(expr.children()),
        }
    }
    None
}
