//! Which names of a scope a statement, or a function defined in the
//! scope, may change in place, read from the syntax alone.
//!
//! The lowering follows what a statement does to the locals it names, in
//! order. Two things escape that order: a body it does not check (a `try`,
//! a `with` that catches errors), and a function defined inside the scope
//! that changes a name of the scope (a closure appending to a list of its
//! caller, `nonlocal n; n += 1`, a module function filling a module-level
//! registry): it may run at any later call, even one the analysis does not
//! see (a hook, a decorator, a test's monkeypatch). What either may change
//! is unknown rather than stale.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use tree_sitter::Node;

use crate::lower::syntax::{
    child_by_field, descendants, descendants_with_parents, each_named_child, named_children,
    text_of,
};

/// What counts as a change of the name at the root of an expression.
#[derive(Clone, Copy)]
pub(crate) struct Changes {
    /// Which methods called on it change it.
    pub methods: Methods,
    /// Being passed to a call as an argument (the callee may change it).
    pub arguments: bool,
}

/// Which methods called on a value may change it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Methods {
    /// Any method (of an object whose type is not known).
    Any,
    /// Those that change a container or a module in place, and PyTorch's
    /// changes in place (a trailing underscore: `add_`, `unsqueeze_`).
    Changing,
    /// Those that change a container's items or a tensor's shape: a
    /// tensor's items are not followed through names (`add_` leaves its
    /// shape as it is; `crate::tensor_changes`).
    ChangingParts,
}

/// Every change the lowering cannot follow: any method, any argument.
pub(crate) const ANY_CHANGE: Changes = Changes {
    methods: Methods::Any,
    arguments: true,
};

/// What changes a value shared by two names (`inner = cfg.model`): the
/// other name then holds a changed value. Arguments are not counted: a
/// tensor passed to a layer (`identity = x; out = self.conv1(x)`) is
/// read, and counting them would make every such alias unknown.
pub(crate) const SHARED_VALUE_CHANGES: Changes = Changes {
    methods: Methods::ChangingParts,
    arguments: false,
};

/// What a closure may do to its caller's locals: call a changing method
/// on one, or hand one to a call that may change it (`fill(calls)`).
pub(crate) const CLOSURE_CHANGES: Changes = Changes {
    methods: Methods::Changing,
    arguments: true,
};

/// What a module's functions may do to the script's names: call a
/// changing method on one (`REGISTRY.update(...)`). Arguments are not
/// counted: module-level names passed to a call in a function are
/// overwhelmingly read (`nn.Linear(HIDDEN, 10)`, `build(CFG)`), and each
/// would make a value the script uses unknown.
pub(crate) const MODULE_FUNCTION_CHANGES: Changes = Changes {
    methods: Methods::Changing,
    arguments: false,
};

/// Methods that change a set or a module in place, beside the list and
/// dict methods the lowering knows (`lower::containers::IN_PLACE_METHODS`).
const MORE_CHANGING_METHODS: &[&str] = &[
    "add",
    "discard",
    "register_buffer",
    "register_parameter",
    "load_state_dict",
];

/// Methods that change their receiver in place (a list, a dict, a set or
/// a module).
fn is_changing_method(method: &str) -> bool {
    crate::lower::IN_PLACE_METHODS.contains(&method) || MORE_CHANGING_METHODS.contains(&method)
}

/// Whether `x.method(...)` may change `x`, as `methods` counts.
fn changes_receiver(method: &str, methods: Methods) -> bool {
    let in_place = method.len() > 1 && method.ends_with('_') && !method.starts_with('_');
    match methods {
        Methods::Any => true,
        Methods::Changing => is_changing_method(method) || in_place,
        Methods::ChangingParts => {
            is_changing_method(method) || crate::tensor_changes::changes_shape_in_place(method)
        }
    }
}

/// The path of an expression made of a name, attributes and items
/// (`cfg.model.layers[0]` is `cfg`, `model`, `layers`, `[]`: every item
/// alike), or `None` for anything else (a call's result, a slice).
fn path_of(node: Node<'_>, text: &str) -> Option<Vec<String>> {
    match node.kind() {
        "identifier" => Some(vec![text_of(node, text).to_owned()]),
        "attribute" => {
            let mut path = path_of(child_by_field(node, "object")?, text)?;
            path.push(text_of(child_by_field(node, "attribute")?, text).to_owned());
            Some(path)
        }
        // A slice is a new list or `nn.Sequential` (or a view of a tensor,
        // whose shape no change in place reaches): no path of its own.
        "subscript" if named_children(node).iter().any(|n| n.kind() == "slice") => None,
        "subscript" => {
            let mut path = path_of(child_by_field(node, "value")?, text)?;
            path.push("[]".to_owned());
            Some(path)
        }
        _ => None,
    }
}

/// The targets a statement assigns or deletes, alone or in a tuple of
/// targets (`a.x, b.y = 1, 2`, `del d["k"]`), by node id.
fn note_targets(statement: Node<'_>, targets: &mut HashSet<usize>) {
    let mut stack: Vec<Node<'_>> = match statement.kind() {
        "assignment" | "augmented_assignment" | "for_statement" => {
            child_by_field(statement, "left").into_iter().collect()
        }
        "delete_statement" => named_children(statement),
        _ => return,
    };
    while let Some(target) = stack.pop() {
        targets.insert(target.id());
        if matches!(
            target.kind(),
            "pattern_list"
                | "expression_list"
                | "tuple_pattern"
                | "list_pattern"
                | "tuple"
                | "list"
                | "parenthesized_expression"
        ) {
            stack.extend(named_children(target));
        }
    }
}

/// The paths of the values `node` may change in place, as `changes`
/// counts: the object whose item or attribute is assigned or deleted
/// (`cfg.model` for `cfg.model.size = 4`), the object a changing method
/// is called on (`d` for `d.setdefault(...)`), an argument of a call.
pub(crate) fn objects_changed_by(node: Node<'_>, text: &str, changes: Changes) -> Vec<Vec<String>> {
    let mut found = ChangedObjects::new(changes);
    found.visit_subtree(node, text);
    found.paths
}

/// [`objects_changed_by`] as a walk meets the nodes: each node is
/// visited after its parent (a walk of its own, or one that reads more).
pub(crate) struct ChangedObjects {
    changes: Changes,
    /// The targets of the statements met, by node id: each target is
    /// marked from its statement rather than found by walking up
    /// (tree-sitter's `parent` is linear in the depth).
    targets: HashSet<usize>,
    /// The paths found, each once, in order.
    pub paths: Vec<Vec<String>>,
    /// Whether a `nonlocal` or `global` statement was met.
    pub declarations: bool,
}

impl ChangedObjects {
    pub(crate) fn new(changes: Changes) -> Self {
        ChangedObjects {
            changes,
            targets: HashSet::new(),
            paths: Vec::new(),
            declarations: false,
        }
    }

    /// Visits `node` (as the walk's root, with no parent) and everything
    /// below it.
    pub(crate) fn visit_subtree(&mut self, node: Node<'_>, text: &str) {
        self.visit(node, None, text);
        for placed in descendants_with_parents(node) {
            self.visit(placed.node, Some(placed.parent), text);
        }
    }

    /// [`Self::visit_subtree`], but not below the nodes `skip` picks (the
    /// bodies of functions already walked), which it returns.
    pub(crate) fn visit_subtree_except<'t>(
        &mut self,
        root: Node<'t>,
        text: &str,
        skip: &dyn Fn(Node<'_>) -> bool,
    ) -> Vec<Node<'t>> {
        let mut skipped = Vec::new();
        self.visit(root, None, text);
        let mut cursor = root.walk();
        let mut stack: Vec<(Node<'t>, Node<'t>)> = Vec::new();
        crate::lower::syntax::each_named_child(&mut cursor, root, |child| {
            stack.push((child, root))
        });
        while let Some((node, parent)) = stack.pop() {
            if skip(node) {
                skipped.push(node);
                continue;
            }
            self.visit(node, Some(parent), text);
            crate::lower::syntax::each_named_child(&mut cursor, node, |child| {
                stack.push((child, node))
            });
        }
        skipped
    }

    /// Takes in what a walk of a part of the same subtree found.
    fn take_in(&mut self, other: &ChangedObjects) {
        for path in &other.paths {
            if !self.paths.contains(path) {
                self.paths.push(path.clone());
            }
        }
        self.declarations |= other.declarations;
    }

    /// Visits one node; `parent` is `None` for the walk's root.
    pub(crate) fn visit(&mut self, node: Node<'_>, parent: Option<Node<'_>>, text: &str) {
        note_targets(node, &mut self.targets);
        let changes = self.changes;
        if matches!(node.kind(), "nonlocal_statement" | "global_statement") {
            self.declarations = true;
        }
        let parent_kind = parent.map(|p| p.kind()).unwrap_or_default();
        let object = || match node.kind() {
            "attribute" => child_by_field(node, "object"),
            "subscript" => child_by_field(node, "value"),
            _ => None,
        };
        let method_called = node.kind() == "attribute"
            && parent
                .is_some_and(|p| p.kind() == "call" && child_by_field(p, "function") == Some(node))
            && child_by_field(node, "attribute")
                .is_some_and(|m| changes_receiver(text_of(m, text), changes.methods));
        let keyword_name = parent_kind == "keyword_argument"
            && parent.and_then(|p| child_by_field(p, "name")) == Some(node);
        let passed = changes.arguments
            && matches!(node.kind(), "identifier" | "attribute" | "subscript")
            && matches!(parent_kind, "argument_list" | "keyword_argument")
            && !keyword_name;
        let changed = if method_called
            || (matches!(node.kind(), "attribute" | "subscript")
                && self.targets.contains(&node.id()))
        {
            object()
        } else if passed {
            Some(node)
        } else {
            None
        };
        if let Some(path) = changed.and_then(|changed| path_of(changed, text)) {
            if !self.paths.contains(&path) {
                self.paths.push(path);
            }
        }
    }
}

/// The names at the root of what `node` may change in place
/// ([`objects_changed_by`]), in order of first change.
pub(crate) fn roots_changed_by(node: Node<'_>, text: &str, changes: Changes) -> Vec<String> {
    roots_of(objects_changed_by(node, text, changes))
}

/// The names at the root of `paths`, in order of first change.
fn roots_of(paths: Vec<Vec<String>>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for mut path in paths {
        let root = path.swap_remove(0);
        if !names.contains(&root) {
            names.push(root);
        }
    }
    names
}

/// The names of the scope around them that the functions and lambdas
/// defined below `scope` (at any depth) may change when they run, each
/// with the function that does (the first found): changed in place as
/// `changes` counts, or assigned after `nonlocal`/`global`.
pub(crate) fn changed_by_inner_functions(
    scope: Node<'_>,
    text: &str,
    changes: Changes,
) -> BTreeMap<String, String> {
    let functions = descendants(scope)
        .filter(|n| *n != scope && matches!(n.kind(), "function_definition" | "lambda"));
    changed_by_functions(functions, text, changes)
}

/// What the functions and lambdas defined below `scope` may change of it
/// ([`CLOSURE_CHANGES`]), each name with why, and those of them they
/// change only by passing them to calls ([`MODULE_FUNCTION_CHANGES`] does
/// not count those): a call can change a list, dict or object in place,
/// never a number or string.
pub(crate) fn changed_by_closures(
    scope: Node<'_>,
    text: &str,
) -> (BTreeMap<String, String>, BTreeSet<String>) {
    let changed = changed_by_inner_functions(scope, text, CLOSURE_CHANGES);
    // Most scopes have nothing changed: no second walk.
    let only_passed = match changed.is_empty() {
        true => BTreeSet::new(),
        false => {
            let otherwise = changed_by_inner_functions(scope, text, MODULE_FUNCTION_CHANGES);
            changed
                .keys()
                .filter(|name| !otherwise.contains_key(*name))
                .cloned()
                .collect()
        }
    };
    (with_why(changed), only_passed)
}

/// [`changed_by_inner_functions`] of the functions and lambdas of a scope
/// already found (in the order of `descendants`: the module context finds
/// them in the walk it makes anyway).
pub(crate) fn changed_by_functions<'t>(
    functions: impl IntoIterator<Item = Node<'t>>,
    text: &str,
    changes: Changes,
) -> BTreeMap<String, String> {
    let functions: Vec<Node<'t>> = functions.into_iter().collect();
    // What each body changes, innermost first: a body takes in what the
    // bodies of the functions inside it found instead of walking them
    // again (lambdas nested 5,000 deep were 12.5 million visits). A
    // function inside that is not in the list is walked into.
    let mut found_in: HashMap<usize, ChangedObjects> = HashMap::new();
    for function in functions.iter().rev() {
        let Some(body) = child_by_field(*function, "body") else {
            continue;
        };
        let mut found = ChangedObjects::new(changes);
        let inner =
            found.visit_subtree_except(body, text, &|node| found_in.contains_key(&node.id()));
        for inner_body in inner {
            if let Some(inner_found) = found_in.get(&inner_body.id()) {
                found.take_in(inner_found);
            }
        }
        found_in.insert(body.id(), found);
    }
    let mut changed = BTreeMap::new();
    for function in functions {
        let Some(body) = child_by_field(function, "body") else {
            continue;
        };
        let who = match child_by_field(function, "name") {
            Some(name) => format!("`{}`", text_of(name, text)),
            None => "a lambda".to_owned(),
        };
        let Some(found) = found_in.remove(&body.id()) else {
            continue;
        };
        // Which declarations are the function's own (not those of a
        // function inside it) takes another walk: only where there are
        // any.
        let declared: BTreeSet<String> = match found.declarations {
            true => own_statements(body)
                .filter(|n| matches!(n.kind(), "nonlocal_statement" | "global_statement"))
                .flat_map(named_children)
                .map(|name| text_of(name, text).to_owned())
                .collect(),
            false => BTreeSet::new(),
        };
        let roots = roots_of(found.paths);
        // What the function's own names are matters only for what it
        // changes or declares (finding them is another walk of its body).
        if roots.is_empty() && declared.is_empty() {
            continue;
        }
        let mut own = parameter_names(function, text);
        let assigned = match body.kind() {
            "block" => crate::lower::locals::locals_of(body, text, &[]).all,
            _ => BTreeSet::new(),
        };
        own.extend(assigned.iter().cloned());
        let by_declaration = declared.iter().filter(|name| assigned.contains(*name));
        let in_place = roots
            .into_iter()
            .filter(|name| !own.contains(name) || declared.contains(name));
        for name in by_declaration.cloned().chain(in_place) {
            changed.entry(name).or_insert_with(|| who.clone());
        }
    }
    changed
}

/// Each name a function changes, with why: unknown wherever the scope
/// reads them, as the function may run at any call.
pub(crate) fn with_why(changed: BTreeMap<String, String>) -> BTreeMap<String, String> {
    changed
        .into_iter()
        .map(|(name, function)| {
            let why = format!("`{name}` may be changed by {function}, whenever that runs");
            (name, why)
        })
        .collect()
}

/// A name that holds a value another name holds too: `inner =
/// cfg.model`, or `for block in blocks` (an item of `blocks`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Alias {
    name: String,
    source: Vec<String>,
    /// The statement that made it, for the explanation.
    made_by: String,
}

/// The aliases a scope makes anywhere (outside the functions defined in
/// it), in order.
pub(crate) fn aliases_of(scope: Node<'_>, text: &str) -> Vec<Alias> {
    let mut aliases: Vec<Alias> = Vec::new();
    // An assignment or a loop is never inside an expression: those are
    // not walked into (a call's arguments are most of a model's nodes).
    for statement in own_nodes(scope, |node| !is_statement_free_expression(node.kind())) {
        let item = match statement.kind() {
            "assignment" => false,
            "for_statement" => true,
            _ => continue,
        };
        let (Some(left), Some(right)) = (
            child_by_field(statement, "left"),
            child_by_field(statement, "right"),
        ) else {
            continue;
        };
        let Some(mut source) = path_of(right, text).filter(|_| left.kind() == "identifier") else {
            continue;
        };
        let name = text_of(left, text).to_owned();
        if source[0] == name {
            continue;
        }
        if item {
            source.push("[]".to_owned());
        }
        let made_by = text_of(statement, text).lines().next().unwrap_or_default();
        aliases.push(Alias {
            name,
            source,
            made_by: made_by.chars().take(60).collect(),
        });
    }
    aliases
}

/// The names that changes of the values at `changed` reach through
/// `aliases`, each with why: `inner = cfg.model; inner.size = 4` changes
/// `cfg`, `x = cfg.model; cfg.model.size = 4` changes `x`, and from
/// them the names they share values with (a bounded worklist). The
/// aliases are the scope's, wherever made: a loop may run a change
/// before the alias of a later line.
pub(crate) fn reached_through_aliases(
    aliases: &[Alias],
    changed: Vec<Vec<String>>,
) -> BTreeMap<String, String> {
    let mut reached_names = BTreeMap::new();
    if aliases.is_empty() {
        return reached_names;
    }
    let mut seen: BTreeSet<Vec<String>> = changed.iter().cloned().collect();
    let mut work = changed;
    let mut steps = 0;
    while let Some(path) = work.pop() {
        steps += 1;
        if steps > MAX_ALIAS_STEPS {
            break;
        }
        for alias in aliases {
            let (reached, why) = if path[0] == alias.name {
                // Changed through the alias: the source's value changes.
                let mut reached = alias.source.clone();
                reached.extend(path[1..].iter().cloned());
                let why = format!(
                    "`{}` shares a value with `{}` (`{}`), which is changed in place",
                    alias.source[0], alias.name, alias.made_by
                );
                (reached, why)
            } else if path.starts_with(&alias.source) {
                // The source's value changed: so is the alias's.
                let mut reached = vec![alias.name.clone()];
                reached.extend(path[alias.source.len()..].iter().cloned());
                let why = format!(
                    "`{}` holds a value that is changed in place through `{}` (`{}`)",
                    alias.name, alias.source[0], alias.made_by
                );
                (reached, why)
            } else {
                continue;
            };
            reached_names.entry(reached[0].clone()).or_insert(why);
            if seen.insert(reached.clone()) {
                work.push(reached);
            }
        }
    }
    reached_names
}

/// The names of a scope that some change through another name may reach
/// ([`reached_through_aliases`] over the whole scope, with its
/// [`aliases_of`]): each must be a variable the whole scope sees, as a
/// branch or loop may forget it.
pub(crate) fn changed_through(aliases: &[Alias], scope: Node<'_>, text: &str) -> BTreeSet<String> {
    // Without aliases no change reaches another name: the scope's changes
    // need no walk (most scopes, and most files' top levels, make none).
    if aliases.is_empty() {
        return BTreeSet::new();
    }
    let changed = objects_changed_by(scope, text, SHARED_VALUE_CHANGES);
    reached_through_aliases(aliases, changed)
        .into_keys()
        .collect()
}

/// How many changes [`changed_through`] follows from name to
/// name, at most (each is a step along one alias).
const MAX_ALIAS_STEPS: usize = 1_000;

/// The nodes below `body` outside the functions and classes defined in
/// it (whose `nonlocal` and `global` are their own).
fn own_statements(body: Node<'_>) -> impl Iterator<Item = Node<'_>> {
    own_nodes(body, |_| true)
}

/// [`own_statements`], walking into a node's children only where `enter`
/// says so.
fn own_nodes<'t>(
    body: Node<'t>,
    enter: impl Fn(Node<'t>) -> bool,
) -> impl Iterator<Item = Node<'t>> {
    let mut stack = vec![body];
    // One cursor for the walk: a cursor and a vector per node were most
    // of the time of the walks made for every scope the lowering meets.
    let mut cursor = body.walk();
    std::iter::from_fn(move || {
        let node = stack.pop()?;
        let own =
            node == body || !matches!(node.kind(), "function_definition" | "class_definition");
        if own && enter(node) {
            each_named_child(&mut cursor, node, |child| stack.push(child));
        }
        Some(node)
    })
}

/// Expressions that hold no statement, however deep (Python has no
/// assignment statement inside an expression; `:=` is an expression of
/// its own kind, and comprehensions' `for` is not a loop statement).
fn is_statement_free_expression(kind: &str) -> bool {
    matches!(
        kind,
        "call"
            | "argument_list"
            | "attribute"
            | "subscript"
            | "string"
            | "binary_operator"
            | "comparison_operator"
            | "boolean_operator"
            | "not_operator"
            | "unary_operator"
            | "conditional_expression"
            | "parenthesized_expression"
            | "list"
            | "tuple"
            | "set"
            | "dictionary"
            | "lambda"
            | "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression"
            | "keyword_argument"
    )
}

/// The names a function's or lambda's parameters bind.
fn parameter_names(function: Node<'_>, text: &str) -> BTreeSet<String> {
    let Some(list) = child_by_field(function, "parameters") else {
        return BTreeSet::new();
    };
    named_children(list)
        .into_iter()
        .filter_map(|parameter| match parameter.kind() {
            "identifier" => Some(parameter),
            "default_parameter" | "typed_default_parameter" => child_by_field(parameter, "name"),
            _ => descendants(parameter).find(|n| n.kind() == "identifier"),
        })
        .map(|name| text_of(name, text).to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONLY_CHANGES: Changes = Changes {
        methods: Methods::Changing,
        arguments: false,
    };

    fn changed(source: &str, changes: Changes) -> Vec<(String, String)> {
        let tree = crate::parse_tree(source, None);
        changed_by_inner_functions(tree.root_node(), source, changes)
            .into_iter()
            .collect()
    }

    fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
        expected
            .iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect()
    }

    #[test]
    fn closures_and_module_functions_change_their_scope() {
        let source = "\
calls = []
def record(x):
    calls.append(x)
def count():
    global n
    n = 1
def own():
    calls = []
    calls.append(1)
def reads():
    return calls.copy(), total.get(1)
f = lambda x: table.__setitem__(x, 1)
def outer():
    m = 0
    def inc():
        nonlocal m
        m += 1
";
        assert_eq!(
            changed(source, ONLY_CHANGES),
            pairs(&[
                ("calls", "`record`"),
                ("m", "`inc`"),
                ("n", "`count`"),
                ("table", "a lambda"),
            ])
        );
    }

    #[test]
    fn arguments_count_only_when_asked() {
        let source = "def f(x):\n    fill(items, x)\n    y = x.size()\n";
        assert!(changed(source, ONLY_CHANGES).is_empty());
        assert_eq!(changed(source, ANY_CHANGE), pairs(&[("items", "`f`")]));
    }
}
