//! An enumeration class (`crate::enumerations`) lowered to a struct whose
//! class fields are its members, in order: `SAME = "same"` is the member
//! `Mode.SAME` holding `"same"`. `auto()` is replaced by the value the
//! `enum` module gives it. The engine makes each member one object of the
//! class (`tensorfit_semantics`' `Value::Member`).
//!
//! Which names are members is Python's: every name assigned in the class
//! body but `_sunder_` and `__dunder__` names. Methods stay the class's
//! functions, lowered as any class's are.

use tensorfit_syntax::ast::*;
use tree_sitter::Node;

use super::init::class_body_assignments;
use super::syntax::{child_by_field, named_children};
use super::Lowerer;
use crate::context::resolve_dotted;
use crate::enumerations::{AutoValue, EnumFacts};

impl Lowerer<'_> {
    pub(super) fn enum_class(&mut self, class: Node<'_>, facts: EnumFacts) -> Struct {
        let members = child_by_field(class, "body")
            .map(named_children)
            .unwrap_or_default();
        let mut fields: Vec<Field> = Vec::new();
        // What the member before holds, for `auto()`: `None` before the
        // first, `Some(None)` after one that holds no integer.
        let mut last_number: Option<Option<i64>> = None;
        for (assignment, left) in class_body_assignments(&members) {
            let name = self.name(left);
            if is_reserved(&name.text) {
                continue;
            }
            let Some(right) = child_by_field(assignment, "right") else {
                continue;
            };
            let value = match self.is_auto(right) {
                true => self.auto_value(right, facts.auto, &name.text, last_number),
                false => self.expr(right),
            };
            last_number = Some(match &value.kind {
                ExprKind::Int(k) => Some(*k),
                ExprKind::Str(text) if facts.auto == AutoValue::NextNumberText => text.parse().ok(),
                _ => None,
            });
            // Python refuses to assign a member twice; the first stays.
            if fields.iter().any(|f| f.name.text == name.text) {
                continue;
            }
            fields.push(Field {
                name,
                ty: None,
                value,
                range: self.range(assignment),
            });
        }
        Struct {
            name: child_by_field(class, "name").map(|n| self.name(n)),
            params: Some(Vec::new()),
            class_fields: fields,
            init: None,
            fields: Vec::new(),
            methods: Vec::new(),
            enumeration: Some(facts.kind),
            range: self.range(class),
        }
    }

    /// Whether `node` is `auto()` of the `enum` module.
    fn is_auto(&self, node: Node<'_>) -> bool {
        if node.kind() != "call" {
            return false;
        }
        let no_args =
            child_by_field(node, "arguments").is_some_and(|a| named_children(a).is_empty());
        let callee = child_by_field(node, "function").map(|f| self.text(f));
        no_args && callee.is_some_and(|c| resolve_dotted(c, &self.context.imported) == "enum.auto")
    }

    fn auto_value(
        &self,
        node: Node<'_>,
        auto: AutoValue,
        name: &str,
        last_number: Option<Option<i64>>,
    ) -> Expr {
        let range = self.range(node);
        // After a member that holds no integer, what `auto()` gives
        // changed between Python versions: not followed.
        let next = match last_number {
            None => Some(1),
            Some(last) => last.and_then(|k| k.checked_add(1)),
        };
        let kind = match (auto, next) {
            (AutoValue::NextNumber, Some(k)) => ExprKind::Int(k),
            (AutoValue::NextNumberText, Some(k)) => ExprKind::Str(k.to_string()),
            (AutoValue::LowercaseName, _) => ExprKind::Str(name.to_lowercase()),
            _ => return self.unknown(node, "this `auto()` value is not followed"),
        };
        Expr { kind, range }
    }
}

/// `_sunder_` and `__dunder__` names, which are never members.
fn is_reserved(name: &str) -> bool {
    name.len() > 1 && name.starts_with('_') && name.ends_with('_')
}
