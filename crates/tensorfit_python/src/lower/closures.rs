//! Functions made inside a body: `lambda` and a `def` in a function (or in
//! a compound statement of the script), lowered as an expression that makes
//! the function (`ExprKind::Closure`), a nested `def` as the assignment of
//! one to its name.
//!
//! Python reads a free name of a function's body when the body runs, from
//! the scope that made the function. The lowering passes each such name of
//! the scope around as a hidden parameter, with the value it has when the
//! function is made: the same value wherever the name keeps it from then
//! on — a parameter never assigned, or a name assigned once, at the top of
//! the body, before the function is made. Any other is unknown to the
//! function (a loop variable, a name assigned again), as is a name another
//! function changes (`changed_names`). What the function reads from the
//! module (classes, functions, imports, constants) it reads as any function
//! does. The script's names are the module's globals, which a function
//! reads when it runs too: a function the script makes takes them as a
//! function takes its maker's locals. Defaults are evaluated in the scope around, as Python evaluates
//! them where the function is made.

use std::collections::BTreeSet;
use std::sync::Arc;

use tensorfit_base::TextRange;
use tensorfit_syntax::ast::*;
use tree_sitter::Node;

use super::syntax::{child_by_field, decorators, definition_of, descendants, named_children};
use super::{locals, Lowerer, Scope, ScopeKind};
use crate::changed_names::{roots_changed_by, CLOSURE_CHANGES, MODULE_FUNCTION_CHANGES};

/// Between a closure's maker and its name in its qualified name, as
/// Python's `__qualname__` writes it.
const LOCALS: &str = "<locals>";

impl Lowerer<'_> {
    /// `lambda params: body`.
    pub(super) fn lambda(&mut self, node: Node<'_>) -> Expr {
        let Some(body) = child_by_field(node, "body") else {
            return self.unknown(node, "the lambda has no body");
        };
        self.closure(node, body)
    }

    /// A `def` inside a body (decorated or not): its name is assigned the
    /// function it makes.
    pub(super) fn nested_function(&mut self, node: Node<'_>) -> Vec<Stmt> {
        let definition = definition_of(node);
        let (Some(name), Some(body)) = (
            child_by_field(definition, "name"),
            child_by_field(definition, "body"),
        ) else {
            return Vec::new();
        };
        let value = if !decorators(node, self.text).is_empty() {
            self.unknown(
                node,
                "a decorated function defined in a body is not followed",
            )
        } else if makes_generator(body) {
            self.unknown(
                node,
                "calling a generator function makes a generator, not modelled",
            )
        } else if definition.kind() != "function_definition" {
            self.unknown(node, "the definition is not modelled")
        } else {
            self.closure(definition, body)
        };
        let range = self.range(node);
        vec![self.set_name(self.name(name), value, range)]
    }

    /// The function that `node` (a `lambda` or a `def`) makes, with `body`
    /// its body (an expression or a block).
    fn closure(&mut self, node: Node<'_>, body: Node<'_>) -> Expr {
        let range = self.range(node);
        // Defaults and captures are read here, in the scope around.
        let mut params = self.typed_parameters(node, false);
        let own: Vec<String> = params.iter().map(|p| p.name.text.clone()).collect();
        let captures = self.captures(node, body, &own);
        params.extend(captures.iter().map(|capture| Param {
            is_self: false,
            variadic: false,
            collects: None,
            name: capture.name.clone(),
            ty: None,
            default: None,
            range: capture.name.range,
        }));
        let mut names = own;
        names.extend(captures.iter().map(|c| c.name.text.clone()));
        let saved = self.enter_closure(Scope::of_body(
            ScopeKind::Function,
            body,
            self.text,
            names,
            None,
        ));
        let block = match body.kind() {
            "block" => self.function_body(body, Vec::new()),
            _ => self.returned(body),
        };
        self.leave_closure(saved);
        let name = Name {
            text: qualified_name(node, self.text),
            range: child_by_field(node, "name").map_or(range, |n| self.range(n)),
        };
        let function = Function {
            name: Some(name),
            is_extern: false,
            params,
            return_type: None,
            where_clauses: Vec::new(),
            body: Some(block),
            range,
        };
        Expr {
            kind: ExprKind::Closure(Arc::new(Closure { function, captures })),
            range,
        }
    }

    /// A lambda's body: the statements its expression needs, then the
    /// `return` of its value.
    fn returned(&mut self, body: Node<'_>) -> Block {
        let range = self.range(body);
        let outer = self.pending.replace(Vec::new());
        let value = self.expr(body);
        let mut stmts = std::mem::replace(&mut self.pending, outer).unwrap_or_default();
        stmts.push(Stmt {
            kind: StmtKind::Return(Some(value)),
            range,
        });
        Block { stmts, range }
    }

    /// The names of the scope around that the function's body (its nested
    /// functions included) reads, in order of first reading, each with its
    /// value for the function (see the module's comment).
    fn captures(&mut self, node: Node<'_>, body: Node<'_>, own: &[String]) -> Vec<Capture> {
        let own_locals = match body.kind() {
            "block" => locals::locals_of(body, self.text, own).all,
            _ => BTreeSet::new(),
        };
        let mut seen = BTreeSet::new();
        let mut captures = Vec::new();
        for read in descendants(body).filter(|n| n.kind() == "identifier") {
            let name = self.text(read);
            if own.iter().any(|p| p == name) || own_locals.contains(name) {
                continue;
            }
            if !self.is_local_name(name) || !seen.insert(name.to_owned()) {
                continue;
            }
            let at_maker = TextRange::empty(self.range(node).start as usize);
            let (value, bound_at) = match self.kept_from(name, node) {
                // A call after the function is made may change a list or
                // object it is given, never a number or string.
                Some(kept) if kept.passed_later => {
                    let taken = self.taken(read);
                    let range = taken.range;
                    let value =
                        super::expressions::builtin_call(Builtin::IfImmutable, vec![taken], range);
                    (value, kept.bound_at)
                }
                Some(kept) => (self.taken(read), kept.bound_at),
                None => {
                    let why = format!(
                        "`{name}` may change before the function runs (Python reads it then)"
                    );
                    (self.unknown(read, &why), at_maker)
                }
            };
            captures.push(Capture {
                name: Name {
                    text: name.to_owned(),
                    range: bound_at,
                },
                value: Expr {
                    range: at_maker,
                    ..value
                },
            });
        }
        captures
    }

    /// The value of a captured name where the function is made: read as
    /// the scope around reads it (`self` of a method, a name another
    /// function changes unknown). The object `__init__` is making is not
    /// the instance yet.
    fn taken(&mut self, read: Node<'_>) -> Expr {
        let is_self = self.scope.self_name.as_deref() == Some(self.text(read));
        if is_self && self.scope.kind == ScopeKind::Init {
            return self.unknown(read, "the object `__init__` makes is not complete yet");
        }
        self.identifier(read)
    }

    /// Where the local `name` of the scope around is bound, if it has,
    /// when the function `maker` makes is called, the value it has where it
    /// is made: a parameter never assigned, or a name one statement at the
    /// top of the body binds once, before the function is made; and nothing
    /// after that changes it in place (`layers.append(m)`). A note on the
    /// value (`lin` is constructed here) points there.
    fn kept_from(&self, name: &str, maker: Node<'_>) -> Option<Kept> {
        let at_maker = TextRange::empty(self.range(maker).start as usize);
        if self.scope.kind == ScopeKind::Script {
            return self.kept_in_script(name, maker);
        }
        let function = enclosing_function(maker);
        let bound_at = self.bound_once_before(name, maker, function)?;
        let body = function.and_then(|f| child_by_field(f, "body"));
        let passed_later = match body {
            Some(body) if body.kind() == "block" => {
                match changed_after(body, maker, name, self.text) {
                    LaterChange::InPlace => return None,
                    LaterChange::Passed => true,
                    LaterChange::None => false,
                }
            }
            _ => false,
        };
        Some(Kept {
            bound_at: bound_at.unwrap_or(at_maker),
            passed_later,
        })
    }

    /// Whether `name` is bound once before `maker` (see [`Self::kept_from`]),
    /// with where, if that is in the text.
    fn bound_once_before(
        &self,
        name: &str,
        maker: Node<'_>,
        function: Option<Node<'_>>,
    ) -> Option<Option<TextRange>> {
        if self.scope.self_name.as_deref() == Some(name) {
            return Some(None);
        }
        let assigned = self.scope.locals.all.contains(name);
        if self.scope.params.contains(name) {
            if assigned {
                return None;
            }
            let declared = function
                .and_then(|f| child_by_field(f, "parameters"))
                .and_then(|list| self.first_named(list, name));
            return Some(declared);
        }
        let body = function.and_then(|f| child_by_field(f, "body"))?;
        let binding: Vec<Node<'_>> = named_children(body)
            .into_iter()
            .filter(|statement| {
                locals::locals_of_statement(*statement, self.text)
                    .iter()
                    .any(|n| n == name)
            })
            .collect();
        let [statement] = binding.as_slice() else {
            return None;
        };
        let once = self.scope.locals.is_let(name)
            || matches!(
                statement.kind(),
                "function_definition" | "decorated_definition"
            );
        (once && statement.end_byte() <= maker.start_byte())
            .then(|| self.first_named(*statement, name))
    }

    /// [`Self::kept_from`] for a function the script makes: the module's
    /// names are its globals, which keep their value where the script
    /// binds them once, by a plain `name = value` (a function that assigns
    /// one after `global` makes it unknown, as `changed_names` finds). Made
    /// before that assignment, the function takes no value: the name is
    /// not bound yet where it is made.
    fn kept_in_script(&self, name: &str, maker: Node<'_>) -> Option<Kept> {
        self.context.script_bound_once.contains(name).then(|| Kept {
            bound_at: TextRange::empty(self.range(maker).start as usize),
            passed_later: false,
        })
    }

    /// The range of the first identifier `name` in `node`.
    fn first_named(&self, node: Node<'_>, name: &str) -> Option<TextRange> {
        descendants(node)
            .find(|n| n.kind() == "identifier" && self.text(*n) == name)
            .map(|n| self.range(n))
    }

    /// Enters a closure's body with `scope`, setting aside what the body
    /// around is in the middle of (a `__init__`'s fields, an inlined
    /// helper's result, pending statements).
    fn enter_closure(&mut self, scope: Scope) -> SetAside {
        SetAside {
            scope: std::mem::replace(&mut self.scope, scope),
            init_fields: self.init_fields.take(),
            pending: self.pending.take(),
            helper_result: self.helper_result.take(),
            super_init: self.super_init.take(),
            builder_super_init: self.builder_super_init.take(),
            registers: self.registers.take(),
            derived: self.derived.take(),
            comprehension_clauses_total: std::mem::take(&mut self.comprehension_clauses_total),
        }
    }

    fn leave_closure(&mut self, saved: SetAside) {
        self.scope = saved.scope;
        self.init_fields = saved.init_fields;
        self.pending = saved.pending;
        self.helper_result = saved.helper_result;
        self.super_init = saved.super_init;
        self.builder_super_init = saved.builder_super_init;
        self.registers = saved.registers;
        self.derived = saved.derived;
        self.comprehension_clauses_total = saved.comprehension_clauses_total;
    }
}

/// A captured name that keeps its value ([`Lowerer::kept_from`]).
struct Kept {
    /// Where it is bound.
    bound_at: TextRange,
    /// A call after the function is made is given it.
    passed_later: bool,
}

/// What the statements of `body` that end after `maker` starts do to
/// `name`: change it in place (a changing method, an item or attribute
/// set), pass it to a call, or neither.
#[derive(PartialEq, Eq)]
enum LaterChange {
    InPlace,
    Passed,
    None,
}

fn changed_after(body: Node<'_>, maker: Node<'_>, name: &str, text: &str) -> LaterChange {
    let later: Vec<Node<'_>> = named_children(body)
        .into_iter()
        .filter(|statement| statement.end_byte() > maker.start_byte())
        .collect();
    let changes = |statement: Node<'_>, changes| {
        roots_changed_by(statement, text, changes)
            .iter()
            .any(|root| root == name)
    };
    if later.iter().any(|s| changes(*s, MODULE_FUNCTION_CHANGES)) {
        return LaterChange::InPlace;
    }
    match later.iter().any(|s| changes(*s, CLOSURE_CHANGES)) {
        true => LaterChange::Passed,
        false => LaterChange::None,
    }
}

/// What the lowering of a body is in the middle of while a closure's body
/// is lowered.
struct SetAside {
    scope: Scope,
    init_fields: Option<Vec<super::init::InitField>>,
    pending: Option<Vec<Stmt>>,
    helper_result: Option<String>,
    super_init: Option<Expr>,
    builder_super_init: Option<Expr>,
    registers: Option<super::registered::ContainerKind>,
    derived: Option<super::derived::Derived>,
    comprehension_clauses_total: usize,
}

/// The function or lambda around `node`, if any.
fn enclosing_function(node: Node<'_>) -> Option<Node<'_>> {
    let mut current = node.parent();
    while let Some(parent) = current {
        match parent.kind() {
            "function_definition" | "lambda" => return Some(parent),
            "class_definition" | "module" => return None,
            _ => current = parent.parent(),
        }
    }
    None
}

/// Python's qualified name of the function `node` makes: the classes and
/// functions around it, `<locals>` after each function
/// (`Net.__init__.<locals>.<lambda>`).
fn qualified_name(node: Node<'_>, text: &str) -> String {
    let own_name = |node: Node<'_>| match node.kind() {
        "lambda" => Some("<lambda>".to_owned()),
        _ => child_by_field(node, "name").map(|n| super::syntax::text_of(n, text).to_owned()),
    };
    let mut parts = vec![own_name(node).unwrap_or_else(|| "<lambda>".to_owned())];
    let (mut child, mut current) = (node, node.parent());
    while let Some(parent) = current {
        // A default or decorator is evaluated in the scope around the
        // function, not in it.
        let in_body = child_by_field(parent, "body") == Some(child);
        match parent.kind() {
            "function_definition" | "lambda" if in_body => {
                parts.push(LOCALS.to_owned());
                parts.extend(own_name(parent));
            }
            "class_definition" if in_body => parts.extend(own_name(parent)),
            _ => {}
        }
        (child, current) = (parent, parent.parent());
    }
    parts.reverse();
    parts.join(".")
}

/// Whether a function body yields (not counting the functions inside it):
/// calling it makes a generator.
fn makes_generator(body: Node<'_>) -> bool {
    let mut stack = vec![body];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "yield" => return true,
            "function_definition" | "lambda" | "class_definition" => {}
            _ => stack.extend(named_children(node)),
        }
    }
    false
}
