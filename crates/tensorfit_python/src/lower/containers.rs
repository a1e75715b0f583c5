//! Containers of layers (PYTHON.md §2): `nn.Sequential(*layers)`,
//! `nn.Sequential(OrderedDict(...))`, `nn.ModuleList`, `nn.ModuleDict`,
//! `dict(...)`. A list is the prelude's list value; a dict of modules is
//! a record whose fields are its keys.

use tensorfit_base::TextRange;
use tensorfit_semantics::registry;
use tensorfit_syntax::ast::*;
use tree_sitter::Node;

use super::statements::reassigned;
use super::syntax::{child_by_field, descendants_with_parents, is_plain_argument, named_children};
use super::Lowerer;

impl Lowerer<'_> {
    /// A call that builds a container, given the dotted path its callee
    /// names through the imports.
    pub(super) fn container(&mut self, call: Node<'_>, path: Option<&str>) -> Option<Expr> {
        let range = self.range(call);
        let arguments = named_children(child_by_field(call, "arguments")?);
        let builtin = child_by_field(call, "function")
            .filter(|f| f.kind() == "identifier" && !self.is_bound(*f))
            .map(|f| self.text(f));
        match (path, builtin) {
            (Some("torch.nn.Sequential"), _) => {
                // Layers one by one, or one `OrderedDict` of them: the
                // call as written.
                if !arguments.iter().any(|a| a.kind() == "list_splat") {
                    return None;
                }
                let layers = self.spliced_list(&arguments, range)?;
                Some(call_of("Sequential", layers, range))
            }
            (Some("torch.nn.ModuleList" | "torch.nn.ParameterList"), _) => {
                match arguments.as_slice() {
                    [] => Some(list(Vec::new(), range)),
                    [only] if only.kind() != "keyword_argument" => Some(self.expr(*only)),
                    _ => None,
                }
            }
            (Some("torch.nn.ModuleDict" | "torch.nn.ParameterDict"), _) => {
                match arguments.as_slice() {
                    [] => Some(record(Vec::new(), range)),
                    [only] if only.kind() != "keyword_argument" => Some(self.expr(*only)),
                    _ => None,
                }
            }
            (None, Some("dict")) => {
                let fields = arguments
                    .iter()
                    .map(|a| match a.kind() {
                        "keyword_argument" => Some(self.argument(*a)),
                        _ => None,
                    })
                    .collect::<Option<Vec<Arg>>>()?;
                Some(record(fields, range))
            }
            _ => None,
        }
    }

    /// `layers.append(block)`, `layers.extend(blocks)` (of a local or, in
    /// `__init__`, of a field): the list gets longer, as
    /// `layers = layers + [block]`; `seq.add_module(name, m)` registers a
    /// module (`Builtin::AddModule`).
    pub(super) fn list_update(&mut self, call: Node<'_>, range: TextRange) -> Option<Stmt> {
        let function = child_by_field(call, "function")?;
        if function.kind() != "attribute" {
            return None;
        }
        let object = child_by_field(function, "object")?;
        let method = self.text(child_by_field(function, "attribute")?);
        let Some(target) = self.changeable(object) else {
            // `model.features.add_module(...)` (or `self.head.append(m)` in
            // a Sequential builder): the local it is reached from is
            // changed in a way not followed.
            let root = self
                .part_of_built(object)
                .or_else(|| self.root_local(object))?;
            if !IN_PLACE_METHODS.contains(&method) && !REASSIGNING_METHODS.contains(&method) {
                return None;
            }
            for argument in named_children(child_by_field(call, "arguments")?) {
                self.expr(argument);
            }
            let why =
                format!("`.{method}(...)` changed a part of it in place, which is not followed");
            return Some(self.forget(root, call, &why, range));
        };
        let arguments = named_children(child_by_field(call, "arguments")?);
        // In a Sequential builder, a method of the base called on `self`
        // may change its layers (but these).
        let followed = ["append", "extend", "add_module", "register_module"];
        if self.sequential_built(object).is_some()
            && !followed.contains(&method)
            && !keeps_layers(method)
        {
            for argument in &arguments {
                self.expr(*argument);
            }
            let why = format!("`self.{method}(...)` may change the layers, which is not followed");
            return Some(self.forget(target, call, &why, range));
        }
        let plain = |argument: &Node<'_>| is_plain_argument(*argument);
        let added = match (method, arguments.as_slice()) {
            ("append", [argument]) if plain(argument) => {
                list(vec![self.expr(*argument)], self.range(*argument))
            }
            ("extend", [argument]) if plain(argument) => self.expr(*argument),
            // An expression of its own (see `popped`), before the
            // statement.
            ("pop", _) if self.pending.is_some() => return None,
            // `model.load_state_dict(state)`: the module after loading.
            ("load_state_dict", _) => {
                let args = arguments.iter().map(|a| self.expr(*a)).collect();
                return Some(reassigned(target, Builtin::LoadState, args, range));
            }
            // `net.eval()`, `net.train(False)`: the module with its
            // `training` flag set (`Builtin::SetTraining`).
            // A module reached through a loop over another's modules
            // (`for m in net.modules(): m.eval()`): the other's mode is
            // changed too, which is not followed.
            ("eval" | "train", _) if self.iterated_modules_of(object).is_some() => {
                let root = self.iterated_modules_of(object)?;
                let why = format!(
                    "`.{method}()` on one of its modules changed it, which is not followed"
                );
                return Some(self.forget(root, call, &why, range));
            }
            ("eval" | "train", _)
                if self.sequential_built(object).is_none()
                    && self.registered_self(object).is_none() =>
            {
                let mode = match (method, arguments.as_slice()) {
                    ("eval", []) => Expr {
                        kind: ExprKind::Bool(false),
                        range,
                    },
                    ("train", []) => Expr {
                        kind: ExprKind::Bool(true),
                        range,
                    },
                    ("train", [mode]) if plain(mode) => self.expr(*mode),
                    _ => self.unknown(call, "the mode is not a plain argument"),
                };
                return Some(reassigned(target, Builtin::SetTraining, vec![mode], range));
            }
            // `features.add_module("denseblock1", block)`: the container
            // with the module registered under that name.
            ("add_module" | "register_module", [name, module]) if plain(name) && plain(module) => {
                let args = vec![self.expr(*name), self.expr(*module)];
                return Some(reassigned(target, Builtin::AddModule, args, range));
            }
            // Any other change of the value in place: what it held is no
            // longer known (`layers.insert(0, stem)`, a tensor's
            // `x.unsqueeze_(0)`, `x.resize_(n)`).
            _ if IN_PLACE_METHODS.contains(&method)
                || crate::tensor_changes::changes_shape_in_place(method) =>
            {
                for argument in &arguments {
                    self.expr(*argument);
                }
                let why = format!("`.{method}(...)` changed it in place, which is not followed");
                return Some(self.forget(target, call, &why, range));
            }
            _ => return None,
        };
        Some(Stmt {
            kind: StmtKind::Assign {
                target: target.clone(),
                op: AssignOp::Assign,
                value: Expr {
                    kind: ExprKind::Binary {
                        op: BinaryOp::Add,
                        lhs: Box::new(target),
                        rhs: Box::new(added),
                    },
                    range,
                },
            },
            range,
        })
    }

    /// What a change in place of `object` (a method called on it, an item
    /// or attribute assigned) changes: in a Sequential builder, `self` is
    /// the Sequential built (see `sequential_builder`); a local (not
    /// `self`), in `__init__`
    /// a field (`self.layers`), in a derived class's `__init__` the base's
    /// part for a field of the base (see `derived`). `None` for anything
    /// else.
    pub(super) fn changeable(&mut self, object: Node<'_>) -> Option<Expr> {
        if let Some(built) = self.sequential_built(object) {
            return Some(built);
        }
        if let Some(container) = self.registered_self(object) {
            return Some(container);
        }
        if let Some(base) = self.base_changed(object) {
            return Some(base);
        }
        if let Some(field) = self.init_field(object) {
            return Some(field);
        }
        self.local_object(object)
    }

    /// The local whose modules a `for` loop around `object` goes over,
    /// where `object` is that loop's variable (`m` of `for m in
    /// net.modules():`, `for name, m in net.named_children():`).
    fn iterated_modules_of(&self, object: Node<'_>) -> Option<Expr> {
        const MODULE_ITERATORS: &[&str] =
            &["modules", "children", "named_modules", "named_children"];
        if object.kind() != "identifier" {
            return None;
        }
        let name = self.text(object);
        let mut up = object.parent();
        while let Some(node) = up {
            if node.kind() == "for_statement" {
                let left = child_by_field(node, "left")?;
                let binds = match left.kind() {
                    "identifier" => self.text(left) == name,
                    _ => named_children(left).iter().any(|n| self.text(*n) == name),
                };
                let iterated = child_by_field(node, "right")
                    .filter(|call| call.kind() == "call")
                    .and_then(|call| child_by_field(call, "function"))
                    .filter(|f| f.kind() == "attribute");
                if let (true, Some(function)) = (binds, iterated) {
                    let method = self.text(child_by_field(function, "attribute")?);
                    if MODULE_ITERATORS.contains(&method) {
                        let owner = child_by_field(function, "object")?;
                        return self.root_local(owner);
                    }
                }
            }
            up = node.parent();
        }
        None
    }

    /// The local (not `self`) an attribute or item chain starts from
    /// (`model` of `model.features[0]`).
    fn root_local(&self, object: Node<'_>) -> Option<Expr> {
        let mut node = object;
        loop {
            node = match node.kind() {
                "attribute" => child_by_field(node, "object")?,
                "subscript" => child_by_field(node, "value")?,
                "identifier" => return self.local_object(node),
                _ => return None,
            };
        }
    }

    /// What a statement changes in place inside its expressions, made
    /// unknown before it runs: the local at the root of `x.setdefault(k,
    /// v)`, `x.parts.update(...)`, `x.unsqueeze_(0)` called inside an
    /// expression (`qkv = qkv_weights.setdefault(i, {})` in litgpt's
    /// checkpoint conversion, which left the dict empty to the caller). A
    /// call that is the whole statement is `list_update`'s, and a local's
    /// `pop` `popped`'s; a compound statement's own statements are each
    /// looked at in turn.
    pub(super) fn changed_inside_expressions(&mut self, statement: Node<'_>) -> Vec<Stmt> {
        if !matches!(
            statement.kind(),
            "expression_statement" | "return_statement" | "assert_statement"
        ) {
            return Vec::new();
        }
        let mut forgotten: Vec<Stmt> = Vec::new();
        let mut roots: Vec<Expr> = Vec::new();
        let calls = descendants_with_parents(statement).filter(|p| p.node.kind() == "call");
        for placed in calls {
            if placed.parent.kind() == "expression_statement" {
                continue;
            }
            let call = placed.node;
            let Some(function) = child_by_field(call, "function") else {
                continue;
            };
            let (Some(object), Some(method)) = (
                child_by_field(function, "object").filter(|_| function.kind() == "attribute"),
                child_by_field(function, "attribute"),
            ) else {
                continue;
            };
            let method = self.text(method);
            let changes = IN_PLACE_METHODS.contains(&method)
                || crate::tensor_changes::changes_shape_in_place(method);
            let popped_as_local = method == "pop" && object.kind() == "identifier";
            if !changes || popped_as_local {
                continue;
            }
            let Some(root) = self.root_local(object) else {
                continue;
            };
            if roots.iter().any(|r| r.kind == root.kind) {
                continue;
            }
            roots.push(root.clone());
            let why = format!(
                "`.{method}(...)` inside an expression changed it in place, which is not followed"
            );
            let at = TextRange::empty(self.range(statement).start as usize);
            forgotten.push(self.forget(root, call, &why, at));
        }
        forgotten
    }

    /// `x.pop(key)` of a local dict or list (`kwargs.pop("width_mult")`):
    /// before the statement, `$t = builtins.pop(x, key)` and `x = $t[1]`,
    /// what is left; the expression is `$t[0]`, the item taken. Where the
    /// pop may not run exactly once before its statement (a side of `a if
    /// c else b`, of `and`/`or`, a lambda, a comprehension, an `elif` or
    /// `while` condition) or takes keywords, `x` is unknown from before the
    /// statement on, and so is the item. `None` where there is no
    /// statement to put anything before.
    pub(super) fn popped(&mut self, call: Node<'_>) -> Option<Expr> {
        let function = child_by_field(call, "function")?;
        if function.kind() != "attribute"
            || child_by_field(function, "attribute").map(|a| self.text(a)) != Some("pop")
        {
            return None;
        }
        let object = child_by_field(function, "object")?;
        let target = self.changeable(object)?;
        self.pending.as_ref()?;
        let arguments = named_children(child_by_field(call, "arguments")?);
        let plain = arguments.iter().all(|a| is_plain_argument(*a));
        if !plain || !runs_once_before_statement(call) {
            let why = "`.pop(...)` changed it where it may not run once, which is not followed";
            let forget = self.forget(target, call, why, self.range(call));
            self.pending.as_mut()?.push(forget);
            return Some(self.unknown(call, why));
        }
        let range = self.range(call);
        let at = TextRange::empty(range.start as usize);
        let mut args = vec![target.clone()];
        args.extend(arguments.iter().map(|a| self.expr(*a)));
        let pair = self.temporary();
        let read = |tuple: Expr, index: u32| Expr {
            kind: ExprKind::Field {
                value: Box::new(tuple),
                field: FieldName::Index(index, at),
            },
            range,
        };
        let popped = super::expressions::builtin_call(Builtin::Pop, args, range);
        let taken = self.let_temporary(&pair, popped, range);
        let left = Stmt {
            kind: StmtKind::Assign {
                target,
                op: AssignOp::Assign,
                value: read(self.read_temporary(&pair, range), 1),
            },
            range,
        };
        let item = read(self.read_temporary(&pair, range), 0);
        self.pending.as_mut()?.extend([taken, left]);
        Some(item)
    }

    /// `{"wte": ..., "h": ...}` with string keys: a record.
    pub(super) fn dictionary(&mut self, node: Node<'_>) -> Option<Expr> {
        let mut fields = Vec::new();
        for pair in named_children(node) {
            if pair.kind() != "pair" {
                return None;
            }
            let key = child_by_field(pair, "key")?;
            let name = self.string_literal(key)?;
            let value = self.expr(child_by_field(pair, "value")?);
            fields.push(Arg {
                unpack: None,
                name: Some(Name {
                    text: name,
                    range: self.range(key),
                }),
                value,
                range: self.range(pair),
            });
        }
        Some(record(fields, self.range(node)))
    }

    /// `a, *rest, b` as arguments: `[a] + rest + [b]`.
    fn spliced_list(&mut self, arguments: &[Node<'_>], range: TextRange) -> Option<Expr> {
        let mut parts: Vec<Expr> = Vec::new();
        let mut plain: Vec<Expr> = Vec::new();
        for argument in arguments {
            match argument.kind() {
                "list_splat" => {
                    if !plain.is_empty() {
                        parts.push(list(std::mem::take(&mut plain), range));
                    }
                    parts.push(self.expr(*named_children(*argument).first()?));
                }
                "keyword_argument" | "dictionary_splat" => return None,
                _ => plain.push(self.expr(*argument)),
            }
        }
        if !plain.is_empty() {
            parts.push(list(plain, range));
        }
        parts.into_iter().reduce(|lhs, rhs| Expr {
            kind: ExprKind::Binary {
                op: BinaryOp::Add,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            range,
        })
    }
}

fn list(items: Vec<Expr>, range: TextRange) -> Expr {
    Expr {
        kind: ExprKind::List(items),
        range,
    }
}

fn record(fields: Vec<Arg>, range: TextRange) -> Expr {
    Expr {
        kind: ExprKind::Record(fields),
        range,
    }
}

/// `name(argument)`: a prelude operation's call with one argument.
fn call_of(name: &str, argument: Expr, range: TextRange) -> Expr {
    Expr {
        kind: ExprKind::Call {
            callee: Box::new(Expr {
                kind: ExprKind::Name(name.to_owned()),
                range,
            }),
            args: vec![Arg {
                name: None,
                unpack: None,
                value: argument,
                range,
            }],
        },
        range,
    }
}

/// Methods that change a list, a dict or a module container in place
/// (`append` and `extend` of one plain argument are followed; the rest
/// make the value unknown).
pub(crate) const IN_PLACE_METHODS: &[&str] = &[
    "append",
    "extend",
    "add_module",
    "register_module",
    "insert",
    "pop",
    "popitem",
    "remove",
    "clear",
    "update",
    "setdefault",
    "sort",
    "reverse",
    "__setitem__",
    "__delitem__",
];

/// Methods that change a module in place, which the analysis follows
/// where they are called on a local (see `list_update`); on a part of one
/// (`model.features.eval()`), the local is forgotten.
const REASSIGNING_METHODS: &[&str] = &["load_state_dict", "eval", "train"];

/// Methods of `nn.Module` that leave its layers as they are.
const KEEPS_LAYERS: &[&str] = &[
    "modules",
    "named_modules",
    "children",
    "named_children",
    "parameters",
    "named_parameters",
    "buffers",
    "named_buffers",
    "zero_grad",
];

/// Whether `method` of `nn.Module` leaves its layers as they are: those
/// above, and those that return the module itself (`to`, `eval`, ...).
fn keeps_layers(method: &str) -> bool {
    KEEPS_LAYERS.contains(&method) || registry::MODULE_METHODS_RETURNING_ITSELF.contains(&method)
}

/// Whether an expression runs exactly once, before the rest of its
/// statement could see what it changes: not on one side of `a if c else
/// b` or `and`/`or`, in a lambda or comprehension, or in an `elif` or
/// `while` condition.
fn runs_once_before_statement(expression: Node<'_>) -> bool {
    runs_once_before(expression, false)
}

/// [`runs_once_before_statement`], where a list comprehension around
/// the expression runs it in its own loops (a nested comprehension).
pub(super) fn runs_once_before_statement_in_loops(expression: Node<'_>) -> bool {
    runs_once_before(expression, true)
}

fn runs_once_before(expression: Node<'_>, in_list_loops: bool) -> bool {
    let mut up = expression.parent();
    while let Some(node) = up {
        match node.kind() {
            "list_comprehension" if in_list_loops => up = node.parent(),
            "conditional_expression"
            | "boolean_operator"
            | "lambda"
            | "list_comprehension"
            | "generator_expression"
            | "dictionary_comprehension"
            | "set_comprehension"
            | "elif_clause"
            | "while_statement" => return false,
            kind if kind.ends_with("statement") => return true,
            _ => up = node.parent(),
        }
    }
    true
}
