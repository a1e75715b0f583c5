//! Signatures, types and small expressions as text, rebuilt from the syntax
//! tree.
//!
//! Editor features show declarations in lists and popups (outline details,
//! completion details, signature help). Those features receive the syntax
//! tree but not always the text (and an imported or prelude declaration
//! lives in another text), so they print the tree back in the canonical
//! layout: the text as written, up to spacing, comments and redundant
//! parentheses. Missing pieces of half-typed code print as `…`.

use std::fmt::Write;

use tensorfit_syntax::ast::{self, Dim, ExprKind, TypeKind};
use tensorfit_syntax::print::MISSING;

/// `(x: Tensor[b, 3], k: Int = 2) -> Tensor[b, 4] where b > 1`: a function's
/// parameters (with `self` when `with_self`), result and `where` clauses.
pub(crate) fn function_signature(function: &ast::Function, with_self: bool) -> String {
    let params: Vec<&ast::Param> = function
        .params
        .iter()
        .filter(|p| with_self || !p.is_self)
        .collect();
    let mut text = format!("({})", join(params.iter().map(|p| param(p))));
    text.push_str(&function_tail(function));
    text
}

/// ` -> R where c1, c2`: what follows a function's parameter list.
pub(crate) fn function_tail(function: &ast::Function) -> String {
    let mut text = String::new();
    if let Some(ty) = &function.return_type {
        let _ = write!(text, " -> {}", type_text(ty));
    }
    if !function.where_clauses.is_empty() {
        let _ = write!(
            text,
            " where {}",
            join(function.where_clauses.iter().map(expr))
        );
    }
    text
}

/// `(in_planes: Int, stride: Int = 1)`, or `None` for a struct declared
/// without a parameter list.
pub(crate) fn struct_signature(structure: &ast::Struct) -> Option<String> {
    let params = structure.params.as_ref()?;
    Some(format!("({})", join(params.iter().map(param))))
}

/// `: Tensor[3] = randn(3)`, `= Conv2d(3, 5, kernel_size: 2)`, `: Int`:
/// what follows the name of a constant or a field.
pub(crate) fn annotation_and_value(ty: Option<&ast::Type>, value: &ast::Expr) -> Option<String> {
    let mut detail = String::new();
    if let Some(ty) = ty {
        detail.push_str(": ");
        detail.push_str(&type_text(ty));
    }
    if !matches!(value.kind, ExprKind::Missing) {
        if !detail.is_empty() {
            detail.push(' ');
        }
        detail.push_str("= ");
        detail.push_str(&expr(value));
    }
    (!detail.is_empty()).then_some(detail)
}

/// One parameter as written: `self`, `..size: Int`, `stride = 1`, `x: T`.
pub(crate) fn param(param: &ast::Param) -> String {
    if param.is_self {
        return "self".to_owned();
    }
    let mut text = String::new();
    if param.variadic {
        text.push_str("..");
    }
    text.push_str(&param.name.text);
    if let Some(ty) = &param.ty {
        let _ = write!(text, ": {}", type_text(ty));
    }
    if let Some(default) = &param.default {
        let _ = write!(text, " = {}", expr(default));
    }
    text
}

pub(crate) fn type_text(ty: &ast::Type) -> String {
    match &ty.kind {
        TypeKind::Int | TypeKind::Number => "Int".to_owned(),
        TypeKind::Bool => "Bool".to_owned(),
        TypeKind::Float => "Float".to_owned(),
        TypeKind::Shape => "Shape".to_owned(),
        TypeKind::Tensor { dims: None } => "Tensor".to_owned(),
        TypeKind::Tensor { dims: Some(dims) } => {
            format!("Tensor[{}]", join(dims.iter().map(dim)))
        }
        TypeKind::Tuple(elements) => tuple(elements.iter().map(type_text).collect()),
        TypeKind::Named(name) => name.text.clone(),
        TypeKind::Missing => MISSING.to_owned(),
    }
}

fn dim(dim: &Dim) -> String {
    match dim {
        Dim::Unknown(_) => "?".to_owned(),
        Dim::Segment {
            name, args: None, ..
        } => format!("..{}", name.text),
        Dim::Segment {
            name,
            args: Some(args),
            ..
        } => format!(
            "..{}({})",
            name.text,
            join(args.iter().map(|a| a.text.clone()))
        ),
        Dim::Expr(e) => expr(e),
    }
}

/// An expression, parenthesised where precedence needs it.
pub(crate) fn expr(e: &ast::Expr) -> String {
    tensorfit_syntax::print::expr(e)
}

fn tuple(elements: Vec<String>) -> String {
    if elements.len() == 1 {
        format!("({},)", elements[0])
    } else {
        format!("({})", elements.join(", "))
    }
}

fn join(parts: impl IntoIterator<Item = impl Into<String>>) -> String {
    parts
        .into_iter()
        .map(Into::into)
        .collect::<Vec<String>>()
        .join(", ")
}
