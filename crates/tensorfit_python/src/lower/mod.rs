//! Lowering of a tree-sitter-python tree into the Tensor language's syntax
//! tree (PYTHON.md §1–§5).
//!
//! Every function accepts any node, `ERROR` ones included, and gives an
//! `Unknown` expression (or nothing, for a statement) where the text is not
//! what it reads: the analysis then knows nothing about that value and
//! says nothing about it.

mod closures;
mod comprehensions;
mod containers;
mod derived;
mod dynamic_attributes;
mod enumeration;
mod expressions;
pub(crate) mod init;
pub(crate) mod locals;
mod registered;
mod sequential_builder;
mod statements;
pub(crate) mod syntax;
mod types;

use std::collections::{BTreeMap, BTreeSet};

use tensorfit_base::TextRange;
use tensorfit_syntax::ast::*;
use tree_sitter::Node;

use crate::changed_names::{aliases_of, changed_by_closures, changed_through, Alias};
use crate::class_functions::{is_classmethod, own_class_functions, qualified};
use crate::context::ModuleContext;
use crate::outline::constant_name;
pub(crate) use containers::IN_PLACE_METHODS;
use locals::Locals;
use syntax::{child_by_field, decorated, decorators, definition_of, named_children, text_of};

/// How deeply expressions and blocks are followed; deeper text is unknown,
/// so that no later (recursive) pass runs out of stack.
const MAX_DEPTH: u32 = tensorfit_syntax::MAX_NESTING;

pub(crate) struct Lowerer<'t> {
    text: &'t str,
    context: &'t ModuleContext,
    placement: &'t dyn Fn(usize) -> Option<usize>,
    /// Added to the text's offsets (see `tensorfit_syntax::Placement`).
    shift: isize,
    /// Functions are lowered without their bodies (see
    /// [`Lowerer::signature`]).
    signatures_only: bool,
    holes: Vec<TextRange>,
    depth: u32,
    scope: Scope,
    /// Temporaries made for destructuring, numbered per piece.
    temporaries: u32,
    /// In `__init__`: the fields assigned so far, in order.
    init_fields: Option<Vec<init::InitField>>,
    /// Statements an expression needs run before the statement it is in
    /// (an inlined helper, a comprehension's loop); `None` where there is
    /// no statement to put them before.
    pending: Option<Vec<Stmt>>,
    /// The helper methods being inlined into `__init__`, innermost last.
    inlining: Vec<String>,
    /// In an inlined helper: the temporary its `return` assigns.
    helper_result: Option<String>,
    /// The scope of each helper inlined so far, by its body's node:
    /// ResNet's `_make_layer` is inlined at four calls, and a scope is
    /// four walks of its body.
    helper_scopes: std::collections::HashMap<usize, Scope>,
    /// In a Sequential builder's `__init__` (see `sequential_builder`):
    /// what its `super().__init__(...)` calls.
    super_init: Option<Expr>,
    /// What `super_init` is while the next function lowered is a
    /// Sequential builder's `__init__` (a function nested in it builds
    /// nothing).
    builder_super_init: Option<Expr>,
    /// In a class derived from `nn.ModuleDict`, `nn.Sequential` or
    /// `nn.ModuleList` (see `registered`): which.
    registers: Option<registered::ContainerKind>,
    /// How many clauses the comprehension being lowered has (its first
    /// iterable is read where the comprehension is, the others inside its
    /// loops).
    comprehension_clauses_total: usize,
    /// In a class derived from another of the file (see `derived`).
    derived: Option<derived::Derived>,
}

/// What names mean where the lowering is.
#[derive(Clone, Default)]
struct Scope {
    /// The script (top-level statements), a function or method, or a
    /// class's `__init__`.
    kind: ScopeKind,
    /// Parameters and assigned names.
    locals: Locals,
    params: BTreeSet<String>,
    /// The name of a method's first parameter.
    self_name: Option<String>,
    /// In a compound statement of the script (an `if`, a loop): the names
    /// it assigns, declared by `var`s before it (see
    /// `Lowerer::script_compound`).
    script_vars: Option<BTreeSet<String>>,
    /// Locals something other than the statement at hand may change (a
    /// function defined in the scope, a change through another name), with
    /// why: unknown wherever read (`crate::changed_names`).
    changed_elsewhere: BTreeMap<String, String>,
    /// Those of `changed_elsewhere` that a function defined in the scope
    /// only passes to a call, which can change a list, dict or object in
    /// place but no number or string: read as themselves where their value
    /// cannot change (`Builtin::IfImmutable`).
    only_passed_elsewhere: BTreeSet<String>,
    /// The names that share a value with another name (`inner =
    /// cfg.model`): a change through one forgets the other
    /// (`Lowerer::changed_through_aliases`).
    aliases: Vec<Alias>,
}

impl Scope {
    /// The scope of a body (`def`, `__init__`, an inlined helper) with
    /// these parameters: its locals are the parameters and what it assigns.
    fn of_body(
        kind: ScopeKind,
        body: Node<'_>,
        text: &str,
        params: Vec<String>,
        self_name: Option<String>,
    ) -> Scope {
        let mut locals = locals::locals_of(body, text, &params);
        let aliases = aliases_of(body, text);
        let (changed_elsewhere, only_passed_elsewhere) = changed_by_closures(body, text);
        // A name a change through another may forget, in a branch or loop
        // too, is a variable of the whole body.
        for name in changed_through(&aliases, body, text) {
            let hoisted = locals.hoisted.contains(&name);
            if locals.all.contains(&name) && !params.contains(&name) && !hoisted {
                locals.hoisted.push(name);
            }
        }
        Scope {
            kind,
            locals,
            aliases,
            params: params.into_iter().collect(),
            changed_elsewhere,
            only_passed_elsewhere,
            self_name,
            script_vars: None,
        }
    }
}

#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum ScopeKind {
    #[default]
    Script,
    Function,
    Init,
}

impl<'t> Lowerer<'t> {
    pub(crate) fn new(
        text: &'t str,
        context: &'t ModuleContext,
        placement: &'t dyn Fn(usize) -> Option<usize>,
        shift: isize,
    ) -> Self {
        let mut scope = Scope::default();
        scope.locals.all = context.script_names.clone();
        scope.changed_elsewhere = context.changed_elsewhere.clone();
        scope.aliases = context.script_aliases.clone();
        Lowerer {
            text,
            context,
            placement,
            shift,
            signatures_only: false,
            holes: Vec::new(),
            depth: 0,
            scope,
            temporaries: 0,
            init_fields: None,
            pending: None,
            inlining: Vec::new(),
            helper_result: None,
            helper_scopes: std::collections::HashMap::new(),
            super_init: None,
            builder_super_init: None,
            registers: None,
            comprehension_clauses_total: 0,
            derived: None,
        }
    }

    /// The holes met, sorted.
    pub(crate) fn finish(mut self) -> Vec<TextRange> {
        self.holes.sort();
        self.holes
    }

    fn range(&self, node: Node<'_>) -> TextRange {
        self.span(node.start_byte(), node.end_byte())
    }

    fn span(&self, start: usize, end: usize) -> TextRange {
        let moved = |offset: usize| (offset as isize + self.shift).max(0) as usize;
        TextRange::new(moved(start), moved(end))
    }

    fn text(&self, node: Node<'_>) -> &'t str {
        text_of(node, self.text)
    }

    fn name(&self, node: Node<'_>) -> Name {
        Name {
            text: self.text(node).to_owned(),
            range: self.range(node),
        }
    }

    /// One top-level node of the piece.
    pub(crate) fn top_level(&mut self, node: Node<'_>, file: &mut SourceFile) {
        let definition = definition_of(node);
        match definition.kind() {
            "function_definition" => {
                let function = self.function(definition, &decorators(node, self.text), false);
                file.items.push(Item::Function(function));
            }
            "class_definition" => {
                let name = child_by_field(definition, "name").map(|n| self.text(n).to_owned());
                let is_module = name
                    .as_ref()
                    .is_some_and(|n| self.context.modules.contains(n));
                let is_class = name
                    .as_ref()
                    .is_some_and(|n| self.context.classes.contains(n));
                if let Some(function) = name
                    .as_ref()
                    .and_then(|n| self.sequential_builder(n, definition))
                {
                    file.items.push(Item::Function(function));
                    return;
                }
                let enumeration = name
                    .as_ref()
                    .and_then(|n| self.context.enums.get(n))
                    .copied();
                if let Some(facts) = enumeration {
                    let class = self.enum_class(definition, facts);
                    file.items.push(Item::Struct(class));
                } else if is_module {
                    let module = self.module_class(definition);
                    file.items.push(Item::Struct(module));
                } else if is_class {
                    let class = match decorators(node, self.text).iter().any(|d| is_dataclass(d)) {
                        true => self.dataclass(definition),
                        false => self.module_class(definition),
                    };
                    file.items.push(Item::Struct(class));
                }
                if let Some(name) = name {
                    for (method, member) in own_class_functions(definition, self.text) {
                        let mut function = self.function(
                            definition_of(member),
                            &decorators(member, self.text),
                            false,
                        );
                        if let Some(function_name) = &mut function.name {
                            function_name.text = qualified(&name, &method);
                        }
                        file.items.push(Item::Function(function));
                    }
                }
            }
            "expression_statement" => match constant_name(node, self.text) {
                Some(name) if self.context.constants.contains(&name) => {
                    if let Some(constant) = self.constant(node) {
                        file.items.push(Item::Const(constant));
                    }
                }
                _ => file.script.extend(self.statement(node)),
            },
            "if_statement" if is_main_guard(node, self.text) => {
                if let Some(body) = child_by_field(node, "consequence") {
                    file.script.extend(self.block_statements(body));
                }
            }
            _ => file.script.extend(self.statement(node)),
        }
    }

    /// A top-level function as its callers' analyses declare it: what
    /// [`Self::top_level`] gives, without the body, the range ending where
    /// the body starts (as the database cuts every declaration). Lowering
    /// the bodies of the functions an imported file defines was most of
    /// the lowering of a file that imports torchvision's models; a body is
    /// lowered when an analysis reads it.
    pub(crate) fn signature(&mut self, node: Node<'_>) -> Option<Function> {
        let definition = definition_of(node);
        if definition.kind() != "function_definition" {
            return None;
        }
        self.signatures_only = true;
        let function = self.function(definition, &decorators(node, self.text), false);
        self.signatures_only = false;
        Some(function)
    }

    /// `NAME = value` at the top level, read by functions as a constant.
    fn constant(&mut self, statement: Node<'_>) -> Option<Const> {
        let assignment = named_children(statement).into_iter().next()?;
        let left = child_by_field(assignment, "left")?;
        let right = child_by_field(assignment, "right")?;
        Some(Const {
            name: Some(self.name(left)),
            ty: None,
            value: self.expr(right),
            range: self.range(statement),
        })
    }

    /// A function, or a method when `is_method` (its first parameter is
    /// `self`, whatever it is called).
    fn function(&mut self, node: Node<'_>, decorators: &[&str], is_method: bool) -> Function {
        // The function's range and place are the item's, decorators
        // included, as the outline gives them: the database anchors a
        // summary's offsets inside that range.
        let item = decorated(node);
        let saved_shift = self.shift;
        if let Some(place) = (self.placement)(item.start_byte()) {
            self.shift = place as isize - item.start_byte() as isize;
        }
        let outer_super_init =
            std::mem::replace(&mut self.super_init, self.builder_super_init.take());
        let is_static = decorators.contains(&"staticmethod");
        let has_self = is_method && !is_static;
        // A class method's first parameter is the class, which the caller
        // does not pass: it is a local of unknown value (see
        // `crate::class_functions`).
        let class_parameter = (!is_method && is_classmethod(decorators))
            .then(|| child_by_field(node, "parameters"))
            .flatten()
            .and_then(|list| named_children(list).into_iter().next())
            .filter(|first| first.kind() == "identifier")
            .map(|first| self.name(first));
        let params: Vec<Param> = self
            .typed_parameters(node, has_self)
            .into_iter()
            .skip(usize::from(class_parameter.is_some()))
            .collect();
        // The class, when a call through it passes it (see
        // `CLASS_ARGUMENT`): a hidden parameter before `*args`/`**kwargs`,
        // unknown where no call passes it (`self.from_config(...)`).
        let mut params = params;
        if let Some(name) = &class_parameter {
            let why = format!(
                "`{}`, the class a class method is called on, is not known here",
                name.text
            );
            let at = params
                .iter()
                .position(|p| p.collects.is_some())
                .unwrap_or(params.len());
            params.insert(
                at,
                Param {
                    is_self: false,
                    variadic: false,
                    collects: None,
                    name: Name {
                        text: CLASS_ARGUMENT.to_owned(),
                        range: name.range,
                    },
                    ty: None,
                    default: Some(Expr {
                        kind: ExprKind::Unknown(why),
                        range: name.range,
                    }),
                    range: name.range,
                },
            );
        }
        let mut param_names: Vec<String> = params.iter().map(|p| p.name.text.clone()).collect();
        param_names.extend(class_parameter.iter().map(|name| name.text.clone()));
        let self_name = has_self.then(|| param_names.first().cloned()).flatten();
        let return_type = child_by_field(node, "return_type").and_then(|t| self.annotation(t));
        let block = child_by_field(node, "body");
        let mut range = self.range(item);
        if let Some(block) = block.filter(|_| self.signatures_only) {
            range = TextRange::new(range.start as usize, self.range(block).start as usize);
        }
        let body = block.filter(|_| !self.signatures_only).map(|block| {
            let scope = Scope::of_body(
                ScopeKind::Function,
                block,
                self.text,
                param_names.clone(),
                self_name.clone(),
            );
            let outer = std::mem::replace(&mut self.scope, scope);
            let at = TextRange::empty(self.range(block).start as usize);
            let stmts: Vec<Stmt> = class_parameter
                .iter()
                .map(|name| {
                    let value = Expr {
                        kind: ExprKind::Name(CLASS_ARGUMENT.to_owned()),
                        range: name.range,
                    };
                    init::declare_with(name.clone(), Some(value), at)
                })
                .collect();
            let body = self.function_body(block, stmts);
            self.scope = outer;
            body
        });
        let function = Function {
            name: child_by_field(node, "name").map(|n| self.name(n)),
            is_extern: false,
            params,
            return_type,
            where_clauses: Vec::new(),
            body,
            range,
        };
        self.shift = saved_shift;
        self.super_init = outer_super_init;
        function
    }

    /// A function's body in the scope made for it, after `stmts`: its
    /// hoisted locals' declarations, its statements, and the `return` a
    /// body that runs to its end makes.
    fn function_body(&mut self, block: Node<'_>, mut stmts: Vec<Stmt>) -> Block {
        let at = TextRange::empty(self.range(block).start as usize);
        stmts.extend(self.hoisted_locals(at));
        stmts.extend(self.block_statements(block));
        // Python returns `None` where a body ends; that it contradicts a
        // `-> Tensor` annotation is a type error, the Python server's
        // to report (PYTHON.md §6). Such a path's result is unknown.
        if !matches!(stmts.last().map(|s| &s.kind), Some(StmtKind::Return(_))) {
            let end = TextRange::empty(self.range(block).end as usize);
            stmts.push(Stmt {
                kind: StmtKind::Return(Some(Expr {
                    kind: ExprKind::Unknown(
                        "the function ends without `return`, which returns `None`".to_owned(),
                    ),
                    range: end,
                })),
                range: end,
            });
        }
        Block {
            stmts,
            range: self.range(block),
        }
    }

    /// [`Self::parameters`], a bare one typed as a tensor of unknown rank
    /// (PYTHON.md §4).
    fn typed_parameters(&mut self, node: Node<'_>, has_self: bool) -> Vec<Param> {
        self.parameters(node, has_self)
            .into_iter()
            .map(|(mut param, bare)| {
                if bare {
                    param.ty = Some(Type {
                        kind: TypeKind::Tensor { dims: None },
                        range: TextRange::empty(param.name.range.end as usize),
                    });
                }
                param
            })
            .collect()
    }

    /// The parameters of a `def`, `self` first for a method, each with
    /// whether it is bare (neither annotated nor defaulted: its type is the
    /// caller's to decide). `*args` collects the remaining positional
    /// arguments and `**kwargs` the named ones no other parameter takes
    /// (PYTHON.md §2: what they pass on is followed); the bare `*` and `/`
    /// markers are left out.
    fn parameters(&mut self, node: Node<'_>, has_self: bool) -> Vec<(Param, bool)> {
        let Some(list) = child_by_field(node, "parameters") else {
            return Vec::new();
        };
        let mut params = Vec::new();
        for parameter in named_children(list) {
            // `*args: Any` is a typed parameter around the pattern; the
            // annotation types the items, not the collection.
            let pattern = match parameter.kind() {
                "typed_parameter" => named_children(parameter)
                    .into_iter()
                    .next()
                    .unwrap_or(parameter),
                _ => parameter,
            };
            let collects = match pattern.kind() {
                "list_splat_pattern" => Some(Unpack::Positional),
                "dictionary_splat_pattern" => Some(Unpack::Keywords),
                _ => None,
            };
            if let Some(collects) = collects {
                let Some(name_node) = named_children(pattern)
                    .into_iter()
                    .find(|c| c.kind() == "identifier")
                else {
                    continue;
                };
                let param = Param {
                    is_self: false,
                    variadic: false,
                    collects: Some(collects),
                    name: self.name(name_node),
                    ty: None,
                    default: None,
                    range: self.range(parameter),
                };
                params.push((param, false));
                continue;
            }
            let (name_node, ty, default) = match parameter.kind() {
                "identifier" => (Some(parameter), None, None),
                "typed_parameter" => (
                    named_children(parameter)
                        .into_iter()
                        .find(|c| c.kind() == "identifier"),
                    child_by_field(parameter, "type"),
                    None,
                ),
                "default_parameter" => (
                    child_by_field(parameter, "name").filter(|n| n.kind() == "identifier"),
                    None,
                    child_by_field(parameter, "value"),
                ),
                "typed_default_parameter" => (
                    child_by_field(parameter, "name"),
                    child_by_field(parameter, "type"),
                    child_by_field(parameter, "value"),
                ),
                // `*`, `/`.
                _ => continue,
            };
            let Some(name_node) = name_node else { continue };
            let is_self = has_self && params.is_empty();
            let bare = !is_self && ty.is_none() && default.is_none();
            // An annotation tensorfit does not read is gradual; without
            // one, a literal default gives the type.
            let ty = match (ty, default) {
                _ if is_self => None,
                (Some(ty), _) => self.annotation(ty),
                (None, Some(default)) => self.literal_type(default),
                (None, None) => None,
            };
            let default = default.map(|d| self.expr(d));
            let param = Param {
                is_self,
                variadic: false,
                collects: None,
                name: self.name(name_node),
                ty,
                default,
                range: self.range(parameter),
            };
            params.push((param, bare));
        }
        params
    }

    /// The type of a literal default value.
    fn literal_type(&self, default: Node<'_>) -> Option<Type> {
        let kind = match default.kind() {
            "integer" => TypeKind::Int,
            "true" | "false" => TypeKind::Bool,
            "float" => TypeKind::Float,
            "unary_operator" => {
                return child_by_field(default, "argument").and_then(|a| self.literal_type(a))
            }
            _ => return None,
        };
        Some(Type {
            kind,
            range: TextRange::empty(self.range(default).start as usize),
        })
    }

    /// Runs `lower` one level deeper; past [`MAX_DEPTH`] the text is not
    /// lowered (an empty or default result), so that no later recursive
    /// pass runs out of stack.
    fn nested<R: Default>(&mut self, lower: impl FnOnce(&mut Self) -> R) -> R {
        if self.depth >= MAX_DEPTH {
            return R::default();
        }
        self.depth += 1;
        let result = lower(self);
        self.depth -= 1;
        result
    }

    /// A new name for a temporary, one no Python identifier can be.
    fn temporary(&mut self) -> String {
        self.temporaries += 1;
        format!("{}{}", crate::TEMPORARY_PREFIX, self.temporaries)
    }
}

/// `@dataclass`, `@dataclasses.dataclass(frozen=True)`.
pub(crate) fn is_dataclass(decorator: &str) -> bool {
    let name = decorator.split('(').next().unwrap_or(decorator).trim();
    matches!(name, "dataclass" | "dataclasses.dataclass")
}

/// `if __name__ == "__main__":`
pub(crate) fn is_main_guard(node: Node<'_>, text: &str) -> bool {
    let Some(condition) = child_by_field(node, "condition") else {
        return false;
    };
    let spelled: String = text_of(condition, text)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    matches!(
        spelled.as_str(),
        "__name__==\"__main__\""
            | "__name__=='__main__'"
            | "\"__main__\"==__name__"
            | "'__main__'==__name__"
    )
}

/// The methods of a class: every `def` of its body but `__init__` and
/// class methods, by name, with the definition node (the lowering places
/// methods by its start); a name defined twice by its last definition.
pub(crate) fn methods_of<'t>(class: Node<'t>, text: &str) -> Vec<(String, Node<'t>)> {
    let Some(body) = child_by_field(class, "body") else {
        return Vec::new();
    };
    let all: Vec<(String, Node<'t>)> = named_children(body)
        .into_iter()
        .filter(|member| !is_classmethod(&decorators(*member, text)))
        .map(definition_of)
        .filter(|member| member.kind() == "function_definition")
        .filter_map(|member| {
            let name = text_of(child_by_field(member, "name")?, text);
            (name != "__init__").then(|| (name.to_owned(), member))
        })
        .collect();
    // A name defined again is the last definition's (DenseNet's
    // `@torch.jit._overload_method` stubs before the real `forward`).
    all.iter()
        .enumerate()
        .filter(|(k, (name, _))| !all[k + 1..].iter().any(|(later, _)| later == name))
        .map(|(_, method)| method.clone())
        .collect()
}
