//! A module class that only builds an `nn.Sequential` (torchvision's
//! `ConvNormActivation` and `Conv2dNormActivation`): its `__init__`
//! computes a list of layers and passes them to `super().__init__`, and it
//! defines nothing else. Such a class is lowered to a function of its name
//! whose body is `__init__`'s, with `super().__init__(*layers)` returning
//! `nn.Sequential(*layers)` (or the base builder's call, for a subclass of
//! one). Its instances are then Sequentials to the analysis: called,
//! indexed and sliced as any other.
//!
//! What `__init__` does after `super().__init__` (attributes such as
//! `self.out_channels`, logging) is left out: an attribute read on the
//! result is unknown.

use tensorfit_syntax::ast::*;
use tree_sitter::Node;

use super::syntax::{child_by_field, decorated, definition_of, named_children};
use super::Lowerer;
use crate::context::resolve_dotted;
use crate::torch_names::{self, Resolved};

impl Lowerer<'_> {
    /// The function a Sequential builder class `name` is lowered to; `None`
    /// for any other class.
    pub(super) fn sequential_builder(&mut self, name: &str, class: Node<'_>) -> Option<Function> {
        let base = self.context.sequential_builders.get(name)?.clone();
        let init = named_children(child_by_field(class, "body")?)
            .into_iter()
            .map(definition_of)
            .find(|member| {
                member.kind() == "function_definition"
                    && child_by_field(*member, "name").is_some_and(|n| self.text(n) == "__init__")
            })?;
        let base_range = self.range(class);
        let callee = match torch_names::resolve(&resolve_dotted(&base, &self.context.imported)) {
            Resolved::Operation(op) => ExprKind::Name(op.to_owned()),
            _ if self.context.sequential_builders.contains_key(&base) => ExprKind::Name(base),
            _ => return None,
        };
        let outer = self.super_init.replace(Expr {
            kind: callee,
            range: base_range,
        });
        let mut function = self.function(init, &[], true);
        self.super_init = outer;
        function.params.retain(|param| !param.is_self);
        function.name = child_by_field(class, "name").map(|n| self.name(n));
        // The function is the class's item: its range is the one the
        // outline gives the piece, which the summary's anchors are
        // relative to.
        function.range = self.range(decorated(class));
        // What follows the `return` that `super().__init__` became is
        // never reached.
        if let Some(body) = &mut function.body {
            if let Some(at) = body
                .stmts
                .iter()
                .position(|stmt| matches!(stmt.kind, StmtKind::Return(_)))
            {
                body.stmts.truncate(at + 1);
            }
        }
        Some(function)
    }
}
