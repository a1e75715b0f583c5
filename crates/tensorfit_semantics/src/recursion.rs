//! Functions that call each other, found from the text before any of them
//! is analysed.
//!
//! A call of a function from inside its own analysis has an unknown result
//! (the summary is being made). For mutual recursion that rule alone made
//! the answer depend on the order of declarations: the function analysed
//! first saw the other's summary (made while it was itself unknown), the
//! other saw nothing, and each order reported a different error. Items are
//! order-independent (LANGUAGE.md §3), so the functions of a cycle of the
//! call graph — a strongly connected component with an edge inside it —
//! see every call among them as unknown, whichever is analysed first, as
//! a function sees a call of itself.
//!
//! The call graph is read from the bodies: `f(...)` of a function of the
//! file, `self.m(...)` of a method of the same struct, and `x.m(...)` of a
//! method `m` of any struct of the file (the receiver's type is not known
//! here; an edge too many only makes a cycle more likely, which costs
//! precision, never an error). Such a call is an edge to one node standing
//! for every method `m` (a *method node*), which has an edge to each: the
//! same paths as an edge to every `m`, but n classes whose `forward` calls
//! `super().forward(x)` make 2n edges, not n² (a search from each of them
//! read n² edges, n³ in all). Calling a struct instance (`self.block(x)`,
//! its `forward`) is not followed: those calls rarely recurse, and
//! following every one would put a model and its blocks in one cycle.

use std::collections::{BTreeMap, HashMap, HashSet};

use tensorfit_syntax::ast::{self, ExprKind, FieldName};

/// The cycles of a file's call graph: each function in one, with the
/// members of its cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecursiveGroups {
    /// Function key to the sorted keys of its cycle.
    groups: BTreeMap<String, Vec<String>>,
}

impl RecursiveGroups {
    /// The cycles among `functions` (keys, `Struct.method` for methods,
    /// with their definitions including bodies).
    pub fn new<'a>(functions: impl IntoIterator<Item = (String, &'a ast::Function)>) -> Self {
        let functions: Vec<(String, &ast::Function)> = functions.into_iter().collect();
        let index: HashMap<&str, usize> = functions
            .iter()
            .enumerate()
            .map(|(i, (key, _))| (key.as_str(), i))
            .collect();
        let targets = CallTargets::new(functions.iter().map(|(key, _)| key.clone()));
        // The method nodes come after the functions.
        let method_nodes: Vec<&String> = targets.methods.keys().collect();
        let method_index: HashMap<&str, usize> = method_nodes
            .iter()
            .enumerate()
            .map(|(at, name)| (name.as_str(), functions.len() + at))
            .collect();
        let node_of = |callee: &str| match method_node_name(callee) {
            Some(name) => method_index.get(name).copied(),
            None => index.get(callee).copied(),
        };
        let mut edges: Vec<Vec<usize>> = functions
            .iter()
            .map(|(key, function)| {
                let mut out: Vec<usize> = targets
                    .calls_in(key, function)
                    .iter()
                    .filter_map(|callee| node_of(callee))
                    .collect();
                out.sort_unstable();
                out.dedup();
                out
            })
            .collect();
        for name in &method_nodes {
            let out = targets.methods[name.as_str()]
                .iter()
                .filter_map(|key| index.get(key.as_str()).copied())
                .collect();
            edges.push(out);
        }
        let mut groups = BTreeMap::new();
        for component in strongly_connected(&edges) {
            let component: Vec<usize> = component
                .into_iter()
                .filter(|i| *i < functions.len())
                .collect();
            // A function is in a cycle with others, or calls itself
            // (directly, or through a method node: `x.m()` inside `m`).
            let cycle = match component.as_slice() {
                [] => false,
                [only] => {
                    edges[*only].contains(only)
                        || calls_itself_through_a_method(&edges, *only, functions.len())
                }
                _ => true,
            };
            if !cycle {
                continue;
            }
            let mut members: Vec<String> =
                component.iter().map(|i| functions[*i].0.clone()).collect();
            members.sort();
            for member in &members {
                groups.insert(member.clone(), members.clone());
            }
        }
        RecursiveGroups { groups }
    }

    /// The cycles among the functions and methods of `file` (with bodies).
    pub fn of_file(file: &ast::SourceFile) -> Self {
        let mut functions = Vec::new();
        for item in &file.items {
            match item {
                ast::Item::Function(f) if !f.is_extern => {
                    if let Some(name) = &f.name {
                        functions.push((name.text.clone(), f));
                    }
                }
                ast::Item::Struct(s) => {
                    let Some(owner) = &s.name else { continue };
                    for m in &s.methods {
                        if let Some(name) = &m.name {
                            functions.push((format!("{}.{}", owner.text, name.text), m));
                        }
                    }
                }
                _ => {}
            }
        }
        RecursiveGroups::new(functions)
    }

    /// The members of `key`'s cycle (itself included); empty when it is in
    /// none.
    pub fn group(&self, key: &str) -> &[String] {
        self.groups.get(key).map_or(&[], Vec::as_slice)
    }

    /// How the analysis of `root` sees the functions of its cycle: for its
    /// own analysis (`base` false), each other member through its base
    /// summary and itself as unknown; for its base summary, all of them as
    /// unknown.
    pub fn view<'g>(&'g self, root: &'g str, base: bool) -> CycleView<'g> {
        CycleView {
            root,
            cycle: self.group(root),
            base,
        }
    }
}

/// The functions and methods of a file by key, which the calls in a body
/// are read against (see the module's docs for which calls count).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallTargets {
    keys: HashSet<String>,
    /// Method keys by the method's own name, for `x.m(...)`.
    methods: HashMap<String, Vec<String>>,
}

/// The key of the method node for methods named `name`: no function's key
/// starts with `*`.
fn method_node(name: &str) -> String {
    format!("*.{name}")
}

/// The method name a method node stands for; `None` for a function's key.
fn method_node_name(key: &str) -> Option<&str> {
    key.strip_prefix("*.")
}

/// Whether `node` reaches itself through a method node it calls.
fn calls_itself_through_a_method(edges: &[Vec<usize>], node: usize, functions: usize) -> bool {
    edges[node]
        .iter()
        .any(|callee| *callee >= functions && edges[*callee].contains(&node))
}

impl CallTargets {
    /// The functions a method node stands for; `None` for a function's
    /// own key.
    pub fn method_node_targets(&self, key: &str) -> Option<&[String]> {
        let name = method_node_name(key)?;
        Some(self.methods.get(name).map_or(&[], Vec::as_slice))
    }

    pub fn new(keys: impl IntoIterator<Item = String>) -> Self {
        let mut targets = CallTargets::default();
        for key in keys {
            if let Some((_, method)) = key.split_once('.') {
                targets
                    .methods
                    .entry(method.to_owned())
                    .or_default()
                    .push(key.clone());
            }
            targets.keys.insert(key);
        }
        targets
    }

    /// The keys the body of `function` (keyed `key`) calls, sorted, each
    /// once.
    pub fn calls_in(&self, key: &str, function: &ast::Function) -> Vec<String> {
        let owner = key.split_once('.').map(|(owner, _)| owner);
        let mut out = Vec::new();
        let mut add = |callee: &str| {
            if self.keys.contains(callee) || method_node_name(callee).is_some() {
                out.push(callee.to_owned());
            }
        };
        for expr in body_expressions(function) {
            for inner in expr.descendants() {
                let ExprKind::Call { callee, .. } = &inner.kind else {
                    continue;
                };
                match &callee.kind {
                    ExprKind::Name(name) => add(name),
                    ExprKind::Field {
                        value,
                        field: FieldName::Named(method),
                    } => match (&value.kind, owner) {
                        (ExprKind::SelfValue, Some(owner)) => {
                            add(&format!("{owner}.{}", method.text))
                        }
                        (ExprKind::SelfValue, None) => {}
                        _ => {
                            if self.methods.contains_key(method.text.as_str()) {
                                add(&method_node(&method.text));
                            }
                        }
                    },
                    _ => {}
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// The members of `root`'s cycle of calls, sorted (empty when it is in
/// none), found from the functions `root` reaches alone (a cycle through
/// it holds nothing else), `calls` giving the keys each one calls (as
/// [`CallTargets::calls_in`], method nodes among them, which `targets`
/// expands): an analysis of an imported function reads the bodies it may
/// call, not every body of its file.
pub fn cycle_of(
    root: &str,
    targets: &CallTargets,
    calls: &mut dyn FnMut(&str) -> Vec<String>,
) -> Vec<String> {
    let mut keys: Vec<String> = vec![root.to_owned()];
    let mut index: HashMap<String, usize> = HashMap::from([(root.to_owned(), 0)]);
    let mut edges: Vec<Vec<usize>> = Vec::new();
    while edges.len() < keys.len() {
        let key = &keys[edges.len()];
        let callees = match targets.method_node_targets(key) {
            Some(methods) => methods.to_vec(),
            None => calls(key),
        };
        let mut out = Vec::new();
        for callee in callees {
            let at = *index.entry(callee.clone()).or_insert_with(|| {
                keys.push(callee);
                keys.len() - 1
            });
            out.push(at);
        }
        edges.push(out);
    }
    let Some(component) = strongly_connected(&edges)
        .into_iter()
        .find(|component| component.contains(&0))
    else {
        return Vec::new();
    };
    if component.len() == 1 && !edges[0].contains(&0) {
        return Vec::new();
    }
    let mut members: Vec<String> = component
        .iter()
        .map(|i| keys[*i].clone())
        .filter(|key| method_node_name(key).is_none())
        .collect();
    members.sort();
    members
}

/// What one analysis sees of the functions of its own cycle of calls.
#[derive(Clone, Copy, Debug)]
pub struct CycleView<'g> {
    root: &'g str,
    cycle: &'g [String],
    base: bool,
}

/// What a call of a function gives an analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CalleeSummary {
    /// The callee's own summary (it is outside the caller's cycle).
    Own,
    /// The callee's base summary (made with its cycle unknown).
    Base,
    /// None: the result is unknown.
    Unknown,
}

impl<'g> CycleView<'g> {
    /// How the analysis of `root` sees the members of its `cycle` (see
    /// [`RecursiveGroups::view`]).
    pub fn of_cycle(root: &'g str, cycle: &'g [String], base: bool) -> Self {
        CycleView { root, cycle, base }
    }
}

impl CycleView<'_> {
    /// No cycle: every callee gives its own summary (the script).
    pub const NONE: CycleView<'static> = CycleView {
        root: "",
        cycle: &[],
        base: false,
    };

    pub fn callee(&self, key: &str) -> CalleeSummary {
        if !self.cycle.iter().any(|member| member == key) {
            CalleeSummary::Own
        } else if self.base || key == self.root {
            CalleeSummary::Unknown
        } else {
            CalleeSummary::Base
        }
    }
}

/// The expressions of a body, at any depth of its statements.
fn body_expressions(function: &ast::Function) -> Vec<&ast::Expr> {
    let mut exprs = Vec::new();
    let mut stack: Vec<&ast::Stmt> = function.body.iter().flat_map(|b| &b.stmts).collect();
    while let Some(stmt) = stack.pop() {
        exprs.extend(stmt.exprs());
        stack.extend(stmt.nested());
    }
    exprs
}

/// Tarjan's strongly connected components of a graph given as adjacency
/// lists, iteratively (a call chain may be thousands deep).
fn strongly_connected(edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
    const UNSEEN: usize = usize::MAX;
    let n = edges.len();
    let mut order = vec![UNSEEN; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut components = Vec::new();
    let mut counter = 0;
    for root in 0..n {
        if order[root] != UNSEEN {
            continue;
        }
        // (node, index of its next edge to follow)
        let mut work = vec![(root, 0)];
        order[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (node, ref mut next)) = work.last_mut() {
            if let Some(&to) = edges[node].get(*next) {
                *next += 1;
                if order[to] == UNSEEN {
                    order[to] = counter;
                    low[to] = counter;
                    counter += 1;
                    stack.push(to);
                    on_stack[to] = true;
                    work.push((to, 0));
                } else if on_stack[to] {
                    low[node] = low[node].min(order[to]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[node]);
            }
            if low[node] == order[node] {
                let mut component = Vec::new();
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    component.push(member);
                    if member == node {
                        break;
                    }
                }
                components.push(component);
            }
        }
    }
    components
}

#[cfg(test)]
mod tests {
    use super::*;

    fn groups(source: &str) -> RecursiveGroups {
        let parse = tensorfit_syntax::parse(source);
        RecursiveGroups::of_file(&parse.file)
    }

    #[test]
    fn mutual_recursion_self_recursion_and_plain_calls() {
        let found = groups(
            "fn f(x: Tensor) -> Tensor { if x.rank > 1 { return g(x) }\n return x }\n\
             fn g(x: Tensor) -> Tensor { return f(x) }\n\
             fn h(x: Tensor) -> Tensor { return h(f(x)) }\n\
             fn leaf(x: Tensor) -> Tensor { return x }\n\
             fn user(x: Tensor) -> Tensor { return leaf(f(x)) }\n",
        );
        assert_eq!(found.group("f"), ["f", "g"]);
        assert_eq!(found.group("g"), ["f", "g"]);
        assert_eq!(found.group("h"), ["h"]);
        assert!(found.group("leaf").is_empty());
        assert!(found.group("user").is_empty());
    }

    /// The cycle found from what a function reaches is its group.
    #[test]
    fn a_cycle_found_from_its_root_is_its_group() {
        let source = "fn f(x: Tensor) -> Tensor { if x.rank > 1 { return g(x) }\n return x }\n\
             fn g(x: Tensor) -> Tensor { return k(f(x)) }\n\
             fn k(x: Tensor) -> Tensor { return x }\n\
             fn h(x: Tensor) -> Tensor { return h(f(x)) }\n\
             struct A() {\n fn up(self, x: Tensor) -> Tensor { return self.down(x) }\n\
             fn down(self, x: Tensor) -> Tensor { return self.up(x) }\n\
             fn forward(self, x: Tensor) -> Tensor { return self.up(x) }\n}\n";
        let parse = tensorfit_syntax::parse(source);
        let found = RecursiveGroups::of_file(&parse.file);
        let mut functions: HashMap<String, ast::Function> = HashMap::new();
        for item in &parse.file.items {
            match item {
                ast::Item::Function(f) => {
                    functions.insert(f.name.as_ref().unwrap().text.clone(), f.clone());
                }
                ast::Item::Struct(s) => {
                    for m in &s.methods {
                        let key = format!("A.{}", m.name.as_ref().unwrap().text);
                        functions.insert(key, m.clone());
                    }
                }
                _ => {}
            }
        }
        let targets = CallTargets::new(functions.keys().cloned());
        let mut read = Vec::new();
        for root in ["f", "g", "k", "h", "A.up", "A.down", "A.forward"] {
            let cycle = cycle_of(root, &targets, &mut |key| {
                read.push(key.to_owned());
                targets.calls_in(key, &functions[key])
            });
            assert_eq!(cycle, found.group(root), "{root}");
        }
        // `k` calls nothing: only its own body is read.
        read.clear();
        cycle_of("k", &targets, &mut |key| {
            read.push(key.to_owned());
            targets.calls_in(key, &functions[key])
        });
        assert_eq!(read, ["k"]);
    }

    #[test]
    fn methods_through_self_and_instance_calls() {
        let found = groups(
            "struct A() {\n fn up(self, x: Tensor) -> Tensor { return self.down(x) }\n\
             fn down(self, x: Tensor) -> Tensor { return self.up(x) }\n\
             fn forward(self, x: Tensor) -> Tensor { return self.up(x) }\n}\n\
             struct B() {\n fn forward(self, x: Tensor) -> Tensor { return x }\n}\n",
        );
        assert_eq!(found.group("A.up"), ["A.down", "A.up"]);
        assert!(found.group("A.forward").is_empty());
        assert!(found.group("B.forward").is_empty());
    }

    #[test]
    fn a_long_chain_is_no_cycle_and_a_long_cycle_is_one() {
        let mut chain = String::new();
        for i in 0..5_000 {
            chain.push_str(&format!(
                "fn f{i}(x: Tensor) -> Tensor {{ return f{}(x) }}\n",
                i + 1
            ));
        }
        chain.push_str("fn f5000(x: Tensor) -> Tensor { return x }\n");
        assert!(groups(&chain).group("f0").is_empty());
        let closed = chain.replace(
            "fn f5000(x: Tensor) -> Tensor { return x }",
            "fn f5000(x: Tensor) -> Tensor { return f0(x) }",
        );
        assert_eq!(groups(&closed).group("f2500").len(), 5_001);
    }
}
