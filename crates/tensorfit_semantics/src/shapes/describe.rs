//! Expressions as short text, to name operands in messages
//! (`self.conv(input)`, `x.shape[1]`).

use tensorfit_syntax::ast::Expr;
use tensorfit_syntax::print::Spelling;

/// Longer descriptions are cut: a message names an operand, it does not
/// reprint the program.
const MAX_LEN: usize = 40;

/// The expression as written (parentheses where precedence needs them),
/// cut at [`MAX_LEN`] characters.
pub fn describe(expr: &Expr) -> String {
    tensorfit_syntax::print::expr_within(expr, MAX_LEN)
}

/// [`describe`] in another language's spelling (see `Frame::describe`).
pub fn describe_spelled(expr: &Expr, spelling: &Spelling<'_>) -> String {
    tensorfit_syntax::print::expr_within_spelled(expr, MAX_LEN, spelling)
}
