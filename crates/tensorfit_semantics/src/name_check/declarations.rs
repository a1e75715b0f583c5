//! Names declared twice: in one scope (as the resolver found them), or as
//! two members of one struct.

use std::collections::HashMap;

use tensorfit_base::{Code, Diagnostic, TextRange};
use tensorfit_syntax::ast;

use super::Context;

pub(super) fn check(cx: &Context<'_>, part: &ast::SourceFile, diagnostics: &mut Vec<Diagnostic>) {
    let defs = &cx.resolution.defs;
    for &(later, first) in &cx.resolution.redeclarations {
        let name = &defs[later].name;
        diagnostics.push(
            Diagnostic::new(
                Code::RedeclaredName,
                defs[later].name_range,
                format!("`{name}` is already declared in this scope"),
            )
            .with_related(
                defs[first].name_range,
                format!("`{name}` is first declared here"),
            ),
        );
    }
    for item in &part.items {
        if let ast::Item::Struct(s) = item {
            duplicate_members(s, diagnostics);
        }
    }
}

fn duplicate_members(s: &ast::Struct, diagnostics: &mut Vec<Diagnostic>) {
    let mut seen: HashMap<&str, TextRange> = HashMap::new();
    let names = s
        .fields
        .iter()
        .map(|f| &f.name)
        .chain(s.methods.iter().filter_map(|m| m.name.as_ref()));
    for name in names {
        match seen.get(name.text.as_str()) {
            Some(first) => diagnostics.push(
                Diagnostic::new(
                    Code::RedeclaredName,
                    name.range,
                    format!("`{}` is already a member of this struct", name.text),
                )
                .with_related(*first, format!("`{}` is first declared here", name.text)),
            ),
            None => {
                seen.insert(&name.text, name.range);
            }
        }
    }
}
