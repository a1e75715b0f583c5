//! Expressions as short text, to name operands in messages
//! (`self.conv(input)`, `x.shape[1]`).

use tensorfit_syntax::ast::{BinaryOp, CompareOp, Expr, ExprKind, FieldName, UnaryOp};

/// Longer descriptions are cut: a message names an operand, it does not
/// reprint the program.
const MAX_LEN: usize = 40;

pub fn describe(expr: &Expr) -> String {
    let mut text = String::new();
    write(expr, &mut text, 0);
    if text.chars().count() > MAX_LEN {
        let cut: String = text.chars().take(MAX_LEN - 1).collect();
        format!("{cut}…")
    } else {
        text
    }
}

fn write(expr: &Expr, out: &mut String, depth: usize) {
    if depth > 8 || out.len() > MAX_LEN * 2 {
        out.push('…');
        return;
    }
    let list = |items: &[Expr], out: &mut String| {
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write(item, out, depth + 1);
        }
    };
    match &expr.kind {
        ExprKind::Name(name) => out.push_str(name),
        ExprKind::SelfValue => out.push_str("self"),
        ExprKind::Int(v) => out.push_str(&v.to_string()),
        ExprKind::Float(text) => out.push_str(text),
        ExprKind::Bool(v) => out.push_str(if *v { "true" } else { "false" }),
        ExprKind::Str(s) => {
            out.push('"');
            out.push_str(s);
            out.push('"');
        }
        ExprKind::Hole => out.push_str("__"),
        ExprKind::UnknownDim => out.push('?'),
        ExprKind::Missing => out.push('…'),
        ExprKind::List(items) => {
            out.push('[');
            list(items, out);
            out.push(']');
        }
        ExprKind::Tuple(items) => {
            out.push('(');
            list(items, out);
            out.push(')');
        }
        ExprKind::Call { callee, args } => {
            write(callee, out, depth + 1);
            out.push('(');
            for (i, arg) in args.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                if let Some(name) = &arg.name {
                    out.push_str(&name.text);
                    out.push_str(": ");
                }
                write(&arg.value, out, depth + 1);
            }
            out.push(')');
        }
        ExprKind::Subscript { value, indices } => {
            write(value, out, depth + 1);
            out.push('[');
            list(indices, out);
            out.push(']');
        }
        ExprKind::Field { value, field } => {
            write(value, out, depth + 1);
            out.push('.');
            match field {
                FieldName::Named(name) => out.push_str(&name.text),
                FieldName::Index(i, _) => out.push_str(&i.to_string()),
            }
        }
        ExprKind::Unary { op, operand } => {
            out.push(match op {
                UnaryOp::Neg => '-',
                UnaryOp::Not => '!',
            });
            write(operand, out, depth + 1);
        }
        ExprKind::Binary { op, lhs, rhs } => {
            write(lhs, out, depth + 1);
            out.push(' ');
            out.push_str(BinaryOp::symbol(*op));
            out.push(' ');
            write(rhs, out, depth + 1);
        }
        ExprKind::Compare { operands, ops } => {
            for (i, operand) in operands.iter().enumerate() {
                if i > 0 {
                    out.push_str(match ops[i - 1] {
                        CompareOp::Eq => " == ",
                        CompareOp::Ne => " != ",
                        CompareOp::Lt => " < ",
                        CompareOp::Le => " <= ",
                        CompareOp::Gt => " > ",
                        CompareOp::Ge => " >= ",
                    });
                }
                write(operand, out, depth + 1);
            }
        }
        ExprKind::ShapeAssert { value, .. } => write(value, out, depth + 1),
        ExprKind::Reduction { .. } => out.push_str("reduction"),
    }
}
