//! Names that resolve to nothing: undeclared names, unknown functions and
//! segment functions, assignments to undeclared names, unknown members.

use tensorfit_base::{Code, Diagnostic};

use super::Context;
use crate::module_scope::ModuleItemKind;
use crate::resolve::{DefId, Role, UnresolvedName, TENSOR_PROPERTIES};
use crate::suggest::did_you_mean;

/// How many "did you mean" searches one part may run: each compares a
/// name with every name in scope.
const SUGGESTION_BUDGET: usize = 50;

pub(super) fn check(cx: &Context<'_>, diagnostics: &mut Vec<Diagnostic>) {
    let mut suggestions_left = SUGGESTION_BUDGET;
    let mut suggest = |candidates: &mut dyn FnMut() -> String| {
        if suggestions_left == 0 {
            return String::new();
        }
        suggestions_left -= 1;
        candidates()
    };
    for unresolved in &cx.resolution.unresolved {
        let name = unresolved.name.as_str();
        if cx.names_in_errors.contains(name) {
            continue;
        }
        let range = unresolved.range;
        let diagnostic = match unresolved.role {
            Role::Plain | Role::Dimension => {
                let hint = suggest(&mut || name_suggestion(cx, unresolved));
                Diagnostic::new(
                    Code::UndeclaredName,
                    range,
                    format!("`{name}` is not declared{hint}"),
                )
            }
            Role::Callee => {
                let hint = suggest(&mut || name_suggestion(cx, unresolved));
                Diagnostic::new(
                    Code::UnknownFunction,
                    range,
                    format!("unknown function `{name}`{hint}"),
                )
            }
            Role::Assigned => {
                let hint = suggest(&mut || name_suggestion(cx, unresolved));
                Diagnostic::new(
                    Code::AssignToUndeclared,
                    range,
                    format!(
                        "cannot assign to `{name}`: it is not declared (declare it with `var {name} = ...`){hint}"
                    ),
                )
            }
            Role::SegmentFunction => Diagnostic::new(
                Code::UnknownFunction,
                range,
                format!("unknown segment function `{name}`; the only one is `broadcast`"),
            ),
            Role::Member {
                self_of: Some(owner),
                ..
            } => unknown_member_of(cx, owner, unresolved),
            Role::Member {
                called,
                self_of: None,
            } => {
                if member_is_plausible(cx, name, called) {
                    continue;
                }
                let hint = suggest(&mut || member_suggestion(cx, name, called));
                unknown_member(name, called, hint, range)
            }
            // Named arguments are checked with the call's other arguments
            // (`calls.rs`); an unknown type name is the shape analysis's.
            Role::NamedArg | Role::TypeName => continue,
        };
        diagnostics.push(diagnostic);
    }
}

/// `self.name` where the struct has no such member.
fn unknown_member_of(cx: &Context<'_>, owner: DefId, unresolved: &UnresolvedName) -> Diagnostic {
    let res = cx.resolution;
    let members = res.members.get(&owner).cloned().unwrap_or_default();
    let candidates = members
        .fields
        .iter()
        .chain(&members.params)
        .chain(&members.methods)
        .map(|&id| res.defs[id].name.as_str());
    Diagnostic::new(
        Code::UnknownField,
        unresolved.range,
        format!(
            "`{}` has no field, parameter or method named `{}`{}",
            res.defs[owner].name,
            unresolved.name,
            did_you_mean(&unresolved.name, candidates)
        ),
    )
}

/// A member of a value whose struct the syntax does not tell: plausible if
/// some struct in scope has a member of that name, if it is a tensor
/// property, or (called) a prelude operation.
fn member_is_plausible(cx: &Context<'_>, name: &str, called: bool) -> bool {
    cx.scope.member_names.contains(name)
        || TENSOR_PROPERTIES.contains(&name)
        || (called && cx.resolution.prelude.signature(name).is_some())
}

fn unknown_member(
    name: &str,
    called: bool,
    hint: String,
    range: tensorfit_base::TextRange,
) -> Diagnostic {
    if called {
        Diagnostic::new(
            Code::UnknownFunction,
            range,
            format!(
                "unknown method `{name}`: no prelude operation or struct method has this name{hint}"
            ),
        )
    } else {
        Diagnostic::new(
            Code::UnknownField,
            range,
            format!(
                "unknown field `{name}`: tensors have `shape` and `rank`, and no struct has a member of this name{hint}"
            ),
        )
    }
}

/// The nearest local binding visible at the name, or item in scope.
fn name_suggestion(cx: &Context<'_>, unresolved: &UnresolvedName) -> String {
    let res = cx.resolution;
    let locals = unresolved
        .visible
        .iter()
        .flatten()
        .map(|&id| res.defs[id].name.as_str());
    let items = cx.scope.items.keys().map(String::as_str);
    did_you_mean(&unresolved.name, locals.chain(items))
}

fn member_suggestion(cx: &Context<'_>, name: &str, called: bool) -> String {
    let prelude_ops = cx
        .scope
        .items
        .iter()
        .filter(|(_, item)| called && matches!(item.kind, ModuleItemKind::Prelude))
        .map(|(name, _)| name.as_str());
    let candidates = cx
        .scope
        .member_names
        .iter()
        .map(String::as_str)
        .chain(TENSOR_PROPERTIES.iter().copied())
        .chain(prelude_ops);
    did_you_mean(name, candidates)
}
