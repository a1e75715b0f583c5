//! "Add a `|->` claim": writes the inferred shape of a `let` or `var` into
//! the program, so that later edits that change it are reported where the
//! shape was stated (LANGUAGE.md §4, the shape assertion).

use std::collections::HashSet;
use std::rc::Rc;

use tensorfit_base::{Severity, TextRange};
use tensorfit_syntax::ast;

use crate::fix::{Fix, FixKind, TextEdit};
use crate::FileAnalysis;

/// One fix per unannotated, unclaimed `let`/`var` whose shape has a name
/// for every dimension (a `?` or a segment `..s` cannot be claimed) that
/// the statement can see: shapes are spelled with parameters, dimension
/// names and constants, but a struct's parameter (`planes`) is not in
/// scope in its methods.
/// Python has no `|->`: none there.
pub(crate) fn claim_fixes(analysis: &FileAnalysis) -> Vec<Fix> {
    if analysis.python {
        return Vec::new();
    }
    let consts: HashSet<&str> = analysis
        .tree()
        .items
        .iter()
        .filter_map(|item| match item {
            ast::Item::Const(c) => c.name.as_ref().map(|n| n.text.as_str()),
            _ => None,
        })
        .collect();
    let mut bindings = Vec::new();
    for item in &analysis.tree().items {
        match item {
            ast::Item::Function(f) => function_bindings(f, &consts, &mut bindings),
            ast::Item::Struct(s) => s
                .methods
                .iter()
                .for_each(|m| function_bindings(m, &consts, &mut bindings)),
            ast::Item::Const(_) | ast::Item::Import(_) => {}
        }
    }
    block_bindings(
        &analysis.tree().script,
        &Rc::new(consts.clone()),
        &mut bindings,
    );
    // A statement with an error has no shape worth stating. Code actions
    // are asked for at every cursor move, so no search here is per binding
    // over the whole file: errors are few, and bindings are sorted.
    let errors: Vec<TextRange> = analysis
        .diagnostics()
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.range)
        .collect();
    let has_error = |statement: TextRange| {
        errors
            .iter()
            .any(|e| e.start <= statement.end && statement.start <= e.end)
    };
    let shapes = &analysis.shapes().bindings;
    let mut fixes = Vec::new();
    for binding in bindings.into_iter().filter(|b| !has_error(b.statement)) {
        let first = shapes.partition_point(|b| b.range.start < binding.name.start);
        let Some(info) = shapes[first..]
            .iter()
            .take_while(|b| b.range.start == binding.name.start)
            .find(|b| b.range == binding.name)
        else {
            continue;
        };
        let Some(dims) = claimable(&info.shape, &binding.scope) else {
            continue;
        };
        fixes.push(Fix {
            title: format!("Claim the shape: `|-> [{dims}]`"),
            target: binding.statement,
            edits: vec![TextEdit {
                range: TextRange::empty(binding.value_end as usize),
                new_text: format!(" |-> [{dims}]"),
            }],
            preferred: false,
            kind: FixKind::Rewrite,
        });
    }
    fixes
}

/// `Tensor[b, 2 * m]` → `b, 2 * m`; `None` for shapes a claim cannot
/// state or that name something out of `scope`.
fn claimable<'s>(shape: &'s str, scope: &HashSet<&str>) -> Option<&'s str> {
    let dims = shape.strip_prefix("Tensor[")?.strip_suffix(']')?;
    if dims.contains('?') || dims.contains("..") {
        return None;
    }
    // Every name not after a `.` (`x` in `x.shape[1]`, not `shape`).
    let mut previous = ' ';
    let mut rest = dims;
    while let Some(c) = rest.chars().next() {
        if c.is_alphabetic() || c == '_' {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            if previous != '.' && !scope.contains(&rest[..end]) {
                return None;
            }
            previous = 'a';
            rest = &rest[end..];
        } else {
            previous = c;
            rest = &rest[c.len_utf8()..];
        }
    }
    Some(dims)
}

/// A binding that could take a claim.
struct Claimable<'f> {
    name: TextRange,
    statement: TextRange,
    /// Where the claim goes: after the bound value.
    value_end: u32,
    /// The names a claim there may use.
    scope: Rc<HashSet<&'f str>>,
}

fn function_bindings<'f>(
    function: &'f ast::Function,
    consts: &HashSet<&'f str>,
    out: &mut Vec<Claimable<'f>>,
) {
    let Some(body) = &function.body else {
        return;
    };
    let mut scope = consts.clone();
    for param in function.params.iter().filter(|p| !p.is_self) {
        scope.insert(&param.name.text);
        if let Some(ast::Type {
            kind: ast::TypeKind::Tensor { dims: Some(dims) },
            ..
        }) = &param.ty
        {
            for dim in dims {
                if let ast::Dim::Expr(ast::Expr {
                    kind: ast::ExprKind::Name(name),
                    ..
                }) = dim
                {
                    scope.insert(name);
                }
            }
        }
    }
    block_bindings(&body.stmts, &Rc::new(scope), out);
}

fn block_bindings<'f>(
    stmts: &'f [ast::Stmt],
    scope: &Rc<HashSet<&'f str>>,
    out: &mut Vec<Claimable<'f>>,
) {
    for stmt in stmts {
        match &stmt.kind {
            ast::StmtKind::Let {
                pattern: ast::Pattern::Name(name),
                ty: None,
                value,
            }
            | ast::StmtKind::Var {
                pattern: ast::Pattern::Name(name),
                ty: None,
                value: Some(value),
            } if !matches!(value.kind, ast::ExprKind::ShapeAssert { .. }) => out.push(Claimable {
                name: name.range,
                statement: stmt.range,
                value_end: value.range.end,
                scope: scope.clone(),
            }),
            ast::StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                block_bindings(&then_branch.stmts, scope, out);
                match else_branch {
                    Some(ast::ElseBranch::Block(block)) => block_bindings(&block.stmts, scope, out),
                    Some(ast::ElseBranch::If(nested)) => {
                        block_bindings(std::slice::from_ref(&**nested), scope, out)
                    }
                    None => {}
                }
            }
            ast::StmtKind::For { body, .. } | ast::StmtKind::While { body, .. } => {
                block_bindings(&body.stmts, scope, out)
            }
            _ => {}
        }
    }
}
