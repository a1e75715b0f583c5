//! The arguments of a call against the parameters of what it calls: counts,
//! named arguments, order.

use std::borrow::Cow;

use tensorfit_base::Diagnostic;

use super::Context;
use crate::module_scope::ModuleItemKind;
use crate::resolve::{CallSite, Callee, DefKind, DefSource};
use crate::signature::Signature;

pub(super) fn check(cx: &Context<'_>, diagnostics: &mut Vec<Diagnostic>) {
    for call in cx.resolution.calls.iter().filter(|c| c.direct) {
        if let Some((signature, receiver_args)) = signature_of(cx, call) {
            signature.check_call(receiver_args, call.args, call.range, diagnostics);
        }
    }
}

/// The parameters of the callee, and how many leading arguments the call
/// gives before its parentheses (the receiver of `x.op(...)`).
fn signature_of<'c>(cx: &Context<'c>, call: &CallSite<'_>) -> Option<(Cow<'c, Signature>, usize)> {
    let res = cx.resolution;
    match &call.callee {
        Callee::Def(id) => {
            let def = &res.defs[*id];
            let signature = match (def.kind, def.source) {
                (DefKind::Function, DefSource::Function(f)) => {
                    Signature::from_params(&def.name, &f.params)
                }
                (DefKind::Method, DefSource::Function(f)) => {
                    let owner = def.owner.map_or("", |s| res.defs[s].name.as_str());
                    Signature::from_params(format!("{owner}.{}", def.name), &f.params)
                }
                (DefKind::Struct, DefSource::Struct(s)) => {
                    Signature::from_params(&def.name, s.params.as_deref().unwrap_or(&[]))
                }
                _ => return None,
            };
            Some((Cow::Owned(signature), 0))
        }
        Callee::Outer(name) => match &cx.scope.items.get(name)?.kind {
            ModuleItemKind::Function(signature) | ModuleItemKind::Struct(signature) => {
                Some((Cow::Borrowed(signature), 0))
            }
            _ => None,
        },
        Callee::Prelude { op, method: false } => {
            Some((Cow::Borrowed(res.prelude.signature(op)?), 0))
        }
        // `x.f(args)` means `f(x, args)`, unless a struct has a member `f`
        // that `x` may be an instance of.
        Callee::Prelude { op, method: true } if !cx.scope.member_names.contains(op) => {
            Some((Cow::Borrowed(res.prelude.signature(op)?), 1))
        }
        Callee::Prelude { .. } | Callee::Unknown => None,
    }
}
