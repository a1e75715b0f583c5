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

/// Definitions by name, each with the definitions it uses.
type Graph<'a> = BTreeMap<&'a str, Vec<Edge<'a>>>;

/// A path of a definition back to itself: each step with the definition
/// it leaves.
type Cycle<'a, 'g> = Vec<(&'a str, &'g Edge<'a>)>;

/// The diagnostics of the file's definition cycles (the caller sorts them
/// by position).
pub fn definition_cycles(file: &ast::SourceFile) -> Vec<Diagnostic> {
    let structs = struct_graph(file);
    let constants = constant_graph(file);
    let struct_cycles = cycles(&structs).map(|(name, path)| {
        let mut message = format!("`{name}` contains itself through `{}`", path[0].1.via);
        if path.len() > 1 {
            let steps: Vec<String> = path
                .iter()
                .map(|(from, edge)| format!("`{from}.{}` builds `{}`", edge.via, edge.to))
                .collect();
            message.push_str(&format!(" ({})", steps.join(", ")));
        }
        message.push_str(": an instance would never be complete");
        Diagnostic::new(Code::RecursiveStruct, path[0].1.range, message)
    });
    let constant_cycles = cycles(&constants).map(|(name, path)| {
        let through: Vec<String> = path[..path.len() - 1]
            .iter()
            .map(|(_, edge)| format!("`{}`", edge.to))
            .collect();
        let message = format!(
            "`{name}` is defined in terms of itself through {}, so it has no value",
            through.join(" and ")
        );
        Diagnostic::new(Code::CyclicConstant, path[0].1.range, message)
    });
    struct_cycles.chain(constant_cycles).collect()
}

/// Each definition of `graph` that reaches itself, with its shortest cycle.
fn cycles<'a, 'g>(graph: &'g Graph<'a>) -> impl Iterator<Item = (&'a str, Cycle<'a, 'g>)> + 'g {
    graph
        .keys()
        .filter_map(|&name| Some((name, path_back(graph, name)?)))
}

/// Structs and the structs their field initialisers construct.
fn struct_graph<'a>(file: &'a ast::SourceFile) -> Graph<'a> {
    let structs: BTreeMap<&str, &ast::Struct> = file
        .items
        .iter()
        .filter_map(|item| match item {
            ast::Item::Struct(s) => Some((s.name.as_ref()?.text.as_str(), s)),
            _ => None,
        })
        .collect();
    let edges = |s: &'a ast::Struct| -> Vec<Edge<'a>> {
        // A parameter of the same name is no constructor call.
        let params: BTreeSet<&str> = s
            .params
            .iter()
            .flatten()
            .map(|p| p.name.text.as_str())
            .collect();
        let mut edges = Vec::new();
        for field in &s.fields {
            for expr in field.value.descendants() {
                let ExprKind::Call { callee, .. } = &expr.kind else {
                    continue;
                };
                match callee.as_name() {
                    Some(to) if structs.contains_key(to) && !params.contains(to) => {
                        edges.push(Edge {
                            to,
                            via: &field.name.text,
                            range: expr.range,
                        })
                    }
                    _ => {}
                }
            }
        }
        edges
    };
    structs.iter().map(|(&name, &s)| (name, edges(s))).collect()
}

/// Constants and the other constants their values read (a constant that
/// reads itself directly is the name checker's to report).
fn constant_graph<'a>(file: &'a ast::SourceFile) -> Graph<'a> {
    let constants: BTreeMap<&str, &ast::Const> = file
        .items
        .iter()
        .filter_map(|item| match item {
            ast::Item::Const(c) => Some((c.name.as_ref()?.text.as_str(), c)),
            _ => None,
        })
        .collect();
    let edges = |name: &str, c: &'a ast::Const| -> Vec<Edge<'a>> {
        c.value
            .descendants()
            .filter_map(|expr| {
                let to = expr
                    .as_name()
                    .filter(|used| *used != name && constants.contains_key(used))?;
                Some(Edge {
                    to,
                    via: to,
                    range: expr.range,
                })
            })
            .collect()
    };
    constants
        .iter()
        .map(|(&name, &c)| (name, edges(name, c)))
        .collect()
}

/// The shortest path from `start` back to `start`, each step with the
/// definition it leaves (breadth-first with an explicit queue: the graph
/// is the user's, so no recursion).
fn path_back<'a, 'g>(graph: &'g Graph<'a>, start: &'a str) -> Option<Cycle<'a, 'g>> {
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
