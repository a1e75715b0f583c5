//! Annotations read as Tensor-language types (PYTHON.md §4): `int`, `bool`,
//! `float`, `Tensor` / `torch.Tensor` (a tensor of unknown rank). Anything
//! else, and no annotation, is gradual: the analysis knows nothing of the
//! value until it is used.

use tensorfit_syntax::ast::*;
use tree_sitter::Node;

use super::syntax::named_children;
use super::Lowerer;
use crate::context::resolve_dotted;

impl Lowerer<'_> {
    /// The type a `type` node (or an expression used as one) stands for.
    pub(super) fn annotation(&mut self, node: Node<'_>) -> Option<Type> {
        let inner = match node.kind() {
            "type" => *named_children(node).first()?,
            _ => node,
        };
        let range = self.range(inner);
        let spelled: String = self
            .text(inner)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let resolved = resolve_dotted(&spelled, &self.context.imported);
        let kind = match resolved.as_str() {
            "int" => TypeKind::Int,
            "bool" => TypeKind::Bool,
            "float" => TypeKind::Float,
            "torch.Tensor" | "torch.FloatTensor" | "torch.LongTensor" => {
                TypeKind::Tensor { dims: None }
            }
            _ => return None,
        };
        Some(Type { kind, range })
    }
}
