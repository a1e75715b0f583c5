//! `setattr(self, name, value)` in `__init__` (ShuffleNetV2's
//! `setattr(self, f"stage{i}", nn.Sequential(*seq))` in a loop).
//!
//! A literal name is the field of that name, as `self.name = value`. A
//! name computed at run time sets an item of the dict in the field
//! [`DYNAMIC_ATTRIBUTES_FIELD`], which starts empty with `__init__` and
//! which an attribute read falls back to (`Instance::member`; a field the
//! class also sets by its own name is then unknown, as either may have come
//! last). In a container class (see `registered`) a layer set so is also
//! registered: its container becomes unknown. `setattr(self, ...)` in
//! another method makes the attributes unknown (see `init::mutated_fields`).

use tensorfit_base::TextRange;
use tensorfit_syntax::ast::*;
use tree_sitter::Node;

use super::expressions::builtin_call;
use super::init::{field_local, field_name};
use super::syntax::{child_by_field, descendants, is_plain_argument, named_children};
use super::{Lowerer, ScopeKind};

impl Lowerer<'_> {
    /// The statements of `setattr(self, name, value)` in `__init__`;
    /// `None` for any other call.
    pub(super) fn set_self_attribute(
        &mut self,
        call: Node<'_>,
        range: TextRange,
    ) -> Option<Vec<Stmt>> {
        let [object, name, value] = self.setattr_arguments(call)?[..] else {
            return None;
        };
        // In a Sequential builder, a layer set so is registered in a way
        // not followed.
        if let Some(built) = self.sequential_built(object) {
            for argument in [name, value] {
                self.expr(argument);
            }
            let why = "`setattr(self, ...)` changed the Sequential, which is not followed";
            return Some(vec![self.forget(built, call, why, range)]);
        }
        if self.scope.kind != ScopeKind::Init || !self.is_self(Some(object)) {
            return None;
        }
        let value = self.expr(value);
        let mut stmts = match self.string_literal(name) {
            Some(literal) => {
                let field = Name {
                    text: literal.clone(),
                    range: self.range(name),
                };
                let local = field_local(&literal, range);
                vec![self.note_field(field, local, value, range)]
            }
            None => {
                let key = self.expr(name);
                let local = field_local(DYNAMIC_ATTRIBUTES_FIELD, range);
                let set = builtin_call(Builtin::SetItem, vec![local.clone(), key, value], range);
                vec![self.note_field(
                    field_name(DYNAMIC_ATTRIBUTES_FIELD, range),
                    local,
                    set,
                    range,
                )]
            }
        };
        if let Some(container) = self.registered_self(object) {
            let why = "`setattr` registered a layer under a name computed at run time";
            stmts.push(self.forget(container, call, why, range));
        }
        Some(stmts)
    }

    /// `self.$attributes = {}` at the start of an `__init__` that sets
    /// attributes by computed names.
    pub(super) fn dynamic_attributes_start(
        &mut self,
        body: Node<'_>,
        at: TextRange,
    ) -> Option<Stmt> {
        let computed = descendants(body).into_iter().any(|node| {
            node.kind() == "call"
                && matches!(
                    self.setattr_arguments(node).as_deref(),
                    Some([object, name, _]) if self.is_self(Some(*object)) && self.string_literal(*name).is_none()
                )
        });
        if !computed {
            return None;
        }
        let empty = Expr {
            kind: ExprKind::Record(Vec::new()),
            range: at,
        };
        Some(self.note_field(
            field_name(DYNAMIC_ATTRIBUTES_FIELD, at),
            field_local(DYNAMIC_ATTRIBUTES_FIELD, at),
            empty,
            at,
        ))
    }

    /// The three plain arguments of a call of the builtin `setattr`.
    fn setattr_arguments<'n>(&self, call: Node<'n>) -> Option<Vec<Node<'n>>> {
        if !self.is_call_to(call, "setattr") {
            return None;
        }
        let arguments = named_children(child_by_field(call, "arguments")?);
        let plain = arguments.len() == 3 && arguments.iter().all(|a| is_plain_argument(*a));
        plain.then_some(arguments)
    }
}
