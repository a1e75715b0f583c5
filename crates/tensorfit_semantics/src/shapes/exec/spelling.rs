//! Operations as the file spells them, for messages: a Python file's
//! `torch.randn(5, 3).shape[0]` and `` `nn.Linear` `` where the tree,
//! shared with the Tensor language, says `randn` and `Linear`
//! (PYTHON.md §6).

use tensorfit_syntax::ast;
use tensorfit_syntax::print::Spelling;

use super::Frame;
use crate::registry;
use crate::shapes::describe::describe_spelled;

impl Frame<'_, '_> {
    /// How the file spells the prelude operation `name`, when not as the
    /// Tensor language does: only in Python, and never for a name the
    /// program defines itself.
    pub(in crate::shapes) fn spelled(&self, name: &str) -> Option<String> {
        if !self.analysis.language.is_python() {
            return None;
        }
        // `Weights::verify`, a class method, is `Weights.verify` in Python.
        if name.contains(ast::CLASS_FUNCTION_SEPARATOR) {
            return Some(ast::python_function_name(name).into_owned());
        }
        if let Some(op) = registry::referenced_operation(name) {
            return registry::operation(op)?.python_spelling();
        }
        if !self.analysis.program.names_prelude_op(name) {
            return None;
        }
        registry::operation(name)?.python_spelling()
    }

    /// An expression named in a message, in the file's spelling.
    pub(in crate::shapes) fn describe(&self, expr: &ast::Expr) -> String {
        if !self.analysis.language.is_python() {
            return describe_spelled(expr, &Spelling::TENSOR);
        }
        let callee = |name: &str| self.spelled(name);
        describe_spelled(
            expr,
            &Spelling {
                callee: &callee,
                keyword: "=",
                word_operators: true,
                membership: true,
            },
        )
    }
}
