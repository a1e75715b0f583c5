//! A module class that only builds an `nn.Sequential` (torchvision's
//! `Conv2dNormActivation`, DenseNet's `_Transition`, RegNet's `AnyStage`):
//! its `__init__` passes layers to `super().__init__` or registers them
//! afterwards, and it defines nothing else. Such a class is lowered to a
//! function of its name whose body is `__init__`'s, and which returns the
//! Sequential built, held in a local of its own ([`SEQUENTIAL_BUILT`]):
//!
//! - `super().__init__(*layers)` (or `(ordered_dict)`) makes it
//!   `nn.Sequential(...)`, or the base builder's call for a subclass of
//!   one;
//! - `self.add_module(name, m)` registers `m` (`Builtin::AddModule`);
//! - `self.name = value` registers a layer and keeps a plain value out, as
//!   `nn.Module.__setattr__` does (`Builtin::SetModuleAttr`).
//!
//! Its instances are then Sequentials to the analysis: called, indexed and
//! sliced as any other. Other uses of `self` in it are unknown (an
//! attribute read on the result too).

use tensorfit_base::TextRange;
use tensorfit_syntax::ast::*;
use tree_sitter::Node;

use super::syntax::{child_by_field, decorated, init_method};
use super::Lowerer;
use crate::context::resolve_dotted;
use crate::torch_names::{self, Resolved};

impl Lowerer<'_> {
    /// The function a Sequential builder class `name` is lowered to; `None`
    /// for any other class.
    pub(super) fn sequential_builder(&mut self, name: &str, class: Node<'_>) -> Option<Function> {
        let base = self.context.sequential_builders.get(name)?.clone();
        let init = init_method(class, self.text)?;
        let base_range = self.range(class);
        let callee = match torch_names::resolve(&resolve_dotted(&base, &self.context.imported)) {
            Resolved::Operation(op) => ExprKind::Name(self.operation_name(op)),
            _ if self.context.sequential_builders.contains_key(&base) => ExprKind::Name(base),
            // A class or function of another file (`MLP` of
            // `torchvision.ops.misc`).
            _ if self.context.workspace_items.contains(&base) => ExprKind::Name(base),
            _ => return None,
        };
        self.builder_super_init = Some(Expr {
            kind: callee,
            range: base_range,
        });
        let mut function = self.function(init, &[], true);
        function.params.retain(|param| !param.is_self);
        function.name = child_by_field(class, "name").map(|n| self.name(n));
        // The function is the class's item: its range is the one the
        // outline gives the piece, which the summary's anchors are
        // relative to.
        function.range = self.range(decorated(class));
        // The Sequential built is unknown until `super().__init__`, and
        // returned where the body ends.
        if let Some(body) = &mut function.body {
            let at = TextRange::empty(body.range.start as usize);
            let end = TextRange::empty(body.range.end as usize);
            body.stmts.insert(
                0,
                Stmt {
                    kind: StmtKind::Var {
                        pattern: Pattern::Name(Name {
                            text: SEQUENTIAL_BUILT.to_owned(),
                            range: at,
                        }),
                        ty: None,
                        value: None,
                    },
                    range: at,
                },
            );
            // The return `function` adds at an end without `return`.
            if let Some(Stmt {
                kind: StmtKind::Return(Some(value)),
                ..
            }) = body.stmts.last_mut()
            {
                if matches!(value.kind, ExprKind::Unknown(_)) {
                    *value = built(end);
                }
            }
        }
        Some(function)
    }

    /// In a Sequential builder, the Sequential built, which `self` stands
    /// for when `object` is `self`.
    pub(super) fn sequential_built(&self, object: Node<'_>) -> Option<Expr> {
        let is_self = object.kind() == "identifier"
            && self.scope.self_name.as_deref() == Some(self.text(object));
        (is_self && self.super_init.is_some()).then(|| built(self.range(object)))
    }

    /// In a Sequential builder, the Sequential built when `object` is a
    /// part of `self` (`self.head` of `self.head.append(m)`,
    /// `self.classifier[1] = m`): a change of it changes the Sequential in
    /// a way not followed.
    pub(super) fn part_of_built(&self, object: Node<'_>) -> Option<Expr> {
        self.super_init.as_ref()?;
        let mut node = object;
        loop {
            node = match node.kind() {
                "attribute" => child_by_field(node, "object")?,
                "subscript" => child_by_field(node, "value")?,
                "identifier" if node != object => return self.sequential_built(node),
                _ => return None,
            };
        }
    }

    /// In a Sequential builder, the local holding the Sequential built.
    pub(super) fn sequential_built_name(&self, range: TextRange) -> Option<Expr> {
        self.super_init.is_some().then(|| built(range))
    }
}

/// The local of a Sequential builder that holds the Sequential built; no
/// identifier can be this name.
const SEQUENTIAL_BUILT: &str = "$sequential";

fn built(range: TextRange) -> Expr {
    Expr {
        kind: ExprKind::Name(SEQUENTIAL_BUILT.to_owned()),
        range,
    }
}
