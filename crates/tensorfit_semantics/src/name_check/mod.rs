//! Name checks: the failure kinds of Rink's model language that need no
//! shapes (LANGUAGE.md §3), plus call arity and named arguments.
//!
//! What each name refers to is the resolver's answer (`resolve.rs`), the
//! same one the editor shows; the checks here only read it:
//!
//! - `unresolved.rs`: names that resolve to nothing (undeclared names,
//!   unknown functions, fields and methods), with "did you mean";
//! - `uses.rs`: what is done with a resolved name that its declaration
//!   forbids (assigning a `let`, calling a constant, a constant defined
//!   through itself, `self` outside a method);
//! - `declarations.rs`: names declared twice in one scope or struct;
//! - `calls.rs`: the arguments of calls against the callee's parameters;
//! - `initialization.rs`: the one question resolution cannot answer,
//!   which `var`s are definitely assigned where (a flow analysis over the
//!   statements).

mod calls;
mod declarations;
mod initialization;
mod unresolved;
mod uses;

use std::collections::BTreeSet;

use tensorfit_base::Diagnostic;
use tensorfit_syntax::ast;

use crate::module_scope::{ModuleItemKind, ModuleScope};
use crate::prelude::Prelude;
use crate::resolve::{resolve_in, OuterItems, Resolution};

/// The name diagnostics of `part` (items of a file, or its script), whose
/// file sees `scope`.
pub(crate) fn check(
    scope: &ModuleScope,
    prelude: &Prelude,
    part: &ast::SourceFile,
    names_in_errors: &BTreeSet<String>,
) -> Vec<Diagnostic> {
    let resolution = resolve_in(part, prelude, scope);
    let context = Context {
        scope,
        resolution: &resolution,
        names_in_errors,
    };
    let mut diagnostics = Vec::new();
    unresolved::check(&context, &mut diagnostics);
    uses::check(&context, &mut diagnostics);
    declarations::check(&context, part, &mut diagnostics);
    calls::check(&context, &mut diagnostics);
    initialization::check(&resolution, part, &mut diagnostics);
    diagnostics.sort_by_key(|d| (d.range.start, d.range.end));
    diagnostics
}

/// What every check reads.
struct Context<'c> {
    scope: &'c ModuleScope,
    resolution: &'c Resolution<'c>,
    /// Names seen inside syntax errors: never reported as unknown.
    names_in_errors: &'c BTreeSet<String>,
}

impl OuterItems for ModuleScope {
    /// The file's items and imported items; the prelude's operations are
    /// the resolver's own.
    fn declares(&self, name: &str) -> bool {
        self.items.get(name).is_some_and(|item| {
            !matches!(
                item.kind,
                ModuleItemKind::Prelude | ModuleItemKind::PreludeValue
            )
        })
    }
}
