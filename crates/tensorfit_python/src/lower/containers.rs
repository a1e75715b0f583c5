//! Containers of layers (PYTHON.md §2): `nn.Sequential(*layers)`,
//! `nn.Sequential(OrderedDict(...))`, `nn.ModuleList`, `nn.ModuleDict`,
//! `dict(...)`, list comprehensions over `range`. A list is the
//! prelude's list value; a dict of modules is a record whose fields are
//! its keys.

use tensorfit_base::TextRange;
use tensorfit_semantics::registry;
use tensorfit_syntax::ast::*;
use tree_sitter::Node;

use super::syntax::{child_by_field, named_children};
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
                let layers = match arguments.as_slice() {
                    [only] if self.is_ordered_dict(*only) => self.ordered_dict_values(*only)?,
                    _ if arguments.iter().any(|a| a.kind() == "list_splat") => {
                        self.spliced_list(&arguments, range)?
                    }
                    _ => return None,
                };
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
    /// `layers = layers + [block]`.
    pub(super) fn list_update(&mut self, call: Node<'_>, range: TextRange) -> Option<Stmt> {
        let function = child_by_field(call, "function")?;
        if function.kind() != "attribute" {
            return None;
        }
        let object = child_by_field(function, "object")?;
        let method = self.text(child_by_field(function, "attribute")?);
        let target = self.changeable(object)?;
        let arguments = named_children(child_by_field(call, "arguments")?);
        let plain = |argument: &Node<'_>| {
            !matches!(
                argument.kind(),
                "keyword_argument" | "list_splat" | "dictionary_splat"
            )
        };
        let added = match (method, arguments.as_slice()) {
            ("append", [argument]) if plain(argument) => {
                list(vec![self.expr(*argument)], self.range(*argument))
            }
            ("extend", [argument]) if plain(argument) => self.expr(*argument),
            // An expression of its own (see `popped`), before the
            // statement.
            ("pop", _) if self.pending.is_some() => return None,
            // Any other change of the value in place: what it held is no
            // longer known (`self.features.add_module("block1", block)`
            // adds a layer the constructor's `Sequential` did not have).
            _ if IN_PLACE_METHODS.contains(&method) => {
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
    /// or attribute assigned) changes: a local (not `self`), in `__init__`
    /// a field (`self.layers`), in a derived class's `__init__` the base's
    /// part for a field of the base (see `derived`). `None` for anything
    /// else.
    pub(super) fn changeable(&mut self, object: Node<'_>) -> Option<Expr> {
        if let Some(base) = self.base_changed(object) {
            return Some(base);
        }
        if let Some(field) = self.init_field(object) {
            return Some(field);
        }
        self.local_object(object)
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
        let plain = arguments.iter().all(|a| {
            !matches!(
                a.kind(),
                "keyword_argument" | "list_splat" | "dictionary_splat"
            )
        });
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
        let popped = super::expressions::builtin_call(registry::POP, args, range);
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

    /// `[e for v in range(...)]`: a list built by a counted loop, before
    /// the statement it is in. `None` for other comprehensions, or where
    /// there is no statement to put the loop before.
    pub(super) fn comprehension(&mut self, node: Node<'_>) -> Option<Expr> {
        self.pending.as_ref()?;
        let parts = named_children(node);
        let (body, clauses) = parts.split_first()?;
        let [clause] = clauses else {
            return None;
        };
        if clause.kind() != "for_in_clause" {
            return None;
        }
        let variable = child_by_field(*clause, "left").filter(|l| l.kind() == "identifier")?;
        let (start, end) = self.range_bounds(child_by_field(*clause, "right")?)?;
        let range = self.range(node);
        let at = TextRange::empty(range.start as usize);
        let items = self.temporary();
        let name = |text: &str| Expr {
            kind: ExprKind::Name(text.to_owned()),
            range: at,
        };
        // The element reads the loop's variable: a name of the loop's own,
        // as comprehensions have their own scope.
        let element = self.expr(*body);
        let grown = Expr {
            kind: ExprKind::Binary {
                op: BinaryOp::Add,
                lhs: Box::new(name(&items)),
                rhs: Box::new(list(vec![element], range)),
            },
            range,
        };
        let loop_statement = Stmt {
            kind: StmtKind::For {
                variable: Some(self.name(variable)),
                start,
                end,
                body: Block {
                    stmts: vec![Stmt {
                        kind: StmtKind::Assign {
                            target: name(&items),
                            op: AssignOp::Assign,
                            value: grown,
                        },
                        range,
                    }],
                    range,
                },
            },
            range,
        };
        let pending = self.pending.as_mut()?;
        pending.push(Stmt {
            kind: StmtKind::Var {
                pattern: Pattern::Name(Name {
                    text: items.clone(),
                    range: at,
                }),
                ty: None,
                value: Some(list(Vec::new(), at)),
            },
            range: at,
        });
        pending.push(loop_statement);
        Some(name(&items))
    }

    fn is_ordered_dict(&self, node: Node<'_>) -> bool {
        node.kind() == "call"
            && child_by_field(node, "function")
                .and_then(|f| self.import_path(f))
                .is_some_and(|p| p == "collections.OrderedDict")
    }

    /// `OrderedDict([("conv", c), ("relu", r)])`: `[c, r]`.
    fn ordered_dict_values(&mut self, call: Node<'_>) -> Option<Expr> {
        let arguments = named_children(child_by_field(call, "arguments")?);
        let [pairs] = arguments.as_slice() else {
            return None;
        };
        if pairs.kind() != "list" {
            return None;
        }
        let mut values = Vec::new();
        for pair in named_children(*pairs) {
            let parts = named_children(pair);
            match (pair.kind(), parts.as_slice()) {
                ("tuple", [_, value]) => values.push(self.expr(*value)),
                _ => return None,
            }
        }
        Some(list(values, self.range(call)))
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
const IN_PLACE_METHODS: &[&str] = &[
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

/// Whether an expression runs exactly once, before the rest of its
/// statement could see what it changes: not on one side of `a if c else
/// b` or `and`/`or`, in a lambda or comprehension, or in an `elif` or
/// `while` condition.
fn runs_once_before_statement(expression: Node<'_>) -> bool {
    let mut up = expression.parent();
    while let Some(node) = up {
        match node.kind() {
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
