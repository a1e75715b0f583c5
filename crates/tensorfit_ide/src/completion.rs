//! Completion: the names that fit at the cursor.
//!
//! The text around the cursor is usually half-typed (`let y = x.`,
//! `conv2d(x, w, `) and does not parse, so the context is read from the
//! text (`cursor_text`) and the scope from a tree completed at the cursor
//! (`cursor_tree`). What is offered:
//!
//! - after `receiver.`: the fields, parameters and methods of the
//!   receiver's struct when it is known (`self`, `let m = Model()`), else
//!   the tensor properties and the prelude operations that work as tensor
//!   methods (`x.reshape(...)`);
//! - on a type: the built-in types, the file's structs and the prelude's
//!   layers;
//! - elsewhere: the named arguments of the call the cursor is in (as
//!   `name: `, the language's syntax for them), then the locals declared
//!   before the cursor (innermost first), the file's and imported items,
//!   and the prelude.
//!
//! Where a new name is declared (`let `, `fn `, a parameter name, a struct
//! member) and inside comments and strings nothing is offered. Items are
//! filtered by the typed prefix: same first letter, then the other letters
//! in order (`rsh` finds `reshape`).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use tensorfit_semantics::{registry, Environment, Prelude, PRELUDE_VALUES};
use tensorfit_syntax::ast;

use crate::callable::{callable, prelude_callable};
use crate::cursor_text::CursorText;
use crate::cursor_tree::CursorTree;
use crate::render;
use tensorfit_semantics::resolve::{
    DefKind, DefSource, ProbeMember, Resolution, TENSOR_PROPERTIES,
};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompletionItem {
    pub label: String,
    pub kind: CompletionKind,
    /// The signature of a callable, the type or role of a binding.
    pub detail: Option<String>,
    /// What to insert when it differs from the label.
    pub insert_text: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompletionKind {
    /// `let`, `var`, loop and index variables.
    Variable,
    Parameter,
    /// A dimension name or segment bound in a `Tensor[...]` type.
    DimensionName,
    Constant,
    Function,
    /// A struct, or a prelude layer (`Conv2d`).
    Struct,
    Method,
    Field,
    /// `shape` and `rank` of a tensor.
    Property,
    /// `name: ` inside a call.
    NamedArgument,
    /// A built-in type: `Int`, `Tensor`, ...
    Type,
}

const BUILTIN_TYPES: &[&str] = &["Int", "Bool", "Float", "Shape", "Tensor"];

/// The completions at byte `offset` of `text` (which `file` was parsed
/// from). `environment` is the file's prelude and resolved imports;
/// `first_error` where the parse's first syntax error starts
/// ([`tensorfit_syntax::Parse::first_syntax_error`]).
pub fn completions(
    file: &ast::SourceFile,
    text: &str,
    offset: usize,
    environment: Environment<'_>,
    first_error: Option<usize>,
) -> Vec<CompletionItem> {
    let cursor = CursorText::new(text, offset);
    if cursor.in_comment_or_string || cursor.declares_a_name() {
        return Vec::new();
    }
    let tree = CursorTree::new(file, &cursor, environment.imports, first_error);
    let resolution = tree.resolve(&cursor, environment.prelude);
    let probe = resolution.probe.clone().unwrap_or_default();
    let prefix = cursor.prefix();
    // Only what the prefix keeps is rendered (a signature each).
    let wanted = |name: &str| matches_prefix(name, prefix);
    let mut items = Vec::new();
    if cursor.after_dot() {
        member_completions(&resolution, probe.member, &mut items);
    } else if probe.in_type || cursor.in_type_position() {
        type_completions(&resolution, &mut items);
    } else if declares_a_member(&tree, cursor.offset) {
        return Vec::new();
    } else {
        named_argument_completions(&cursor, &tree, &resolution, &mut items);
        let ids = probe.locals.iter().chain(resolution.items.values());
        for &id in ids.filter(|&&id| wanted(&resolution.defs[id].name)) {
            items.push(def_item(&resolution, id));
        }
        for value in PRELUDE_VALUES.iter().filter(|v| wanted(v)) {
            items.push(CompletionItem {
                label: (*value).to_owned(),
                kind: CompletionKind::Constant,
                detail: Some("prelude value".to_owned()),
                insert_text: None,
            });
        }
        let prelude = prelude_functions(resolution.prelude);
        items.extend(prelude.iter().filter(|i| wanted(&i.label)).cloned());
    }
    let mut seen = HashSet::new();
    items.retain(|item| {
        !item.label.is_empty()
            && !item.label.contains("tensorfitCursor")
            && matches_prefix(&item.label, prefix)
            && seen.insert(item.label.clone())
    });
    items
}

/// After `receiver.`: the struct's members, or what a tensor has.
fn member_completions(
    resolution: &Resolution<'_>,
    member: Option<ProbeMember>,
    items: &mut Vec<CompletionItem>,
) {
    match member {
        Some(ProbeMember {
            receiver_struct: Some(s),
            ..
        }) => {
            if let Some(members) = resolution.members.get(&s) {
                for &id in members
                    .fields
                    .iter()
                    .chain(&members.params)
                    .chain(&members.methods)
                {
                    items.push(def_item(resolution, id));
                }
            }
        }
        Some(ProbeMember {
            receiver_is_instance: true,
            ..
        }) => {}
        _ => {
            for property in TENSOR_PROPERTIES {
                items.push(CompletionItem {
                    label: (*property).to_owned(),
                    kind: CompletionKind::Property,
                    detail: Some(if *property == "shape" { "Shape" } else { "Int" }.to_owned()),
                    insert_text: None,
                });
            }
            // PyTorch's tensor methods only (`x.conv2d(w)` is accepted,
            // as `conv2d(x, w)`, but is not what a PyTorch user would type).
            for op in resolution.prelude.signatures.keys() {
                if registry::operation(op).is_some_and(|o| o.is_method()) {
                    items.push(prelude_item(resolution.prelude, op, true));
                }
            }
        }
    }
}

fn type_completions(resolution: &Resolution<'_>, items: &mut Vec<CompletionItem>) {
    for ty in BUILTIN_TYPES {
        items.push(CompletionItem {
            label: (*ty).to_owned(),
            kind: CompletionKind::Type,
            detail: None,
            insert_text: None,
        });
    }
    for &id in resolution.items.values() {
        if resolution.defs[id].kind == DefKind::Struct {
            items.push(def_item(resolution, id));
        }
    }
    for op in resolution.prelude.signatures.keys() {
        if op.starts_with(char::is_uppercase) {
            items.push(prelude_item(resolution.prelude, op, false));
        }
    }
}

/// Inside a call, at the start of an argument: `name: ` for each parameter
/// not given yet.
fn named_argument_completions(
    cursor: &CursorText<'_>,
    tree: &CursorTree,
    resolution: &Resolution<'_>,
    items: &mut Vec<CompletionItem>,
) {
    let Some(open) = cursor.open.last() else {
        return;
    };
    if open.bracket != '(' || !cursor.current_arg(open).trim().is_empty() {
        return;
    }
    let Some(call) = tree.call_at(resolution, open.offset) else {
        return;
    };
    let Some(callable) = callable(resolution, &call.callee, "", &|_| false) else {
        return;
    };
    let positional = open.args.iter().filter(|a| a.name.is_none()).count();
    let named: HashSet<&str> = open.args.iter().filter_map(|a| a.name.as_deref()).collect();
    for (i, param) in callable.params.iter().enumerate() {
        if param.variadic || i < positional || named.contains(param.name.as_str()) {
            continue;
        }
        items.push(CompletionItem {
            label: format!("{}:", param.name),
            kind: CompletionKind::NamedArgument,
            detail: Some(param.text.clone()),
            insert_text: Some(format!("{}: ", param.name)),
        });
    }
}

/// The cursor is in a struct's body but not in a field's value or a method:
/// a new member is being declared.
fn declares_a_member(tree: &CursorTree, offset: usize) -> bool {
    let Ok(offset) = u32::try_from(offset) else {
        return false;
    };
    let inside = |start: u32, end: u32| start <= offset && offset <= end;
    tree.file.items[..tree.completed_items].iter().any(|item| {
        let ast::Item::Struct(s) = item else {
            return false;
        };
        let header_end = s
            .params
            .iter()
            .flatten()
            .map(|p| p.range.end)
            .chain(s.name.as_ref().map(|n| n.range.end))
            .max()
            .unwrap_or(s.range.start);
        inside(s.range.start, s.range.end)
            && offset > header_end
            && !s.fields.iter().any(|f| inside(f.range.start, f.range.end))
            && !s.methods.iter().any(|m| inside(m.range.start, m.range.end))
    })
}

fn def_item(resolution: &Resolution<'_>, id: usize) -> CompletionItem {
    let def = &resolution.defs[id];
    let kind = match def.kind {
        DefKind::Const => CompletionKind::Constant,
        DefKind::Function => CompletionKind::Function,
        DefKind::Struct => CompletionKind::Struct,
        DefKind::Method => CompletionKind::Method,
        DefKind::Field => CompletionKind::Field,
        DefKind::StructParam | DefKind::Param => CompletionKind::Parameter,
        DefKind::Let | DefKind::Var | DefKind::LoopVar | DefKind::IndexVar => {
            CompletionKind::Variable
        }
        DefKind::DimName | DefKind::Segment => CompletionKind::DimensionName,
    };
    let detail = match (def.kind, def.source) {
        (_, DefSource::Const(c)) => render::annotation_and_value(c.ty.as_ref(), &c.value),
        (_, DefSource::Function(f)) => Some(render::function_signature(f, false)),
        (_, DefSource::Struct(s)) => render::struct_signature(s),
        (_, DefSource::Field(f)) => render::annotation_and_value(f.ty.as_ref(), &f.value),
        (_, DefSource::Param(p)) => match (&p.ty, &p.default) {
            (Some(ty), _) => Some(render::type_text(ty)),
            (None, Some(default)) => Some(format!("= {}", render::expr(default))),
            (None, None) => None,
        },
        (_, DefSource::Binding(ty)) => ty.map(render::type_text),
        (DefKind::DimName, _) => Some("dimension name".to_owned()),
        (DefKind::Segment, _) => Some("dimension segment".to_owned()),
        (DefKind::LoopVar, _) => Some("loop variable".to_owned()),
        (DefKind::IndexVar, _) => Some("index variable".to_owned()),
        _ => None,
    };
    CompletionItem {
        label: def.name.clone(),
        kind,
        detail,
        insert_text: None,
    }
}

/// Every prelude operation as a function, rendered once per prelude: the
/// same list ends most completions, and rendering its signatures was a
/// sixth of a completion on a 1,000-function file (by `perf`).
fn prelude_functions(prelude: &Prelude) -> Arc<Vec<CompletionItem>> {
    /// The last prelude's list, with that prelude's text: two preludes
    /// with the same text are equal. Holding the text keeps its address
    /// from being reused, so the same address is the same text.
    type Rendered = (Arc<str>, Arc<Vec<CompletionItem>>);
    static RENDERED: Mutex<Option<Rendered>> = Mutex::new(None);
    let mut rendered = RENDERED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((source, items)) = rendered.as_ref() {
        if Arc::ptr_eq(source, &prelude.source) || **source == *prelude.source {
            return items.clone();
        }
    }
    let items: Arc<Vec<CompletionItem>> = Arc::new(
        prelude
            .signatures
            .keys()
            .map(|op| prelude_item(prelude, op, false))
            .collect(),
    );
    *rendered = Some((prelude.source.clone(), items.clone()));
    items
}

/// A prelude operation with its signature; `method` leaves out the
/// parameter the receiver fills.
fn prelude_item(prelude: &Prelude, op: &str, method: bool) -> CompletionItem {
    let detail = prelude_callable(prelude, op, method).map(|c| {
        let params: Vec<&str> = c.params.iter().map(|p| p.text.as_str()).collect();
        format!("({}){}", params.join(", "), c.tail)
    });
    let kind = if method {
        CompletionKind::Method
    } else if op.starts_with(char::is_uppercase) {
        CompletionKind::Struct
    } else {
        CompletionKind::Function
    };
    CompletionItem {
        label: op.to_owned(),
        kind,
        detail,
        insert_text: None,
    }
}

/// Same first letter, then the prefix's letters in order (ignoring case).
fn matches_prefix(label: &str, prefix: &str) -> bool {
    let mut wanted = prefix.chars().flat_map(char::to_lowercase);
    let mut have = label.chars().flat_map(char::to_lowercase);
    let Some(first) = wanted.next() else {
        return true;
    };
    if have.next() != Some(first) {
        return false;
    }
    let mut next = wanted.next();
    for c in have {
        match next {
            None => break,
            Some(w) if w == c => next = wanted.next(),
            Some(_) => {}
        }
    }
    next.is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(items: &[CompletionItem]) -> Vec<&str> {
        items.iter().map(|i| i.label.as_str()).collect()
    }

    #[test]
    fn the_rendered_prelude_list_follows_the_prelude() {
        let builtin = prelude_functions(Prelude::builtin());
        assert!(labels(&builtin).contains(&"relu"));
        let own = Prelude::parse("extern fn squash(x: Tensor[n]) -> Tensor[n]\n");
        let rendered = prelude_functions(&own);
        assert_eq!(labels(&rendered), vec!["squash"]);
        assert_eq!(
            rendered[0].detail.as_deref(),
            Some("(x: Tensor[n]) -> Tensor[n]")
        );
        // Back to the built-in one: rendered again, the same as before.
        assert_eq!(prelude_functions(Prelude::builtin()), builtin);
        // An equal prelude parsed apart gives the same list.
        let again = Prelude::parse("extern fn squash(x: Tensor[n]) -> Tensor[n]\n");
        assert_eq!(prelude_functions(&again), rendered);
    }
}
