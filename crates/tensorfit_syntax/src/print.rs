//! Expressions printed back from the tree in the canonical layout: the
//! text as written, up to spacing, comments and redundant parentheses, with
//! `…` for the missing pieces of half-typed code. One printer for every
//! layer: messages name operands with it, editor features show
//! declarations with it.

use std::fmt::Write;

use crate::ast::{self, BinaryOp, CompareOp, ExprKind, FieldName, ReductionOp, UnaryOp};

/// Printed where the tree has a `Missing` placeholder, and where a cut
/// expression stops.
pub const MISSING: &str = "…";

/// An expression, parenthesised where precedence needs it.
pub fn expr(e: &ast::Expr) -> String {
    print_with(e, usize::MAX, &Spelling::TENSOR, false)
}

/// [`expr`] cut to at most `max_chars` characters (the last one `…`): to
/// name an operand in a message, not to reprint the program. Printing stops
/// soon after the limit, so a huge expression costs little.
pub fn expr_within(e: &ast::Expr, max_chars: usize) -> String {
    expr_within_spelled(e, max_chars, &Spelling::TENSOR)
}

/// How a source language writes what the tree holds in the Tensor
/// language's terms, for quoting its expressions in messages.
pub struct Spelling<'s> {
    /// Another name for a callee, if it has one (a Python file's
    /// `torch.randn` where the tree says `randn`).
    pub callee: &'s dyn Fn(&str) -> Option<String>,
    /// Between a keyword argument's name and its value: the Tensor
    /// language's `: `, Python's `=`.
    pub keyword: &'static str,
    /// Python's words for the logical operators: `not x`, `a and b`,
    /// `a or b` where the Tensor language writes `!x`, `a && b`, `a || b`.
    pub word_operators: bool,
    /// Whether `item in container` ([`ast::Builtin::Contains`], the
    /// container first) is printed back as Python writes it.
    pub membership: bool,
}

impl Spelling<'_> {
    /// The Tensor language's own.
    pub const TENSOR: Spelling<'static> = Spelling {
        callee: &no_other_name,
        keyword: ": ",
        word_operators: false,
        membership: false,
    };
}

fn no_other_name(_: &str) -> Option<String> {
    None
}

/// [`expr_within`] in another language's spelling.
pub fn expr_within_spelled(e: &ast::Expr, max_chars: usize, spelling: &Spelling<'_>) -> String {
    let text = print_with(e, max_chars * 4, spelling, false);
    if text.chars().count() > max_chars {
        let cut: String = text.chars().take(max_chars.saturating_sub(1)).collect();
        format!("{cut}{MISSING}")
    } else {
        text
    }
}

struct Printer<'s> {
    out: String,
    /// Past this many bytes, the rest prints as `…`.
    limit: usize,
    spelling: &'s Spelling<'s>,
    /// Everything the tree holds, for the lowering's dump
    /// ([`crate::dump`]): an unknown's reason, `*`/`**` of arguments.
    exact: bool,
}

/// An expression with everything the tree holds (see `Printer::exact`).
pub(crate) fn expr_exact(e: &ast::Expr) -> String {
    print_with(e, usize::MAX, &Spelling::TENSOR, true)
}

/// The one way every printer above starts (see [`Printer`]'s fields).
fn print_with(e: &ast::Expr, limit: usize, spelling: &Spelling<'_>, exact: bool) -> String {
    let mut printer = Printer {
        out: String::new(),
        limit,
        spelling,
        exact,
    };
    write_expr(&mut printer, e, Prec::Lowest);
    printer.out
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
        BinaryOp::Mul
        | BinaryOp::Div
        | BinaryOp::TrueDiv
        | BinaryOp::FloorDiv
        | BinaryOp::Rem
        | BinaryOp::MatMul => Prec::Product,
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

fn write_expr(p: &mut Printer<'_>, e: &ast::Expr, context: Prec) {
    if p.out.len() > p.limit {
        if !p.out.ends_with(MISSING) {
            p.out.push_str(MISSING);
        }
        return;
    }
    let membership = membership_operands(p, e);
    let own = match membership {
        Some(_) => Prec::Compare,
        None => own_prec(&e.kind),
    };
    let parenthesise = own < context;
    if parenthesise {
        p.out.push('(');
    }
    match &e.kind {
        _ if membership.is_some() => {
            let Some((item, container, negated)) = membership else {
                unreachable!("matched as Some");
            };
            write_expr(p, item, Prec::Sum);
            p.out.push_str(if negated { " not in " } else { " in " });
            write_expr(p, container, Prec::Sum);
        }
        ExprKind::Name(name) => p.out.push_str(name),
        ExprKind::SelfValue => p.out.push_str("self"),
        ExprKind::Int(value) => {
            let _ = write!(p.out, "{value}");
        }
        ExprKind::Float(text) => p.out.push_str(text),
        ExprKind::Bool(value) => {
            let _ = write!(p.out, "{value}");
        }
        ExprKind::Str(value) => write_string(&mut p.out, value),
        ExprKind::Hole => p.out.push_str("__"),
        ExprKind::UnknownDim => p.out.push('?'),
        ExprKind::Missing => p.out.push_str(MISSING),
        // Shown where a message quotes it: the reason is hover's to give.
        ExprKind::Unknown(why) if p.exact => {
            let _ = write!(p.out, "<unknown: {why}>");
        }
        ExprKind::Unknown(_) => p.out.push_str("<unknown>"),
        ExprKind::Builtin(builtin) => p.out.push_str(builtin.name()),
        // The dump writes the body after the statement (`dump.rs`).
        ExprKind::Closure(closure) if p.exact => {
            let name = closure
                .function
                .name
                .as_ref()
                .map_or("…", |n| n.text.as_str());
            let _ = write!(p.out, "fn {name}");
        }
        // A message names the function as the file does.
        ExprKind::Closure(closure) => {
            let name = closure
                .function
                .name
                .as_ref()
                .map_or("…", |n| n.text.as_str());
            let own = name.rsplit('.').next().unwrap_or(name);
            p.out.push_str(own);
        }
        ExprKind::List(elements) => {
            p.out.push('[');
            write_list(p, elements);
            p.out.push(']');
        }
        ExprKind::Tuple(elements) => {
            p.out.push('(');
            write_list(p, elements);
            if elements.len() == 1 {
                p.out.push(',');
            }
            p.out.push(')');
        }
        ExprKind::Record(fields) => {
            p.out.push_str("dict(");
            for (i, field) in fields.iter().enumerate() {
                if i > 0 {
                    p.out.push_str(", ");
                }
                if let Some(name) = &field.name {
                    let _ = write!(p.out, "{}=", name.text);
                }
                write_expr(p, &field.value, Prec::Lowest);
            }
            p.out.push(')');
        }
        ExprKind::Call { callee, args } => {
            let spelled = match &callee.kind {
                ExprKind::Name(name) => (p.spelling.callee)(name),
                _ => None,
            };
            match spelled {
                Some(spelled) => p.out.push_str(&spelled),
                None => write_expr(p, callee, Prec::Postfix),
            }
            p.out.push('(');
            for (i, arg) in args.iter().enumerate() {
                if i > 0 {
                    p.out.push_str(", ");
                }
                if let Some(name) = &arg.name {
                    let _ = write!(p.out, "{}{}", name.text, p.spelling.keyword);
                }
                match arg.unpack {
                    Some(ast::Unpack::Positional) if p.exact => p.out.push('*'),
                    Some(ast::Unpack::Keywords) if p.exact => p.out.push_str("**"),
                    _ => {}
                }
                write_expr(p, &arg.value, Prec::Lowest);
            }
            p.out.push(')');
        }
        ExprKind::Subscript { value, indices } => {
            write_expr(p, value, Prec::Postfix);
            p.out.push('[');
            write_list(p, indices);
            p.out.push(']');
        }
        ExprKind::Slice { start, stop, step } => {
            if let Some(start) = start {
                write_expr(p, start, Prec::Lowest);
            }
            p.out.push(':');
            if let Some(stop) = stop {
                write_expr(p, stop, Prec::Lowest);
            }
            if let Some(step) = step {
                p.out.push(':');
                write_expr(p, step, Prec::Lowest);
            }
        }
        ExprKind::Ellipsis => p.out.push_str("..."),
        ExprKind::NewAxis => p.out.push_str("None"),
        ExprKind::Field { value, field } => {
            write_expr(p, value, Prec::Postfix);
            p.out.push('.');
            match field {
                FieldName::Named(name) => p.out.push_str(&name.text),
                FieldName::Index(index, _) => {
                    let _ = write!(p.out, "{index}");
                }
            }
        }
        ExprKind::Unary { op, operand } => {
            p.out.push_str(match (op, p.spelling.word_operators) {
                (UnaryOp::Neg, _) => "-",
                (UnaryOp::Not, false) => "!",
                (UnaryOp::Not, true) => "not ",
            });
            write_expr(p, operand, Prec::Unary);
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let prec = binary_prec(*op);
            write_expr(p, lhs, prec);
            let symbol = match (op, p.spelling.word_operators) {
                (BinaryOp::And, true) => "and",
                (BinaryOp::Or, true) => "or",
                _ => op.symbol(),
            };
            let _ = write!(p.out, " {symbol} ");
            write_expr(p, rhs, next(prec));
        }
        ExprKind::Compare { operands, ops } => {
            for (i, operand) in operands.iter().enumerate() {
                if i > 0 {
                    let symbol = ops.get(i - 1).map_or("==", |op| compare_symbol(*op));
                    let _ = write!(p.out, " {symbol} ");
                }
                write_expr(p, operand, Prec::Sum);
            }
        }
        ExprKind::ShapeAssert { value, pattern, .. } => {
            write_expr(p, value, Prec::Or);
            p.out.push_str(" |-> [");
            write_list(p, pattern);
            p.out.push(']');
        }
        ExprKind::Reduction { op, bindings, body } => {
            p.out.push_str(match op {
                ReductionOp::Sum => "sum",
                ReductionOp::Prod => "prod",
                ReductionOp::Max => "max",
                ReductionOp::Min => "min",
            });
            p.out.push('(');
            for (i, binding) in bindings.iter().enumerate() {
                if i > 0 {
                    p.out.push_str(", ");
                }
                p.out.push_str(&binding.index.text);
                if let Some((start, end)) = &binding.range {
                    p.out.push_str(" in ");
                    write_expr(p, start, Prec::Sum);
                    p.out.push_str("..");
                    write_expr(p, end, Prec::Sum);
                }
            }
            p.out.push_str(") ");
            write_expr(p, body, Prec::Lowest);
        }
    }
    if parenthesise {
        p.out.push(')');
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

/// `item in container` (and `item not in container`) where the spelling
/// has a membership callee: the call's operands, and whether it is negated.
fn membership_operands<'e>(
    p: &Printer<'_>,
    e: &'e ast::Expr,
) -> Option<(&'e ast::Expr, &'e ast::Expr, bool)> {
    if !p.spelling.membership {
        return None;
    }
    let (call, negated) = match &e.kind {
        ExprKind::Unary {
            op: UnaryOp::Not,
            operand,
        } => (&**operand, true),
        _ => (e, false),
    };
    let ExprKind::Call { callee, args } = &call.kind else {
        return None;
    };
    let ExprKind::Builtin(ast::Builtin::Contains) = &callee.kind else {
        return None;
    };
    match args.as_slice() {
        [container, item] if container.name.is_none() && item.name.is_none() => {
            Some((&item.value, &container.value, negated))
        }
        _ => None,
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
        CompareOp::Is => "is",
        CompareOp::IsNot => "is not",
    }
}

fn write_list(p: &mut Printer<'_>, elements: &[ast::Expr]) {
    for (i, element) in elements.iter().enumerate() {
        if i > 0 {
            p.out.push_str(", ");
        }
        write_expr(p, element, Prec::Lowest);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::StmtKind;

    #[test]
    fn another_spelling_renames_callees_and_keywords() {
        let parse = crate::parse("let y = interpolate(x, scale_factor: 2)");
        let Some(StmtKind::Let { value, .. }) = parse.file.script.first().map(|s| &s.kind) else {
            panic!("no let");
        };
        let callee = |name: &str| (name == "interpolate").then(|| "F.interpolate".to_owned());
        let python = Spelling {
            callee: &callee,
            keyword: "=",
            word_operators: true,
            membership: false,
        };
        assert_eq!(
            expr_within_spelled(value, 40, &python),
            "F.interpolate(x, scale_factor=2)"
        );
        assert_eq!(expr_within(value, 40), "interpolate(x, scale_factor: 2)");
    }

    #[test]
    fn python_spelling_writes_membership_and_logic_in_words() {
        let python = Spelling {
            callee: &no_other_name,
            keyword: "=",
            word_operators: true,
            membership: true,
        };
        for (written, spelled) in [
            ("contains(modes, mode)", "mode in modes"),
            ("!contains(self.modes, a + b)", "a + b not in self.modes"),
            ("!(a == 2) && b || c", "not (a == 2) and b or c"),
            (
                "!contains(modes, mode) && !done",
                "mode not in modes and not done",
            ),
            ("contains(modes, mode).shape", "(mode in modes).shape"),
            (
                "contains(modes, item: mode)",
                "operator.contains(modes, item=mode)",
            ),
        ] {
            let parse = crate::parse(&format!("let y = {written}"));
            let Some(StmtKind::Let { value, .. }) = parse.file.script.first().map(|s| &s.kind)
            else {
                panic!("no let in {written:?}");
            };
            // Only a front end makes the builtin: the Tensor text's
            // `contains` stands for it.
            let mut value = value.clone();
            contains_as_builtin(&mut value);
            assert_eq!(
                expr_within_spelled(&value, 60, &python),
                spelled,
                "{written}"
            );
        }
        // The Tensor language's own spelling keeps its symbols and calls.
        assert_eq!(
            printed("let y = !contains(modes, mode) && !done", None),
            "!contains(modes, mode) && !done"
        );
    }

    /// Every call of `contains` made a call of [`ast::Builtin::Contains`].
    fn contains_as_builtin(e: &mut ast::Expr) {
        match &mut e.kind {
            ExprKind::Call { callee, args } => {
                if matches!(&callee.kind, ExprKind::Name(n) if n == "contains") {
                    callee.kind = ExprKind::Builtin(ast::Builtin::Contains);
                }
                contains_as_builtin(callee);
                for arg in args {
                    contains_as_builtin(&mut arg.value);
                }
            }
            ExprKind::Unary { operand, .. } => contains_as_builtin(operand),
            ExprKind::Binary { lhs, rhs, .. } => {
                contains_as_builtin(lhs);
                contains_as_builtin(rhs);
            }
            ExprKind::Field { value, .. } => contains_as_builtin(value),
            _ => {}
        }
    }

    /// The value of the file's first `let`.
    fn printed(source: &str, within: Option<usize>) -> String {
        let parse = crate::parse(source);
        let Some(StmtKind::Let { value, .. }) = parse.file.script.first().map(|s| &s.kind) else {
            panic!("no let in {source:?}");
        };
        match within {
            None => expr(value),
            Some(max) => expr_within(value, max),
        }
    }

    #[test]
    fn parentheses_stay_where_precedence_needs_them_and_only_there() {
        for (written, canonical) in [
            ("c % (upscale * upscale)", "c % (upscale * upscale)"),
            ("(c % upscale) * upscale", "c % upscale * upscale"),
            (
                "5 * (h / 2 / 2) * (w / 2 / 2)",
                "5 * (h / 2 / 2) * (w / 2 / 2)",
            ),
            ("a - (b - c)", "a - (b - c)"),
            ("(a - b) - c", "a - b - c"),
            ("-(a + b)", "-(a + b)"),
            ("(x |-> [n, 3]).shape[0]", "(x |-> [n, 3]).shape[0]"),
            ("f(x, dim: (1 + 2))", "f(x, dim: 1 + 2)"),
        ] {
            assert_eq!(printed(&format!("let v = {written}\n"), None), canonical);
        }
    }

    #[test]
    fn a_long_expression_is_cut_and_a_huge_one_costs_little() {
        let long = printed(
            "let v = conv(x, weight, bias, stride: 2, padding: 1, dilation: 3)\n",
            Some(20),
        );
        assert_eq!(long, "conv(x, weight, bia…");
        let huge = format!("let v = [{}]\n", vec!["123456"; 100_000].join(", "));
        assert!(printed(&huge, Some(40)).chars().count() <= 40);
    }
}
