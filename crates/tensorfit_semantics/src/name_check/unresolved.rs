//! Names that resolve to nothing: undeclared names, unknown functions and
//! segment functions, assignments to undeclared names, unknown members.

use tensorfit_base::{Code, Diagnostic};

use super::Context;
use crate::module_scope::ModuleItemKind;
use crate::pytorch_names::is_pytorch_name;
use crate::resolve::{DefId, Role, UnresolvedName, TENSOR_PROPERTIES};
use crate::suggest::{closest, did_you_mean_hint};

/// How many "did you mean" searches one part may run: each compares a
/// name with every name in scope.
const SUGGESTION_BUDGET: usize = 50;

pub(super) fn check(cx: &Context<'_>, diagnostics: &mut Vec<Diagnostic>) {
    let mut suggestions_left = SUGGESTION_BUDGET;
    let mut suggest = |candidate: &mut dyn FnMut() -> Option<String>| {
        if suggestions_left == 0 {
            return None;
        }
        suggestions_left -= 1;
        candidate()
    };
    for unresolved in &cx.resolution.unresolved {
        let name = unresolved.name.as_str();
        if cx.names_in_errors.contains(name) {
            continue;
        }
        let range = unresolved.range;
        let (diagnostic, candidate) = match unresolved.role {
            Role::Plain | Role::Dimension => {
                let candidate = suggest(&mut || name_candidate(cx, unresolved));
                let message = format!("`{name}` is not declared{}", hint(&candidate));
                (
                    Diagnostic::new(Code::UndeclaredName, range, message),
                    candidate,
                )
            }
            Role::Callee if is_pytorch_name(name) => (not_modelled(name, range), None),
            Role::Callee => {
                let candidate = suggest(&mut || name_candidate(cx, unresolved));
                let message = format!("unknown function `{name}`{}", hint(&candidate));
                (
                    Diagnostic::new(Code::UnknownFunction, range, message),
                    candidate,
                )
            }
            Role::Assigned => {
                let candidate = suggest(&mut || name_candidate(cx, unresolved));
                let message = format!(
                    "cannot assign to `{name}`: it is not declared (declare it with `var {name} = ...`){}",
                    hint(&candidate)
                );
                (
                    Diagnostic::new(Code::AssignToUndeclared, range, message),
                    candidate,
                )
            }
            Role::SegmentFunction => (
                Diagnostic::new(
                    Code::UnknownFunction,
                    range,
                    format!("unknown segment function `{name}`; the only one is `broadcast`"),
                ),
                closest(name, ["broadcast"]).map(str::to_owned),
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
                if called && is_pytorch_name(name) {
                    (not_modelled(name, range), None)
                } else {
                    let candidate = suggest(&mut || member_candidate(cx, name, called));
                    (
                        unknown_member(name, called, hint(&candidate), range),
                        candidate,
                    )
                }
            }
            Role::TorchPrefix { modelled } => {
                let (prefix, op) = name.rsplit_once('.').unwrap_or(("", name));
                let diagnostic = match modelled {
                    true => Diagnostic::new(
                        Code::UndeclaredName,
                        range,
                        format!(
                            "`{name}` is PyTorch's name: in the Tensor language the operation is `{op}`, without `{prefix}.`"
                        ),
                    )
                    .with_suggestion(format!("Remove `{prefix}.`"), range, ""),
                    false => not_modelled(name, range),
                };
                (diagnostic, None)
            }
            // Named arguments are checked with the call's other arguments
            // (`calls.rs`); an unknown type name is the shape analysis's.
            Role::NamedArg | Role::TypeName => continue,
        };
        diagnostics.push(match candidate {
            Some(candidate) => {
                diagnostic.with_suggestion(format!("Change to `{candidate}`"), range, candidate)
            }
            None => diagnostic,
        });
    }
}

/// An operation PyTorch has and the prelude does not: said so, rather than
/// suggesting a near name, which would be another operation.
fn not_modelled(name: &str, range: tensorfit_base::TextRange) -> Diagnostic {
    Diagnostic::new(
        Code::UnknownFunction,
        range,
        format!(
            "`{name}` is a PyTorch operation that tensorfit does not model yet (docs/operations.md lists the ones it does)"
        ),
    )
}

fn hint(candidate: &Option<String>) -> String {
    did_you_mean_hint(candidate.as_deref())
}

/// `self.name` where the struct has no such member, and the member it
/// may have meant.
fn unknown_member_of(
    cx: &Context<'_>,
    owner: DefId,
    unresolved: &UnresolvedName,
) -> (Diagnostic, Option<String>) {
    let res = cx.resolution;
    let members = res.members.get(&owner).cloned().unwrap_or_default();
    let candidates = members
        .fields
        .iter()
        .chain(&members.params)
        .chain(&members.methods)
        .map(|&id| res.defs[id].name.as_str());
    let candidate = closest(&unresolved.name, candidates).map(str::to_owned);
    let diagnostic = Diagnostic::new(
        Code::UnknownField,
        unresolved.range,
        format!(
            "`{}` has no field, parameter or method named `{}`{}",
            res.defs[owner].name,
            unresolved.name,
            hint(&candidate)
        ),
    );
    (diagnostic, candidate)
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
fn name_candidate(cx: &Context<'_>, unresolved: &UnresolvedName) -> Option<String> {
    let res = cx.resolution;
    let locals = unresolved
        .visible
        .iter()
        .flatten()
        .map(|&id| res.defs[id].name.as_str());
    let items = cx.scope.items.keys().map(String::as_str);
    closest(&unresolved.name, locals.chain(items)).map(str::to_owned)
}

fn member_candidate(cx: &Context<'_>, name: &str, called: bool) -> Option<String> {
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
    closest(name, candidates).map(str::to_owned)
}
