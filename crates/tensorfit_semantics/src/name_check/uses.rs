//! Uses of a resolved name that its declaration forbids: assigning what is
//! not a `var` or a parameter, calling a value, defining a constant through
//! itself, `self` outside a method.

use tensorfit_base::{Code, Diagnostic, TextRange};

use super::Context;
use crate::module_scope::ModuleItemKind;
use crate::resolve::{DefKind, Occurrence, Role, Target};

pub(super) fn check(cx: &Context<'_>, diagnostics: &mut Vec<Diagnostic>) {
    for occurrence in &cx.resolution.occurrences {
        if occurrence.declaration {
            continue;
        }
        let found = match occurrence.role {
            Role::Assigned => assignment(cx, occurrence),
            Role::Callee => called_value(cx, occurrence),
            Role::Plain | Role::Dimension => constant_through_itself(cx, occurrence),
            _ => None,
        };
        diagnostics.extend(found);
    }
    for &range in &cx.resolution.stray_self {
        diagnostics.push(Diagnostic::new(
            Code::SelfOutsideMethod,
            range,
            "`self` is only available in the methods of a struct",
        ));
    }
}

/// `name = ...` where `name` is not a `var` or a parameter.
fn assignment(cx: &Context<'_>, occurrence: &Occurrence) -> Option<Diagnostic> {
    let res = cx.resolution;
    let (name, what, declared_at) = match &occurrence.target {
        Target::Def(id) => {
            let def = &res.defs[*id];
            let what = match def.kind {
                DefKind::Var | DefKind::Param | DefKind::StructParam => return None,
                DefKind::Let => "declared with `let`",
                DefKind::LoopVar => "a loop variable",
                DefKind::DimName => "a dimension name",
                DefKind::Segment => "a dimension segment",
                DefKind::IndexVar => "an index variable",
                DefKind::Const => "a constant",
                DefKind::Function | DefKind::Method => "a function",
                DefKind::Struct => "a struct",
                DefKind::Field => "a field",
            };
            (def.name.as_str(), what, Some(def.name_range))
        }
        Target::Outer(name) => {
            let item = cx.scope.items.get(name)?;
            let what = match item.kind {
                ModuleItemKind::Const => "a constant",
                ModuleItemKind::Function(_) => "a function",
                ModuleItemKind::Struct(_) => "a struct",
                ModuleItemKind::Prelude | ModuleItemKind::PreludeValue => "defined by the prelude",
            };
            (name.as_str(), what, Some(item.range))
        }
        Target::Prelude(name) | Target::PreludeValue(name) => {
            (name.as_str(), "defined by the prelude", None)
        }
        _ => return None,
    };
    let mut diagnostic = Diagnostic::new(
        Code::AssignToImmutable,
        occurrence.range,
        format!("cannot assign to `{name}`: it is {what}"),
    );
    if let Some(range) = declared_at.filter(|r| !r.is_empty()) {
        diagnostic = diagnostic.with_related(range, format!("`{name}` is declared here"));
    }
    Some(diagnostic)
}

/// `n(...)` where `n` is a constant or a prelude value.
fn called_value(cx: &Context<'_>, occurrence: &Occurrence) -> Option<Diagnostic> {
    let res = cx.resolution;
    let name = match &occurrence.target {
        Target::Def(id) if res.defs[*id].kind == DefKind::Const => &res.defs[*id].name,
        Target::Outer(name)
            if matches!(
                cx.scope.items.get(name).map(|item| &item.kind),
                Some(ModuleItemKind::Const)
            ) =>
        {
            name
        }
        Target::PreludeValue(name) => name,
        _ => return None,
    };
    Some(Diagnostic::new(
        Code::UnknownFunction,
        occurrence.range,
        format!("`{name}` is a value, not a function"),
    ))
}

/// `const n = n + 1` has no value. Each part is resolved on its own, so a
/// cycle through other constants is found elsewhere (`cycles.rs`).
fn constant_through_itself(cx: &Context<'_>, occurrence: &Occurrence) -> Option<Diagnostic> {
    let Target::Def(id) = occurrence.target else {
        return None;
    };
    let def = &cx.resolution.defs[id];
    let inside_itself = def.kind == DefKind::Const && within(occurrence.range, def.full_range);
    inside_itself.then(|| {
        Diagnostic::new(
            Code::CyclicConstant,
            occurrence.range,
            format!(
                "`{}` is defined in terms of itself, so it has no value",
                def.name
            ),
        )
    })
}

fn within(inner: TextRange, outer: TextRange) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}
