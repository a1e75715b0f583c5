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

use tensorfit_syntax::ast::{
    self, BinaryOp, CompareOp, Dim, ExprKind, FieldName, ReductionOp, TypeKind, UnaryOp,
};

/// Printed where the tree has a `Missing` placeholder.
const MISSING: &str = "…";

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
        TypeKind::Int => "Int".to_owned(),
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
    let mut out = String::new();
    write_expr(&mut out, e, Prec::Lowest);
    out
}

/// Binding strength, loosest first (docs/language.md, "Expressions").
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    Lowest,
    ShapeAssert,
    Or,
    And,
    Compare,
    Sum,
    Product,
    Unary,
    Postfix,
}

fn binary_prec(op: BinaryOp) -> Prec {
    match op {
        BinaryOp::Or => Prec::Or,
        BinaryOp::And => Prec::And,
        BinaryOp::Add | BinaryOp::Sub => Prec::Sum,
        BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem | BinaryOp::MatMul => Prec::Product,
    }
}

fn own_prec(kind: &ExprKind) -> Prec {
    match kind {
        ExprKind::ShapeAssert { .. } => Prec::ShapeAssert,
        ExprKind::Binary { op, .. } => binary_prec(*op),
        ExprKind::Compare { .. } => Prec::Compare,
        ExprKind::Unary { .. } => Prec::Unary,
        // A reduction's body extends as far as it can: it only stands
        // unparenthesised where nothing follows it.
        ExprKind::Reduction { .. } => Prec::Lowest,
        _ => Prec::Postfix,
    }
}

fn write_expr(out: &mut String, e: &ast::Expr, context: Prec) {
    let parenthesise = own_prec(&e.kind) < context;
    if parenthesise {
        out.push('(');
    }
    match &e.kind {
        ExprKind::Name(name) => out.push_str(name),
        ExprKind::SelfValue => out.push_str("self"),
        ExprKind::Int(value) => {
            let _ = write!(out, "{value}");
        }
        ExprKind::Float(text) => out.push_str(text),
        ExprKind::Bool(value) => {
            let _ = write!(out, "{value}");
        }
        ExprKind::Str(value) => write_string(out, value),
        ExprKind::Hole => out.push_str("__"),
        ExprKind::UnknownDim => out.push('?'),
        ExprKind::Missing => out.push_str(MISSING),
        ExprKind::List(elements) => {
            out.push('[');
            write_list(out, elements);
            out.push(']');
        }
        ExprKind::Tuple(elements) => {
            out.push('(');
            write_list(out, elements);
            if elements.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
        ExprKind::Call { callee, args } => {
            write_expr(out, callee, Prec::Postfix);
            out.push('(');
            for (i, arg) in args.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                if let Some(name) = &arg.name {
                    let _ = write!(out, "{}: ", name.text);
                }
                write_expr(out, &arg.value, Prec::Lowest);
            }
            out.push(')');
        }
        ExprKind::Subscript { value, indices } => {
            write_expr(out, value, Prec::Postfix);
            out.push('[');
            write_list(out, indices);
            out.push(']');
        }
        ExprKind::Field { value, field } => {
            write_expr(out, value, Prec::Postfix);
            out.push('.');
            match field {
                FieldName::Named(name) => out.push_str(&name.text),
                FieldName::Index(index, _) => {
                    let _ = write!(out, "{index}");
                }
            }
        }
        ExprKind::Unary { op, operand } => {
            out.push(match op {
                UnaryOp::Neg => '-',
                UnaryOp::Not => '!',
            });
            write_expr(out, operand, Prec::Unary);
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let prec = binary_prec(*op);
            write_expr(out, lhs, prec);
            let _ = write!(out, " {} ", op.symbol());
            write_expr(out, rhs, next(prec));
        }
        ExprKind::Compare { operands, ops } => {
            for (i, operand) in operands.iter().enumerate() {
                if i > 0 {
                    let symbol = ops.get(i - 1).map_or("==", |op| compare_symbol(*op));
                    let _ = write!(out, " {symbol} ");
                }
                write_expr(out, operand, Prec::Sum);
            }
        }
        ExprKind::ShapeAssert { value, pattern, .. } => {
            write_expr(out, value, Prec::Or);
            out.push_str(" |-> [");
            write_list(out, pattern);
            out.push(']');
        }
        ExprKind::Reduction { op, bindings, body } => {
            out.push_str(match op {
                ReductionOp::Sum => "sum",
                ReductionOp::Prod => "prod",
                ReductionOp::Max => "max",
                ReductionOp::Min => "min",
            });
            out.push('(');
            for (i, binding) in bindings.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&binding.index.text);
                if let Some((start, end)) = &binding.range {
                    out.push_str(" in ");
                    write_expr(out, start, Prec::Sum);
                    out.push_str("..");
                    write_expr(out, end, Prec::Sum);
                }
            }
            out.push_str(") ");
            write_expr(out, body, Prec::Lowest);
        }
    }
    if parenthesise {
        out.push(')');
    }
}

fn next(prec: Prec) -> Prec {
    match prec {
        Prec::Lowest => Prec::ShapeAssert,
        Prec::ShapeAssert => Prec::Or,
        Prec::Or => Prec::And,
        Prec::And => Prec::Compare,
        Prec::Compare => Prec::Sum,
        Prec::Sum => Prec::Product,
        Prec::Product => Prec::Unary,
        Prec::Unary | Prec::Postfix => Prec::Postfix,
    }
}

fn compare_symbol(op: CompareOp) -> &'static str {
    match op {
        CompareOp::Eq => "==",
        CompareOp::Ne => "!=",
        CompareOp::Lt => "<",
        CompareOp::Le => "<=",
        CompareOp::Gt => ">",
        CompareOp::Ge => ">=",
    }
}

fn write_list(out: &mut String, elements: &[ast::Expr]) {
    for (i, element) in elements.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_expr(out, element, Prec::Lowest);
    }
}

fn write_string(out: &mut String, value: &str) {
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c => out.push(c),
        }
    }
    out.push('"');
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
