//! Statements (PYTHON.md §3): assignments and destructuring, `if`/`elif`
//! with `raise` guards, loops, `assert` and `torch._assert`, `with`
//! bodies. A Python statement becomes zero, one or several statements.

use tensorfit_syntax::ast::*;
use tree_sitter::Node;

use super::syntax::{child_by_field, each_named_child, is_plain_argument, named_children};
use super::{Lowerer, ScopeKind};
use crate::changed_names::{
    objects_changed_by, reached_through_aliases, roots_changed_by, ANY_CHANGE, SHARED_VALUE_CHANGES,
};

impl Lowerer<'_> {
    /// The statements of a block, up to a `raise` (what follows it in the
    /// block never runs). `assert False, "not supported"` is a `raise`
    /// too: a body that always raises is not wrong for it (PYTHON.md §4).
    pub(super) fn block_statements(&mut self, block: Node<'_>) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        for statement in named_children(block) {
            let asserts_false = statement.kind() == "assert_statement"
                && named_children(statement)
                    .first()
                    .is_some_and(|condition| condition.kind() == "false");
            if statement.kind() == "raise_statement" || asserts_false {
                break;
            }
            stmts.extend(self.statement(statement));
        }
        stmts
    }

    pub(super) fn statement(&mut self, node: Node<'_>) -> Vec<Stmt> {
        // From a statement that may change a tensor in place on, no
        // tensor's items are kept (`Builtin::TensorsChangeInPlace`).
        // The names the statement mentions are the marker's arguments, so
        // that the script's groups (`script_groups`) keep it with the
        // tensors it may change.
        let mut marked = Vec::new();
        if crate::tensor_changes::may_change_tensors_in_place(node, self.text) {
            let at = tensorfit_base::TextRange::empty(self.range(node).start as usize);
            let mut names: Vec<&str> = super::syntax::descendants(node)
                .filter(|n| n.kind() == "identifier")
                .map(|n| self.text(n))
                .collect();
            names.sort_unstable();
            names.dedup();
            let mentioned = names
                .into_iter()
                .map(|name| Expr {
                    kind: ExprKind::Name(name.to_owned()),
                    range: at,
                })
                .collect();
            marked.push(Stmt {
                kind: StmtKind::Expr(super::expressions::builtin_call(
                    Builtin::TensorsChangeInPlace,
                    mentioned,
                    at,
                )),
                range: at,
            });
        }
        marked.extend(self.changed_inside_expressions(node));
        marked.extend(self.statement_unmarked(node));
        marked.extend(self.forget_other_names(node));
        marked
    }

    /// After a statement that changes a value in place, each other name
    /// for that value is forgotten (`inner = cfg.model; inner.size = 4`
    /// leaves `cfg` unknown, never stale); the names the statement
    /// changes directly are its own lowering's. Compound statements are
    /// looked at statement by statement.
    fn forget_other_names(&mut self, node: Node<'_>) -> Vec<Stmt> {
        let simple = matches!(
            node.kind(),
            "expression_statement" | "delete_statement" | "return_statement" | "assert_statement"
        );
        if !simple || self.scope.aliases.is_empty() {
            return Vec::new();
        }
        let changed = objects_changed_by(node, self.text, SHARED_VALUE_CHANGES);
        let direct: Vec<String> = changed.iter().map(|path| path[0].clone()).collect();
        let reached = reached_through_aliases(&self.scope.aliases, changed);
        let range = self.range(node);
        let at = tensorfit_base::TextRange::empty(range.end as usize);
        let is_self = |name: &String| self.scope.self_name.as_ref() == Some(name);
        reached
            .into_iter()
            .filter(|(name, _)| {
                self.is_local_name(name) && !is_self(name) && !direct.contains(name)
            })
            .map(|(name, why)| {
                let value = Expr {
                    kind: ExprKind::Unknown(why),
                    range: at,
                };
                self.set_name(
                    Name {
                        text: name,
                        range: at,
                    },
                    value,
                    range,
                )
            })
            .collect()
    }

    fn statement_unmarked(&mut self, node: Node<'_>) -> Vec<Stmt> {
        if self.scope.kind == ScopeKind::Script
            && self.scope.script_vars.is_none()
            && crate::statement_facts::is_compound_statement(node.kind())
        {
            return self.script_compound(node);
        }
        let outer = self.pending.replace(Vec::new());
        let stmts = self.nested(|this| this.statement_inner(node));
        let mut all = std::mem::replace(&mut self.pending, outer).unwrap_or_default();
        all.extend(stmts);
        all
    }

    fn statement_inner(&mut self, node: Node<'_>) -> Vec<Stmt> {
        let range = self.range(node);
        let stmt = |kind: StmtKind| vec![Stmt { kind, range }];
        match node.kind() {
            "expression_statement" => named_children(node)
                .into_iter()
                .flat_map(|child| self.expression_statement(child, range))
                .collect(),
            "return_statement" => {
                let value = named_children(node)
                    .into_iter()
                    .next()
                    .map(|v| self.expr(v));
                match self.helper_result.clone() {
                    // A helper inlined into `__init__` (always its last
                    // statement): the call's value.
                    Some(result) => stmt(StmtKind::Assign {
                        target: Expr {
                            kind: ExprKind::Name(result),
                            range,
                        },
                        op: AssignOp::Assign,
                        value: value.unwrap_or(Expr {
                            kind: ExprKind::Name("None".to_owned()),
                            range,
                        }),
                    }),
                    None => match self.sequential_built_name(range) {
                        // `__init__` of a Sequential builder returns the
                        // Sequential it built.
                        Some(built) => stmt(StmtKind::Return(Some(built))),
                        None => stmt(StmtKind::Return(value)),
                    },
                }
            }
            "assert_statement" => {
                let parts = named_children(node);
                let Some(condition) = parts.first() else {
                    return Vec::new();
                };
                let condition = self.expr(*condition);
                let message = parts.get(1).map(|m| self.expr(*m));
                stmt(StmtKind::Assert {
                    condition,
                    message,
                    guard: false,
                })
            }
            "if_statement" => {
                let (Some(condition), Some(consequence)) = (
                    child_by_field(node, "condition"),
                    child_by_field(node, "consequence"),
                ) else {
                    return Vec::new();
                };
                let mut cursor = node.walk();
                let alternatives: Vec<Node<'_>> = node
                    .children_by_field_name("alternative", &mut cursor)
                    .collect();
                self.if_chain(condition, consequence, &alternatives, range)
            }
            "for_statement" => self.for_statement(node, range),
            "while_statement" => {
                let (Some(condition), Some(body)) = (
                    child_by_field(node, "condition"),
                    child_by_field(node, "body"),
                ) else {
                    return Vec::new();
                };
                let condition = self.expr(condition);
                let body = self.block(body);
                stmt(StmtKind::While { condition, body })
            }
            // `with pytest.raises(E):` expects its body to raise, and
            // `contextlib.suppress(E)` may swallow it: as a `try`.
            "with_statement" if catches_exceptions(node, self.text) => self.forget_changed_locals(
                node,
                "it is assigned in a `with` block that catches errors",
            ),
            "with_statement" => child_by_field(node, "body")
                .map(|body| self.block_statements(body))
                .unwrap_or_default(),
            // What a `try` body does may be caught: its statements are not
            // checked, and what it assigns is unknown after it.
            "try_statement" => {
                self.forget_changed_locals(node, "it is assigned in a `try` statement")
            }
            "function_definition" | "decorated_definition" => self.nested_function(node),
            _ => Vec::new(),
        }
    }

    fn block(&mut self, node: Node<'_>) -> Block {
        Block {
            stmts: self.block_statements(node),
            range: self.range(node),
        }
    }

    fn expression_statement(
        &mut self,
        node: Node<'_>,
        range: tensorfit_base::TextRange,
    ) -> Vec<Stmt> {
        match node.kind() {
            "assignment" => {
                let Some(left) = child_by_field(node, "left") else {
                    return Vec::new();
                };
                // `x: int` declares without assigning.
                let Some(mut right) = child_by_field(node, "right") else {
                    return Vec::new();
                };
                // `a = b = value`: every target gets the value.
                let mut targets = vec![left];
                while right.kind() == "assignment" {
                    let (Some(next_left), Some(next_right)) = (
                        child_by_field(right, "left"),
                        child_by_field(right, "right"),
                    ) else {
                        return Vec::new();
                    };
                    targets.push(next_left);
                    right = next_right;
                }
                let value = self.expr(right);
                if targets.len() == 1 {
                    return self.assign(left, value, range);
                }
                let temporary = self.temporary();
                let mut stmts = vec![self.let_temporary(&temporary, value, range)];
                for target in targets {
                    let read = self.read_temporary(&temporary, range);
                    stmts.extend(self.assign(target, read, range));
                }
                stmts
            }
            "augmented_assignment" => {
                let (Some(left), Some(right), Some(operator)) = (
                    child_by_field(node, "left"),
                    child_by_field(node, "right"),
                    child_by_field(node, "operator"),
                ) else {
                    return Vec::new();
                };
                let field = self.init_field(left);
                if left.kind() != "identifier" && field.is_none() {
                    // `x[i] += v`, `self.count += 1`: in place; the value is
                    // still checked.
                    let value = self.expr(right);
                    return vec![Stmt {
                        kind: StmtKind::Expr(value),
                        range,
                    }];
                }
                let target = field.unwrap_or_else(|| self.expr(left));
                let value = self.expr(right);
                let value = match self.text(operator) {
                    "+=" => {
                        return vec![Stmt {
                            kind: StmtKind::Assign {
                                target,
                                op: AssignOp::AddAssign,
                                value,
                            },
                            range,
                        }]
                    }
                    op => self.binary_value(op.trim_end_matches('='), target.clone(), value, range),
                };
                vec![Stmt {
                    kind: StmtKind::Assign {
                        target,
                        op: AssignOp::Assign,
                        value,
                    },
                    range,
                }]
            }
            // A docstring or other lone literal.
            "string" | "concatenated_string" | "ellipsis" | "integer" | "float" => Vec::new(),
            "call" => {
                if self.is_super_init(node) {
                    // In a Sequential builder, the Sequential it returns.
                    let (Some(callee), Some(built)) =
                        (self.super_init.clone(), self.sequential_built_name(range))
                    else {
                        // In a derived class, the base's instance; in one
                        // of a container, the container's value.
                        return self
                            .base_init(node, range)
                            .or_else(|| self.registered_init(node, range))
                            .into_iter()
                            .collect();
                    };
                    let args = self.arguments(node);
                    let call = Expr {
                        kind: ExprKind::Call {
                            callee: Box::new(callee),
                            args,
                        },
                        range,
                    };
                    return vec![Stmt {
                        kind: StmtKind::Assign {
                            target: built,
                            op: AssignOp::Assign,
                            value: call,
                        },
                        range,
                    }];
                }
                if let Some(stmts) = self.set_self_attribute(node, range) {
                    return stmts;
                }
                if let Some(stmt) = self.registration(node, range) {
                    return vec![stmt];
                }
                if let Some(stmt) = self.list_update(node, range) {
                    return vec![stmt];
                }
                if let Some(assert) = self.torch_assert(node, range) {
                    return vec![assert];
                }
                let value = self.expr(node);
                vec![Stmt {
                    kind: StmtKind::Expr(value),
                    range,
                }]
            }
            _ => {
                let value = self.expr(node);
                vec![Stmt {
                    kind: StmtKind::Expr(value),
                    range,
                }]
            }
        }
    }

    /// `target = value` for any target Python allows.
    fn assign(
        &mut self,
        target: Node<'_>,
        value: Expr,
        range: tensorfit_base::TextRange,
    ) -> Vec<Stmt> {
        if self.init_field(target).is_some() {
            let mut stmts: Vec<Stmt> = self
                .assign_field(target, value, range)
                .into_iter()
                .collect();
            stmts.extend(self.register_attribute(target, range));
            return stmts;
        }
        match target.kind() {
            "identifier" => {
                let name = self.name(target);
                vec![self.set_name(name, value, range)]
            }
            "pattern_list" | "tuple_pattern" | "list_pattern" | "tuple" | "list" => {
                let elements = named_children(target);
                let starred = elements.iter().any(|e| e.kind() == "list_splat_pattern");
                // All names `let`s: one destructuring `let`.
                if !starred
                    && elements
                        .iter()
                        .all(|e| e.kind() == "identifier" && self.declares_with_let(self.text(*e)))
                {
                    let elements = elements
                        .iter()
                        .map(|e| Pattern::Name(self.name(*e)))
                        .collect();
                    return vec![Stmt {
                        kind: StmtKind::Let {
                            pattern: Pattern::Tuple {
                                elements,
                                range: self.range(target),
                            },
                            ty: None,
                            value,
                        },
                        range,
                    }];
                }
                // Names not all new (`_, h, w, _ = x.shape` binds `_`
                // twice), or other targets: destructured into new names,
                // with what unpacking means (a shape's rank is the count),
                // then each target assigned its part.
                if !starred {
                    let parts: Vec<String> = elements.iter().map(|_| self.temporary()).collect();
                    let mut stmts = vec![Stmt {
                        kind: StmtKind::Let {
                            pattern: Pattern::Tuple {
                                elements: parts
                                    .iter()
                                    .map(|part| {
                                        Pattern::Name(Name {
                                            text: part.clone(),
                                            range: tensorfit_base::TextRange::empty(
                                                range.start as usize,
                                            ),
                                        })
                                    })
                                    .collect(),
                                range: self.range(target),
                            },
                            ty: None,
                            value,
                        },
                        range,
                    }];
                    for (element, part) in elements.iter().zip(&parts) {
                        let value = Expr {
                            range: self.range(*element),
                            ..self.read_temporary(part, range)
                        };
                        stmts.extend(self.assign(*element, value, range));
                    }
                    return stmts;
                }
                let temporary = self.temporary();
                let mut stmts = vec![self.let_temporary(&temporary, value, range)];
                for (i, element) in elements.iter().enumerate() {
                    let part = match starred {
                        true => self.unknown(
                            *element,
                            "it is unpacked with `*`, which is not followed yet",
                        ),
                        false => Expr {
                            kind: ExprKind::Field {
                                value: Box::new(self.read_temporary(&temporary, range)),
                                field: FieldName::Index(i as u32, range),
                            },
                            range: self.range(*element),
                        },
                    };
                    let element = match element.kind() {
                        "list_splat_pattern" => named_children(*element).into_iter().next(),
                        _ => Some(*element),
                    };
                    if let Some(element) = element {
                        stmts.extend(self.assign(element, part, range));
                    }
                }
                stmts
            }
            "parenthesized_expression" => match named_children(target).first() {
                Some(inner) => self.assign(*inner, value, range),
                None => Vec::new(),
            },
            // `x[i] = v`, `model.fc = v`, `self.blocks[0] = v` in
            // `__init__`: the container or object changes in place, so what
            // it held is no longer known. `self.x = v` outside `__init__`
            // (state a method keeps) leaves `self` as it is. The value is
            // still checked.
            _ => {
                if let Some(set) = self.register_on_built(target, &value, range) {
                    return vec![set];
                }
                if let Some(set) = self.set_part(target, &value, range) {
                    return vec![set];
                }
                let mut stmts = vec![Stmt {
                    kind: StmtKind::Expr(value),
                    range,
                }];
                if let Some(changed) = self.changed_in_place(target) {
                    let why = "it was changed in place (an item or attribute assigned), which is not followed";
                    stmts.push(self.forget(changed, target, why, range));
                }
                stmts
            }
        }
    }

    /// `target = <unknown>`: a local or field changed in a way that is not
    /// followed (by `node`, which `why` explains) no longer holds what it
    /// held, so it is not known at all rather than stale.
    pub(super) fn forget(
        &self,
        target: Expr,
        node: Node<'_>,
        why: &str,
        range: tensorfit_base::TextRange,
    ) -> Stmt {
        Stmt {
            kind: StmtKind::Assign {
                target,
                op: AssignOp::Assign,
                value: self.unknown(node, why),
            },
            range,
        }
    }

    /// `self.norm = nn.BatchNorm2d(c)` in a Sequential builder registers a
    /// layer of the Sequential built (`Builtin::SetModuleAttr`).
    fn register_on_built(
        &mut self,
        target: Node<'_>,
        value: &Expr,
        range: tensorfit_base::TextRange,
    ) -> Option<Stmt> {
        if target.kind() != "attribute" {
            return None;
        }
        let built = self.sequential_built(child_by_field(target, "object")?)?;
        let attribute = child_by_field(target, "attribute")?;
        let attribute = Expr {
            kind: ExprKind::Str(self.text(attribute).to_owned()),
            range: self.range(attribute),
        };
        Some(reassigned(
            built,
            Builtin::SetModuleAttr,
            vec![attribute, value.clone()],
            range,
        ))
    }

    /// A part of a local `x` (not `self`, not a field) changed in place:
    /// `x` with that part replaced, step by step. `x.name = value` is
    /// `x = builtins.setattr(x, "name", value)` (EfficientNet's
    /// `block_cnf.input_channels = ...` on a copy), `x[key] = value` is
    /// `x = operator.setitem(x, key, value)` (`kwargs["init_weights"] =
    /// False` in torchvision's builders), and a longer chain nests them:
    /// `cfg.model.size = value` is `cfg = builtins.setattr(cfg, "model",
    /// builtins.setattr(cfg.model, "size", value))` (minGPT's
    /// `config.model.vocab_size = ...` before `GPT(config.model)` asserts
    /// it is not `None`). The analysis follows these for dicts, lists,
    /// `nn.Sequential` and objects of classes it reads; a step it does not
    /// follow leaves `x` unknown, never as it was.
    fn set_part(
        &mut self,
        target: Node<'_>,
        value: &Expr,
        range: tensorfit_base::TextRange,
    ) -> Option<Stmt> {
        // The chain's steps from the target to the local, found before
        // anything is lowered: a chain not rooted at a local lowers nothing.
        let mut steps = Vec::new();
        let mut part = target;
        let local = loop {
            let object = match part.kind() {
                "attribute" => child_by_field(part, "object")?,
                "subscript" => child_by_field(part, "value")?,
                _ => return None,
            };
            steps.push((part, object));
            if let Some(local) = self.local_object(object) {
                break local;
            }
            part = object;
        };
        let mut value = value.clone();
        let last = steps.len() - 1;
        for (i, (step, object)) in steps.into_iter().enumerate() {
            let (update, key) = match step.kind() {
                "attribute" => {
                    let attribute = child_by_field(step, "attribute")?;
                    let name = Expr {
                        kind: ExprKind::Str(self.text(attribute).to_owned()),
                        range: self.range(attribute),
                    };
                    (Builtin::SetAttr, name)
                }
                _ => (Builtin::SetItem, self.item_key(step)),
            };
            if i == last {
                return Some(reassigned(local, update, vec![key, value], range));
            }
            let whole = self.expr(object);
            value = super::expressions::builtin_call(update, vec![whole, key, value], range);
        }
        None
    }

    /// The key of an item set, `x[key] = value`. Several keys or a slice
    /// (`mask[h0:h1, w0:w1] = count`): unknown, which a tensor does not
    /// need (its shape stays) and which leaves a list or dict unknown.
    fn item_key(&mut self, subscript: Node<'_>) -> Expr {
        let mut cursor = subscript.walk();
        let keys: Vec<Node<'_>> = subscript
            .children_by_field_name("subscript", &mut cursor)
            .collect();
        match keys.as_slice() {
            [key] if key.kind() != "slice" => self.expr(*key),
            _ => self.unknown(subscript, "the item set is a slice or has several keys"),
        }
    }

    /// `object` as the local it names, if it is one (not `self`): what
    /// `x[key] = v` and `x.name = v` change.
    pub(super) fn local_object(&self, object: Node<'_>) -> Option<Expr> {
        let is_self = self.scope.self_name.as_deref() == Some(self.text(object));
        (object.kind() == "identifier" && !is_self && self.is_bound(object)).then(|| Expr {
            kind: ExprKind::Name(self.text(object).to_owned()),
            range: self.range(object),
        })
    }

    /// What an assignment to `target` (an item `x[i]` or an attribute
    /// `x.a`) changes in place (see `changeable`): `x`, or the field
    /// `self.blocks` of `self.blocks[0]`. `None` for `self.a` itself and
    /// for what is not a local.
    fn changed_in_place(&mut self, target: Node<'_>) -> Option<Expr> {
        let object = match target.kind() {
            "subscript" => child_by_field(target, "value")?,
            "attribute" => child_by_field(target, "object")?,
            _ => return None,
        };
        self.changeable(object)
            .or_else(|| self.part_of_built(object))
    }

    /// `name = value`: a `let` where this assignment declares the name, an
    /// assignment of its hoisted `var` otherwise.
    pub(super) fn set_name(
        &self,
        name: Name,
        value: Expr,
        range: tensorfit_base::TextRange,
    ) -> Stmt {
        let kind = match self.declares_with_let(&name.text) {
            true => StmtKind::Let {
                pattern: Pattern::Name(name),
                ty: None,
                value,
            },
            false => StmtKind::Assign {
                target: Expr {
                    kind: ExprKind::Name(name.text),
                    range: name.range,
                },
                op: AssignOp::Assign,
                value,
            },
        };
        Stmt { kind, range }
    }

    /// A compound statement of the script (`if`, `for`, `while`, `with`,
    /// `try`). A Tensor-language `let` ends with its block, a Python name
    /// does not: each name the statement assigns is declared before it by
    /// a `var` that holds the name's value so far (unknown if it has none),
    /// and assigned inside. After `x = a; if c: x = b`, `x` is either.
    fn script_compound(&mut self, node: Node<'_>) -> Vec<Stmt> {
        let at = tensorfit_base::TextRange::empty(self.range(node).start as usize);
        let mut names = super::locals::locals_of_statement(node, self.text);
        // A name a change inside may forget through another name.
        let changed = objects_changed_by(node, self.text, SHARED_VALUE_CHANGES);
        for name in reached_through_aliases(&self.scope.aliases, changed).into_keys() {
            if self.context.script_names.contains(&name) && !names.contains(&name) {
                names.push(name);
            }
        }
        let mut stmts: Vec<Stmt> = names
            .iter()
            .map(|name| {
                let so_far = Expr {
                    kind: ExprKind::Name(name.clone()),
                    range: at,
                };
                let declared = Name {
                    text: name.clone(),
                    range: at,
                };
                super::init::declare_with(declared, Some(so_far), at)
            })
            .collect();
        self.scope.script_vars = Some(names.into_iter().collect());
        stmts.extend(self.statement(node));
        self.scope.script_vars = None;
        stmts
    }

    /// Whether a name assigned here is declared by this assignment (a
    /// `let`) rather than by a hoisted `var` (see `locals`).
    fn declares_with_let(&self, name: &str) -> bool {
        match self.scope.kind {
            // The script's statements are lowered one by one: each
            // assignment declares the name again, as a new `let`, but in
            // a compound statement (see `script_compound`).
            ScopeKind::Script => !self
                .scope
                .script_vars
                .as_ref()
                .is_some_and(|vars| vars.contains(name)),
            ScopeKind::Function | ScopeKind::Init => {
                !self.scope.params.contains(name) && self.scope.locals.is_let(name)
            }
        }
    }

    pub(super) fn let_temporary(
        &mut self,
        name: &str,
        value: Expr,
        range: tensorfit_base::TextRange,
    ) -> Stmt {
        Stmt {
            kind: StmtKind::Let {
                pattern: Pattern::Name(Name {
                    text: name.to_owned(),
                    range: tensorfit_base::TextRange::empty(range.start as usize),
                }),
                ty: None,
                value,
            },
            range,
        }
    }

    pub(super) fn read_temporary(&self, name: &str, range: tensorfit_base::TextRange) -> Expr {
        Expr {
            kind: ExprKind::Name(name.to_owned()),
            range: tensorfit_base::TextRange::empty(range.start as usize),
        }
    }

    /// `if`/`elif`/`else`. A branch that ends in `raise` is a guard: the
    /// program goes on only where its condition is false
    /// (`if d % h != 0: raise ValueError(...)` is `assert !(d % h != 0)`).
    fn if_chain(
        &mut self,
        condition: Node<'_>,
        consequence: Node<'_>,
        alternatives: &[Node<'_>],
        range: tensorfit_base::TextRange,
    ) -> Vec<Stmt> {
        let cond = self.expr(condition);
        let (next, rest) = match alternatives.split_first() {
            Some((next, rest)) => (Some(*next), rest),
            None => (None, &[][..]),
        };
        let else_raises = next.is_some_and(|n| {
            n.kind() == "else_clause" && child_by_field(n, "body").is_some_and(ends_in_raise)
        });
        if ends_in_raise(consequence) {
            let mut stmts = vec![self.guard(negate(cond), range)];
            stmts.extend(self.alternative_statements(next, rest));
            return stmts;
        }
        if else_raises {
            let mut stmts = vec![self.guard(cond, range)];
            stmts.extend(self.block_statements(consequence));
            return stmts;
        }
        let then_branch = self.block(consequence);
        let else_branch = match next {
            None => None,
            Some(clause) if clause.kind() == "else_clause" => {
                child_by_field(clause, "body").map(|body| ElseBranch::Block(self.block(body)))
            }
            Some(clause) => {
                let stmts = self.alternative_statements(Some(clause), rest);
                Some(ElseBranch::Block(Block {
                    stmts,
                    range: self.range(clause),
                }))
            }
        };
        vec![Stmt {
            kind: StmtKind::If {
                condition: cond,
                then_branch,
                else_branch,
            },
            range,
        }]
    }

    /// What runs when the condition before `clause` is false.
    fn alternative_statements(&mut self, clause: Option<Node<'_>>, rest: &[Node<'_>]) -> Vec<Stmt> {
        let Some(clause) = clause else {
            return Vec::new();
        };
        match clause.kind() {
            "elif_clause" => {
                let (Some(condition), Some(consequence)) = (
                    child_by_field(clause, "condition"),
                    child_by_field(clause, "consequence"),
                ) else {
                    return Vec::new();
                };
                // A long `elif` chain nests: bounded like any nesting.
                let range = self.range(clause);
                self.nested(|this| this.if_chain(condition, consequence, rest, range))
            }
            "else_clause" => child_by_field(clause, "body")
                .map(|body| self.block_statements(body))
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    fn guard(&self, condition: Expr, range: tensorfit_base::TextRange) -> Stmt {
        Stmt {
            kind: StmtKind::Assert {
                condition,
                message: None,
                guard: true,
            },
            range,
        }
    }

    /// `for i in range(...)` is a counted loop; any other `for` runs an
    /// unknown number of times with an unknown loop variable, as does a
    /// loop that can `break` or `continue`.
    fn for_statement(&mut self, node: Node<'_>, range: tensorfit_base::TextRange) -> Vec<Stmt> {
        let (Some(left), Some(right), Some(body)) = (
            child_by_field(node, "left"),
            child_by_field(node, "right"),
            child_by_field(node, "body"),
        ) else {
            return Vec::new();
        };
        let mut stmts = Vec::new();
        let counted = (left.kind() == "identifier" && !jumps_out(body))
            .then(|| self.range_bounds(right))
            .flatten();
        match counted {
            Some((start, end)) => {
                let body = self.block(body);
                stmts.push(Stmt {
                    kind: StmtKind::For {
                        variable: Some(self.name(left)),
                        start,
                        end,
                        body,
                    },
                    range,
                });
            }
            None if !jumps_out(body) && self.is_sequence_loop(left, right) => {
                stmts.extend(self.for_each(left, right, body, range));
            }
            None => {
                // The iterable is still checked.
                let iterable = self.expr(right);
                stmts.push(Stmt {
                    kind: StmtKind::Expr(iterable),
                    range,
                });
                let unknown =
                    self.unknown(left, "it is the variable of a loop that is not counted");
                let mut inner = self.assign(left, unknown, range);
                inner.extend(self.block_statements(body));
                let condition = self.unknown(node, "the loop's number of iterations is not known");
                stmts.push(Stmt {
                    kind: StmtKind::While {
                        condition,
                        body: Block {
                            stmts: inner,
                            range: self.range(body),
                        },
                    },
                    range,
                });
            }
        }
        if let Some(alternative) = child_by_field(node, "alternative") {
            if let Some(body) = child_by_field(alternative, "body") {
                stmts.extend(self.block_statements(body));
            }
        }
        stmts
    }

    /// Whether `for left in right` can run as a counted loop over
    /// `right`'s items: a plain target, or `i, item` of `enumerate(...)`.
    fn is_sequence_loop(&self, left: Node<'_>, right: Node<'_>) -> bool {
        match self.enumerated(right) {
            Some(_) => {
                matches!(left.kind(), "pattern_list" | "tuple_pattern")
                    && named_children(left).len() == 2
            }
            None => true,
        }
    }

    /// `for item in items` (a `ModuleList`, a list, a tuple, a tensor's
    /// rows) as a counted loop over the indices: `items[i]` at each
    /// iteration, exact when the length is known (PYTHON.md §2).
    fn for_each(
        &mut self,
        left: Node<'_>,
        right: Node<'_>,
        body: Node<'_>,
        range: tensorfit_base::TextRange,
    ) -> Vec<Stmt> {
        let at = tensorfit_base::TextRange::empty(range.start as usize);
        let enumerated = self.enumerated(right);
        let iterable = enumerated.unwrap_or(right);
        let iterable = self
            .iterated_self(iterable)
            .unwrap_or_else(|| self.expr(iterable));
        let items = self.temporary();
        let index = self.temporary();
        let name = |text: &str| Expr {
            kind: ExprKind::Name(text.to_owned()),
            range: at,
        };
        let item = Expr {
            kind: ExprKind::Subscript {
                value: Box::new(name(&items)),
                indices: vec![name(&index)],
            },
            range: self.range(left),
        };
        let mut inner = Vec::new();
        match enumerated {
            Some(_) => {
                let targets = named_children(left);
                inner.extend(self.assign(targets[0], name(&index), range));
                inner.extend(self.assign(targets[1], item, range));
            }
            None => inner.extend(self.assign(left, item, range)),
        }
        inner.extend(self.block_statements(body));
        let body = Block {
            stmts: inner,
            range: self.range(body),
        };
        vec![
            self.let_temporary(&items, iterable, range),
            over_indices(&items, index, body, range),
        ]
    }

    /// `enumerate(items)`: `items`.
    pub(super) fn enumerated<'n>(&self, iterable: Node<'n>) -> Option<Node<'n>> {
        if !self.is_call_to(iterable, "enumerate") {
            return None;
        }
        let args = named_children(child_by_field(iterable, "arguments")?);
        match args.as_slice() {
            [only] if only.kind() != "keyword_argument" && only.kind() != "list_splat" => {
                Some(*only)
            }
            _ => None,
        }
    }

    /// Whether `node` calls the builtin `name` (not shadowed by a local).
    pub(super) fn is_call_to(&self, node: Node<'_>, name: &str) -> bool {
        node.kind() == "call"
            && child_by_field(node, "function").is_some_and(|f| {
                f.kind() == "identifier" && self.text(f) == name && !self.is_bound(f)
            })
    }

    /// `range(n)` or `range(a, b)`: the bounds.
    pub(super) fn range_bounds(&mut self, iterable: Node<'_>) -> Option<(Expr, Expr)> {
        if iterable.kind() != "call" {
            return None;
        }
        let function = child_by_field(iterable, "function")?;
        if function.kind() != "identifier"
            || self.text(function) != "range"
            || self.is_bound(function)
        {
            return None;
        }
        let args = named_children(child_by_field(iterable, "arguments")?);
        if !args.iter().all(|a| is_plain_argument(*a)) {
            return None;
        }
        match args.as_slice() {
            [end] => {
                let zero = Expr {
                    kind: ExprKind::Int(0),
                    range: tensorfit_base::TextRange::empty(self.range(*end).start as usize),
                };
                Some((zero, self.expr(*end)))
            }
            [start, end] => Some((self.expr(*start), self.expr(*end))),
            _ => None,
        }
    }

    /// Every name a statement assigns, set to an unknown value.
    /// A statement whose body is not lowered (a `try`, a `with` that
    /// catches errors), seen from after it: each local it assigns, or may
    /// change in place (an item or attribute set, a method called, an
    /// argument of a call), is unknown.
    fn forget_changed_locals(&mut self, node: Node<'_>, why: &str) -> Vec<Stmt> {
        let range = self.range(node);
        let mut stmts = Vec::new();
        let assigned = super::locals::locals_of_statement(node, self.text)
            .into_iter()
            .filter(|name| {
                self.scope.kind == ScopeKind::Script || self.scope.locals.all.contains(name)
            });
        let is_self = |name: &String| self.scope.self_name.as_ref() == Some(name);
        let changed = roots_changed_by(node, self.text, ANY_CHANGE)
            .into_iter()
            .filter(|name| self.is_local_name(name) && !is_self(name));
        // Each name once, in order of first assignment or change.
        let mut names: Vec<String> = Vec::new();
        for name in assigned.chain(changed) {
            if !names.contains(&name) {
                names.push(name);
            }
        }
        for name in names {
            let value = Expr {
                kind: ExprKind::Unknown(format!("`{name}`: {why}")),
                range,
            };
            let target = Name {
                text: name,
                range: tensorfit_base::TextRange::empty(range.start as usize),
            };
            stmts.push(self.set_name(target, value, range));
        }
        // A `return` inside (`except TimeoutExpired: return Result(timeout=
        // True)` in nanochat's sandbox) may be where the function ends:
        // `if <unknown> { return <unknown> }`, never the code after it
        // alone.
        if self.scope.kind == ScopeKind::Function && leaves(node, true) {
            let at = tensorfit_base::TextRange::empty(range.start as usize);
            let unknown = |why: &str| Expr {
                kind: ExprKind::Unknown(why.to_owned()),
                range: at,
            };
            let returns = Stmt {
                kind: StmtKind::Return(Some(unknown("what the unchecked block returns"))),
                range: at,
            };
            stmts.push(Stmt {
                kind: StmtKind::If {
                    condition: unknown("whether the unchecked block returns"),
                    then_branch: Block {
                        stmts: vec![returns],
                        range,
                    },
                    else_branch: None,
                },
                range,
            });
        }
        stmts
    }
}

/// Context managers that expect or swallow an error raised in their body,
/// by their last name (`pytest.raises`, `self.assertRaises`,
/// `contextlib.suppress`).
const CATCHING_CONTEXTS: &[&str] = &["raises", "assertRaises", "assertRaisesRegex", "suppress"];

/// Whether one of a `with` statement's context managers is a call of one
/// of [`CATCHING_CONTEXTS`].
pub(super) fn catches_exceptions(with: Node<'_>, text: &str) -> bool {
    let body = child_by_field(with, "body");
    named_children(with)
        .into_iter()
        .filter(|clause| Some(*clause) != body)
        .flat_map(super::syntax::descendants)
        .filter(|n| n.kind() == "call")
        .filter_map(|call| child_by_field(call, "function"))
        .any(|function| {
            let name = &text[function.byte_range()];
            CATCHING_CONTEXTS.contains(&name.rsplit('.').next().unwrap_or(name))
        })
}

/// Whether a block always raises: its last statement is `raise` and
/// nothing before it can leave the block another way. `if r == "pt":
/// return t` ahead of the `raise` makes the block a branch, not a guard.
fn ends_in_raise(block: Node<'_>) -> bool {
    named_children(block)
        .last()
        .is_some_and(|last| last.kind() == "raise_statement")
        && !leaves(block, false)
}

/// Whether `node` can leave the block it is in by a `return`, or (where
/// `inside_loop` is false) by a `break`/`continue` of a loop around it; a
/// nested function's or loop's own do not count. `inside_loop` true asks
/// only for a `return` of the function.
fn leaves(node: Node<'_>, inside_loop: bool) -> bool {
    let mut stack = vec![(node, inside_loop)];
    while let Some((node, in_loop)) = stack.pop() {
        match node.kind() {
            "return_statement" => return true,
            "break_statement" | "continue_statement" if !in_loop => return true,
            "function_definition" | "class_definition" | "lambda" => {}
            "for_statement" | "while_statement" => {
                // Only the loop's body is inside it: its `else` is not.
                let body = child_by_field(node, "body");
                stack.extend(
                    named_children(node)
                        .into_iter()
                        .map(|child| (child, in_loop || Some(child) == body)),
                )
            }
            _ => stack.extend(
                named_children(node)
                    .into_iter()
                    .map(|child| (child, in_loop)),
            ),
        }
    }
    false
}

/// Whether a loop body can leave an iteration early (not counting loops
/// nested in it, whose `break` is their own).
fn jumps_out(body: Node<'_>) -> bool {
    let mut stack = vec![body];
    let mut cursor = body.walk();
    while let Some(node) = stack.pop() {
        match node.kind() {
            "break_statement" | "continue_statement" => return true,
            "for_statement" | "while_statement" | "function_definition" | "class_definition" => {}
            _ => each_named_child(&mut cursor, node, |child| stack.push(child)),
        }
    }
    false
}

fn negate(condition: Expr) -> Expr {
    let range = condition.range;
    Expr {
        kind: ExprKind::Unary {
            op: UnaryOp::Not,
            operand: Box::new(condition),
        },
        range,
    }
}

/// `for index in 0..items.__len__() { body }`: a loop over the positions
/// of the sequence held in the local `items`.
pub(super) fn over_indices(
    items: &str,
    index: String,
    body: Block,
    range: tensorfit_base::TextRange,
) -> Stmt {
    let at = tensorfit_base::TextRange::empty(range.start as usize);
    let sequence = Expr {
        kind: ExprKind::Name(items.to_owned()),
        range: at,
    };
    Stmt {
        kind: StmtKind::For {
            variable: Some(Name {
                text: index,
                range: at,
            }),
            start: Expr {
                kind: ExprKind::Int(0),
                range: at,
            },
            end: super::expressions::method_call(sequence, "__len__", at),
            body,
        },
        range,
    }
}

/// `target = builtin(target, args...)`: a value changed in place, as the
/// analysis follows it ([`Builtin::SetItem`], [`Builtin::SetAttr`],
/// [`Builtin::AddModule`], ...).
pub(super) fn reassigned(
    target: Expr,
    builtin: Builtin,
    args: Vec<Expr>,
    range: tensorfit_base::TextRange,
) -> Stmt {
    let mut all = vec![target.clone()];
    all.extend(args);
    Stmt {
        kind: StmtKind::Assign {
            target,
            op: AssignOp::Assign,
            value: super::expressions::builtin_call(builtin, all, range),
        },
        range,
    }
}
