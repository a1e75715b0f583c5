//! Module classes derived from a container of PyTorch's (`nn.ModuleDict`,
//! `nn.Sequential`, `nn.ModuleList`) that define methods of their own
//! (DenseNet's `_DenseBlock(nn.ModuleDict)`, whose `forward` iterates over
//! `self.items()`). What such an instance holds as a container is the
//! field [`REGISTERED_MODULES_FIELD`]:
//!
//! - `super().__init__(...)` makes it: a dict of modules, a Sequential or
//!   a list, from the arguments;
//! - in `__init__`, `self.add_module(name, m)`, `self.append(m)` and
//!   `self.extend(ms)` change it (through `containers::list_update`), and
//!   `self.name = value` registers a layer in it as `nn.Module.__setattr__`
//!   does, besides setting the field;
//! - any other change of `self` in place, or in another method, makes it
//!   unknown;
//! - in the methods, `self.items()`, `self.values()`, `self.keys()` and
//!   `for m in self` read it, and so does an attribute the class does not
//!   set itself (`Instance::member`).

use tensorfit_base::TextRange;
use tensorfit_syntax::ast::*;
use tree_sitter::Node;

use super::expressions::builtin_call;
use super::init::{field_local, field_name};
use super::statements::reassigned;
use super::syntax::{child_by_field, is_plain_argument, named_children};
use super::Lowerer;
use crate::context::resolve_dotted;

/// The container a class derives from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ContainerKind {
    Dict,
    Sequential,
    List,
}

/// The container a class with these bases derives from, if it is one of
/// PyTorch's (and the only base).
pub(crate) fn container_base(
    bases: &[String],
    imported: &std::collections::BTreeMap<String, String>,
) -> Option<ContainerKind> {
    let [base] = bases else {
        return None;
    };
    match resolve_dotted(base, imported).as_str() {
        "torch.nn.ModuleDict" => Some(ContainerKind::Dict),
        "torch.nn.Sequential" => Some(ContainerKind::Sequential),
        "torch.nn.ModuleList" => Some(ContainerKind::List),
        _ => None,
    }
}

impl Lowerer<'_> {
    /// `super().__init__(...)` in `__init__` of such a class: the
    /// container's first value.
    pub(super) fn registered_init(&mut self, call: Node<'_>, range: TextRange) -> Option<Stmt> {
        let kind = self.registers?;
        let arguments = named_children(child_by_field(call, "arguments")?);
        let plain = arguments.iter().all(|a| is_plain_argument(*a));
        let value = match (kind, arguments.as_slice()) {
            (ContainerKind::Dict, _) if plain && arguments.len() <= 1 => {
                let args = arguments.iter().map(|a| self.expr(*a)).collect();
                builtin_call(Builtin::DictFromPairs, args, range)
            }
            (ContainerKind::Sequential, _) => Expr {
                kind: ExprKind::Call {
                    callee: Box::new(Expr {
                        kind: ExprKind::Name("Sequential".to_owned()),
                        range,
                    }),
                    args: self.arguments(call),
                },
                range,
            },
            (ContainerKind::List, []) => Expr {
                kind: ExprKind::List(Vec::new()),
                range,
            },
            (ContainerKind::List, [only]) if plain => self.expr(*only),
            _ => self.unknown(call, "the container's arguments are not followed"),
        };
        Some(self.note_field(
            field_name(REGISTERED_MODULES_FIELD, range),
            field_local(REGISTERED_MODULES_FIELD, range),
            value,
            range,
        ))
    }

    /// In `__init__` of such a class, `self` as what a change in place
    /// changes (`self.add_module(name, m)`): the container.
    pub(super) fn registered_self(&self, object: Node<'_>) -> Option<Expr> {
        self.registers?;
        let is_self = object.kind() == "identifier"
            && self.scope.kind == super::ScopeKind::Init
            && self.scope.self_name.as_deref() == Some(self.text(object));
        is_self.then(|| field_local(REGISTERED_MODULES_FIELD, self.range(object)))
    }

    /// `self.name = value` in `__init__` of such a class: the statement
    /// that registers the field's value in the container too.
    pub(super) fn register_attribute(&self, target: Node<'_>, range: TextRange) -> Option<Stmt> {
        self.registers?;
        let attribute = child_by_field(target, "attribute")?;
        let name = self.text(attribute);
        let args = vec![
            Expr {
                kind: ExprKind::Str(name.to_owned()),
                range,
            },
            field_local(name, range),
        ];
        Some(reassigned(
            field_local(REGISTERED_MODULES_FIELD, range),
            Builtin::SetModuleAttr,
            args,
            range,
        ))
    }

    /// `for m in self` in a method of such a class: the container's keys
    /// (a dict's) or modules.
    pub(super) fn iterated_self(&self, iterable: Node<'_>) -> Option<Expr> {
        let kind = self.registers?;
        let is_self = iterable.kind() == "identifier"
            && self.scope.self_name.as_deref() == Some(self.text(iterable));
        if !is_self {
            return None;
        }
        let range = self.range(iterable);
        let container = Expr {
            kind: ExprKind::SelfValue,
            range,
        };
        Some(match kind {
            ContainerKind::Dict => builtin_call(Builtin::Keys, vec![container], range),
            ContainerKind::Sequential => builtin_call(Builtin::Values, vec![container], range),
            // A list's own value is the list.
            ContainerKind::List => Expr {
                kind: ExprKind::Field {
                    value: Box::new(container),
                    field: FieldName::Named(field_name(REGISTERED_MODULES_FIELD, range)),
                },
                range,
            },
        })
    }
}
