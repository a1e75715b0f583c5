//! Definitions that need themselves: a struct whose field initialisers
//! build an instance of the struct (directly or through other structs),
//! and constants defined through each other.
//!
//! Such a struct has no finite instance, so it is reported once here and
//! the shape engine refuses to build it again while building it (see
//! `Frame::construct`). A constant defined through itself directly is the
//! name checker's (it sees one item at a time); cycles through several
//! constants are found here, where all the file's declarations are seen.

use std::collections::{BTreeMap, BTreeSet};

use tensorfit_base::{Code, Diagnostic, TextRange};
use tensorfit_syntax::ast::{self, ExprKind};

/// One edge of a definition graph: the definition `to` is used by the
/// member `via` of the definition it starts from, at `range`.
struct Edge<'a> {
    to: &'a str,
    via: &'a str,
    range: TextRange,
}

/// The diagnostics of the file's definition cycles, in source order.
pub fn definition_cycles(file: &ast::SourceFile) -> Vec<Diagnostic> {
    let mut diagnostics = struct_cycles(file);
    diagnostics.extend(constant_cycles(file));
    diagnostics
}

fn struct_cycles(file: &ast::SourceFile) -> Vec<Diagnostic> {
    let structs: BTreeMap<&str, &ast::Struct> = file
        .items
        .iter()
        .filter_map(|item| match item {
            ast::Item::Struct(s) => Some((s.name.as_ref()?.text.as_str(), s)),
            _ => None,
        })
        .collect();
    let mut graph: BTreeMap<&str, Vec<Edge>> = BTreeMap::new();
    for (&name, s) in &structs {
        let params: BTreeSet<&str> = s
            .params
            .iter()
            .flatten()
            .map(|p| p.name.text.as_str())
            .collect();
        let edges = graph.entry(name).or_default();
        for field in &s.fields {
            for expr in field.value.descendants() {
                let ExprKind::Call { callee, .. } = &expr.kind else {
                    continue;
                };
                let Some(callee) = callee.as_name() else {
                    continue;
                };
                if structs.contains_key(callee) && !params.contains(callee) {
                    edges.push(Edge {
                        to: callee,
                        via: &field.name.text,
                        range: expr.range,
                    });
                }
            }
        }
    }
    let mut diagnostics = Vec::new();
    for &name in structs.keys() {
        let Some(path) = path_back(&graph, name) else {
            continue;
        };
        let first = path[0];
        let mut message = format!("`{name}` contains itself through `{}`", first.1.via);
        if path.len() > 1 {
            let steps: Vec<String> = path
                .iter()
                .map(|(from, edge)| format!("`{from}.{}` builds `{}`", edge.via, edge.to))
                .collect();
            message.push_str(&format!(" ({})", steps.join(", ")));
        }
        message.push_str(": an instance would never be complete");
        diagnostics.push(Diagnostic::new(
            Code::RecursiveStruct,
            first.1.range,
            message,
        ));
    }
    diagnostics
}

fn constant_cycles(file: &ast::SourceFile) -> Vec<Diagnostic> {
    let constants: BTreeMap<&str, &ast::Const> = file
        .items
        .iter()
        .filter_map(|item| match item {
            ast::Item::Const(c) => Some((c.name.as_ref()?.text.as_str(), c)),
            _ => None,
        })
        .collect();
    let mut graph: BTreeMap<&str, Vec<Edge>> = BTreeMap::new();
    for (&name, c) in &constants {
        let edges = graph.entry(name).or_default();
        for expr in c.value.descendants() {
            if let Some(used) = expr.as_name() {
                // A constant that reads itself directly is the name
                // checker's to report.
                if used != name && constants.contains_key(used) {
                    edges.push(Edge {
                        to: used,
                        via: used,
                        range: expr.range,
                    });
                }
            }
        }
    }
    let mut diagnostics = Vec::new();
    for &name in constants.keys() {
        let Some(path) = path_back(&graph, name) else {
            continue;
        };
        let through: Vec<String> = path[..path.len() - 1]
            .iter()
            .map(|(_, e)| format!("`{}`", e.to))
            .collect();
        diagnostics.push(Diagnostic::new(
            Code::CyclicConstant,
            path[0].1.range,
            format!(
                "`{name}` is defined in terms of itself through {}, so it has no value",
                through.join(" and ")
            ),
        ));
    }
    diagnostics
}

/// The shortest path from `start` back to `start`, each step with the
/// definition it leaves (breadth-first with an explicit queue: the graph
/// is the user's, so no recursion).
fn path_back<'a, 'g>(
    graph: &'g BTreeMap<&'a str, Vec<Edge<'a>>>,
    start: &'a str,
) -> Option<Vec<(&'a str, &'g Edge<'a>)>> {
    let mut came_by: BTreeMap<&str, (&'a str, &'g Edge<'a>)> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        for edge in graph.get(node).into_iter().flatten() {
            if edge.to == start {
                let mut path = vec![(node, edge)];
                let mut at = node;
                while at != start {
                    let step = came_by[at];
                    path.push(step);
                    at = step.0;
                }
                path.reverse();
                return Some(path);
            }
            if !came_by.contains_key(edge.to) {
                came_by.insert(edge.to, (node, edge));
                queue.push_back(edge.to);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(source: &str) -> Vec<(String, String)> {
        let file = tensorfit_syntax::parse(source).file;
        definition_cycles(&file)
            .into_iter()
            .map(|d| (d.code.as_str().to_owned(), d.message))
            .collect()
    }

    #[test]
    fn a_struct_that_builds_itself() {
        assert_eq!(
            messages("struct A {\n  inner = A()\n}\n"),
            [(
                "recursive-struct".to_owned(),
                "`A` contains itself through `inner`: an instance would never be complete"
                    .to_owned()
            )]
        );
    }

    #[test]
    fn structs_that_build_each_other() {
        let found = messages("struct A {\n  b = Sequential(B())\n}\nstruct B {\n  a = A()\n}\n");
        assert_eq!(
            found.iter().map(|(_, m)| m.as_str()).collect::<Vec<_>>(),
            [
                "`A` contains itself through `b` (`A.b` builds `B`, `B.a` builds `A`): an instance would never be complete",
                "`B` contains itself through `a` (`B.a` builds `A`, `A.b` builds `B`): an instance would never be complete",
            ]
        );
    }

    #[test]
    fn structs_that_only_use_others_are_fine() {
        assert!(
            messages("struct A {\n  b = B()\n}\nstruct B {\n  c = Linear(2, 3)\n}\n").is_empty()
        );
        // A parameter of the same name is no constructor call.
        assert!(messages("struct A(A: Int) {\n  b = A()\n}\n").is_empty());
    }

    #[test]
    fn constants_through_each_other() {
        let found = messages("const a = b + 1\nconst b = c * 2\nconst c = a\nconst d = a\n");
        assert_eq!(found.len(), 3, "{found:?}");
        assert_eq!(
            found[0].1,
            "`a` is defined in terms of itself through `b` and `c`, so it has no value"
        );
    }
}
