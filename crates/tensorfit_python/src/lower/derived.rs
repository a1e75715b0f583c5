//! The `__init__` of a class derived from another of the file (see
//! `crate::inheritance`): `super().__init__(...)` makes the base's instance
//! in the field [`BASE_INSTANCE_FIELD`], and `self.name` that the class
//! does not give itself reads that instance's member.

use std::collections::BTreeSet;

use tensorfit_base::TextRange;
use tensorfit_syntax::ast::*;
use tree_sitter::Node;

use super::init::{field_local, InitField};
use super::syntax::child_by_field;
use super::{Lowerer, ScopeKind};

/// The class being lowered derives from `base`; `own` are the attributes
/// it gives its instances itself.
pub(super) struct Derived {
    pub(super) base: String,
    pub(super) own: BTreeSet<String>,
}

impl Lowerer<'_> {
    /// `super().__init__(args)` in a derived class's `__init__`: the base's
    /// instance made with them. `None` in any other class.
    pub(super) fn base_init(&mut self, call: Node<'_>, range: TextRange) -> Option<Stmt> {
        let base = self.derived.as_ref()?.base.clone();
        let args = self.arguments(call);
        Some(self.make_base(base, args, range))
    }

    fn make_base(&mut self, base: String, args: Vec<Arg>, range: TextRange) -> Stmt {
        let value = Expr {
            kind: ExprKind::Call {
                callee: Box::new(Expr {
                    kind: ExprKind::Name(base),
                    range,
                }),
                args,
            },
            range,
        };
        let name = Name {
            text: BASE_INSTANCE_FIELD.to_owned(),
            range,
        };
        self.note_field(name, field_local(BASE_INSTANCE_FIELD, range), value, range)
    }

    /// In a derived class's `__init__`, `self.name` that the class does
    /// not give itself: a function of the base's class (a static method,
    /// `self.adjust_channels(...)`), or the base instance's member.
    pub(super) fn base_member(&self, attribute: Node<'_>) -> Option<Expr> {
        let (base, name) = self.base_attribute(attribute)?;
        let range = self.range(attribute);
        if let Some(function) = self.context.class_function(base, &name.text) {
            return Some(Expr {
                kind: ExprKind::Name(function),
                range,
            });
        }
        // A method of the base called here would run on the base's part,
        // where Python runs it on the derived instance being built (with
        // what the derived class assigned so far): not followed.
        let called = attribute
            .parent()
            .filter(|p| p.kind() == "call")
            .and_then(|call| child_by_field(call, "function"))
            .is_some_and(|f| f.id() == attribute.id());
        if called {
            return Some(self.unknown(
                attribute,
                "a method of the base class called in `__init__` is not followed",
            ));
        }
        Some(Expr {
            kind: ExprKind::Field {
                value: Box::new(field_local(BASE_INSTANCE_FIELD, range)),
                field: FieldName::Named(name),
            },
            range,
        })
    }

    /// In a derived class's `__init__`, what a change in place of
    /// `self.name` (`self.features.add_module(...)`, `self.fc[0] = ...`)
    /// changes when the class does not give itself `name`: the base's
    /// part, which the caller then forgets (a stale base field would be a
    /// wrong shape). `None` otherwise.
    pub(super) fn base_changed(&self, object: Node<'_>) -> Option<Expr> {
        self.base_attribute(object)?;
        Some(field_local(BASE_INSTANCE_FIELD, self.range(object)))
    }

    /// `self.name` in a derived class's `__init__` that the class does not
    /// give itself: the base's class and the name.
    fn base_attribute(&self, attribute: Node<'_>) -> Option<(&str, Name)> {
        let derived = self.derived.as_ref()?;
        if self.scope.kind != ScopeKind::Init
            || attribute.kind() != "attribute"
            || !self.is_self(child_by_field(attribute, "object"))
        {
            return None;
        }
        let name = self.name(child_by_field(attribute, "attribute")?);
        (!derived.own.contains(&name.text)).then_some((derived.base.as_str(), name))
    }

    /// The `__init__` of a derived class that has none: the base's, given
    /// every argument (`def __init__(self, *args, **kwargs):
    /// super().__init__(*args, **kwargs)`).
    pub(super) fn inherited_init(
        &mut self,
        at: TextRange,
    ) -> Option<(Vec<Param>, Option<Block>, Vec<InitField>)> {
        let base = self.derived.as_ref()?.base.clone();
        let collect = |name: &str, unpack: Unpack| Param {
            is_self: false,
            variadic: false,
            collects: Some(unpack),
            name: Name {
                text: name.to_owned(),
                range: at,
            },
            ty: None,
            default: None,
            range: at,
        };
        let pass = |name: &str, unpack: Unpack| Arg {
            name: None,
            unpack: Some(unpack),
            value: Expr {
                kind: ExprKind::Name(name.to_owned()),
                range: at,
            },
            range: at,
        };
        let params = vec![
            collect("args", Unpack::Positional),
            collect("kwargs", Unpack::Keywords),
        ];
        let args = vec![
            pass("args", Unpack::Positional),
            pass("kwargs", Unpack::Keywords),
        ];
        let outer = self.init_fields.replace(Vec::new());
        let statement = self.make_base(base, args, at);
        let fields = std::mem::replace(&mut self.init_fields, outer).unwrap_or_default();
        let body = Block {
            stmts: vec![statement],
            range: at,
        };
        Some((params, Some(body), fields))
    }
}
