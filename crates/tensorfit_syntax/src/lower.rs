//! Lowering of the tree-sitter tree into the typed syntax tree.
//!
//! Every function here accepts any node, including `ERROR` and `MISSING`
//! ones, and produces a placeholder when the text is not what it expects:
//! syntax errors are reported by `syntax_errors`, not here. What the grammar
//! accepts but the language does not (assigning to `a + b`, a number too
//! large for 64 bits) is diagnosed here.

use std::collections::{BTreeSet, HashMap};
use std::sync::OnceLock;

use tensorfit_base::{Code, Diagnostic, TextRange};
use tree_sitter::{Node, Tree};

use crate::ast::*;

/// A node's child by field name, with the field's id looked up once:
/// tree-sitter finds a field name's id by comparing it with the name of
/// every field of the grammar, which was a tenth of lowering's time.
pub(crate) trait FieldById<'t> {
    fn field(&self, name: &str) -> Option<Node<'t>>;
}

impl<'t> FieldById<'t> for Node<'t> {
    fn field(&self, name: &str) -> Option<Node<'t>> {
        static IDS: OnceLock<HashMap<&'static str, u16>> = OnceLock::new();
        let ids = IDS.get_or_init(|| {
            let language: tree_sitter::Language = tree_sitter_tensor::LANGUAGE.into();
            (1..=language.field_count() as u16)
                .filter_map(|id| Some((language.field_name_for_id(id)?, id)))
                .collect()
        });
        self.child_by_field_id(*ids.get(name)?)
    }
}

/// How deeply expressions and blocks may nest. Deeper text is replaced by a
/// placeholder with a diagnostic, so that no later (recursive) pass can run
/// out of stack on generated or malicious input.
pub const MAX_NESTING: u32 = 256;

pub(crate) struct Lowered {
    pub file: SourceFile,
    pub diagnostics: Vec<Diagnostic>,
    pub names_in_errors: BTreeSet<String>,
}

/// Where an item (a top-level item or a method, given by its range) is to
/// start in the lowered tree, if not where it is in the text.
pub type Placement<'p> = &'p dyn Fn(TextRange) -> Option<usize>;

pub(crate) fn lower(tree: &Tree, text: &str) -> Lowered {
    lower_with(tree, text, None, 0)
}

/// Lowers with every offset moved by `shift`, and the items that
/// `placement` knows moved where it says.
pub(crate) fn lower_with(
    tree: &Tree,
    text: &str,
    placement: Option<Placement<'_>>,
    shift: usize,
) -> Lowered {
    let mut lowerer = Lowerer::new(text, placement, shift as isize);
    let file = lowerer.source_file(tree.root_node());
    lowerer.finish(file)
}

/// Lowers one child of the root (a piece of the file: see
/// [`crate::outline`]) with its offsets moved by `shift`.
pub(crate) fn lower_child(
    child: Node<'_>,
    text: &str,
    placement: Option<Placement<'_>>,
    shift: isize,
) -> Lowered {
    let mut lowerer = Lowerer::new(text, placement, shift);
    let mut file = SourceFile::default();
    lowerer.top_level(child, &mut file);
    lowerer.finish(file)
}

impl<'t> Lowerer<'t> {
    fn new(text: &'t str, placement: Option<Placement<'t>>, shift: isize) -> Self {
        Lowerer {
            text,
            placement,
            shift,
            depth: 0,
            reported_depth: false,
            diagnostics: Vec::new(),
            names_in_errors: BTreeSet::new(),
            holes: Vec::new(),
        }
    }

    fn finish(mut self, mut file: SourceFile) -> Lowered {
        file.holes = std::mem::take(&mut self.holes);
        file.holes.sort();
        Lowered {
            file,
            diagnostics: self.diagnostics,
            names_in_errors: self.names_in_errors,
        }
    }
}

struct Lowerer<'t> {
    text: &'t str,
    placement: Option<Placement<'t>>,
    /// Added to the offsets of the item being lowered (see [`Placement`]).
    shift: isize,
    depth: u32,
    reported_depth: bool,
    diagnostics: Vec<Diagnostic>,
    names_in_errors: BTreeSet<String>,
    holes: Vec<TextRange>,
}

fn named_children<'tree>(node: Node<'tree>) -> Vec<Node<'tree>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|child| !child.is_extra())
        .collect()
}

/// Records the identifiers inside an unparsable region (iteratively: an
/// error region can be arbitrarily deep).
pub(crate) fn identifiers_in(node: Node<'_>, text: &str, names: &mut BTreeSet<String>) {
    let mut cursor = node.walk();
    loop {
        let current = cursor.node();
        if current.kind() == "identifier" && !current.is_missing() {
            if let Some(name) = text.get(current.start_byte()..current.end_byte()) {
                names.insert(name.to_owned());
            }
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.node() == node {
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

fn is_broken(node: Node<'_>) -> bool {
    node.is_error() || node.is_missing()
}

impl<'t> Lowerer<'t> {
    fn offset(&self, byte: usize) -> usize {
        byte.saturating_add_signed(self.shift)
    }

    fn range(&self, node: Node<'_>) -> TextRange {
        TextRange::new(self.offset(node.start_byte()), self.offset(node.end_byte()))
    }

    /// Lowers an item, with the offsets its placement gives it.
    fn placed<T>(&mut self, node: Node<'_>, lower: impl FnOnce(&mut Self) -> T) -> T {
        let Some(placement) = self.placement else {
            return lower(self);
        };
        let saved = self.shift;
        let at = TextRange::new(node.start_byte(), node.end_byte());
        if let Some(start) = placement(at) {
            self.shift = start as isize - node.start_byte() as isize;
        }
        let result = lower(self);
        self.shift = saved;
        result
    }

    fn text_of(&self, node: Node<'_>) -> &'t str {
        self.text
            .get(node.start_byte()..node.end_byte())
            .unwrap_or("")
    }

    fn name(&mut self, node: Option<Node<'_>>) -> Option<Name> {
        let node = node?;
        if is_broken(node) || node.kind() != "identifier" {
            if node.is_error() {
                self.remember_error_names(node);
            }
            return None;
        }
        Some(Name {
            text: self.text_of(node).to_owned(),
            range: self.range(node),
        })
    }

    fn remember_error_names(&mut self, node: Node<'_>) {
        identifiers_in(node, self.text, &mut self.names_in_errors);
    }

    /// Runs `lower` one nesting level deeper, or returns `fallback` with a
    /// diagnostic (once per file) when the limit is reached.
    fn nested<T>(
        &mut self,
        node: Node<'_>,
        fallback: impl FnOnce() -> T,
        lower: impl FnOnce(&mut Self) -> T,
    ) -> T {
        if self.depth >= MAX_NESTING {
            if !self.reported_depth {
                self.reported_depth = true;
                self.diagnostics.push(Diagnostic::new(
                    Code::NestingTooDeep,
                    TextRange::empty(self.offset(node.start_byte())),
                    format!(
                        "nested more than {MAX_NESTING} levels deep; the checker ignores what is nested deeper"
                    ),
                ));
            }
            return fallback();
        }
        self.depth += 1;
        let result = lower(self);
        self.depth -= 1;
        result
    }

    // ----------------------------------------------------------------- file

    fn source_file(&mut self, root: Node<'_>) -> SourceFile {
        let mut file = SourceFile::default();
        for child in named_children(root) {
            self.top_level(child, &mut file);
        }
        file
    }

    /// Lowers a child of the root into `file`'s items or script.
    fn top_level(&mut self, child: Node<'_>, file: &mut SourceFile) {
        match child.kind() {
            "const_declaration"
            | "import_declaration"
            | "function_definition"
            | "extern_function"
            | "struct_definition" => {
                if let Some(item) = self.placed(child, |this| this.item(child)) {
                    file.items.push(item);
                }
            }
            _ => {
                if let Some(stmt) = self.statement(child) {
                    file.script.push(stmt);
                }
            }
        }
    }

    fn item(&mut self, node: Node<'_>) -> Option<Item> {
        Some(match node.kind() {
            "const_declaration" => Item::Const(Const {
                name: self.name(node.field("name")),
                ty: node.field("type").map(|t| self.ty(t)),
                value: self.expr_field(node, "value"),
                range: self.range(node),
            }),
            "import_declaration" => {
                let path_node = node.field("path");
                Item::Import(Import {
                    path: path_node
                        .filter(|p| !is_broken(*p))
                        .map(|p| self.string_value(p)),
                    names: Vec::new(),
                    path_range: path_node
                        .map(|p| self.range(p))
                        .unwrap_or_else(|| self.range(node)),
                    range: self.range(node),
                })
            }
            "function_definition" | "extern_function" => Item::Function(self.function(node)),
            "struct_definition" => Item::Struct(self.structure(node)),
            _ => return None,
        })
    }

    fn function(&mut self, node: Node<'_>) -> Function {
        let is_extern = node.kind() == "extern_function";
        Function {
            name: self.name(node.field("name")),
            is_extern,
            params: node
                .field("parameters")
                .map(|p| self.params(p))
                .unwrap_or_default(),
            return_type: node.field("return_type").map(|t| self.ty(t)),
            where_clauses: node
                .field("where")
                .map(|w| {
                    named_children(w)
                        .into_iter()
                        .map(|e| self.expr(e))
                        .collect()
                })
                .unwrap_or_default(),
            body: if is_extern {
                None
            } else {
                Some(match node.field("body") {
                    Some(body) => self.block(body),
                    None => Block {
                        stmts: Vec::new(),
                        range: TextRange::empty(node.end_byte()),
                    },
                })
            },
            range: self.range(node),
        }
    }

    fn params(&mut self, node: Node<'_>) -> Vec<Param> {
        let mut params = Vec::new();
        for child in named_children(node) {
            match child.kind() {
                "self_parameter" => params.push(Param {
                    is_self: true,
                    variadic: false,
                    collects: None,
                    name: Name {
                        text: "self".to_owned(),
                        range: self.range(child),
                    },
                    ty: None,
                    default: None,
                    range: self.range(child),
                }),
                "parameter" => {
                    let Some(name) = self.name(child.field("name")) else {
                        continue;
                    };
                    params.push(Param {
                        is_self: false,
                        variadic: child.field("variadic").is_some(),
                        collects: None,
                        name,
                        ty: child.field("type").map(|t| self.ty(t)),
                        default: child.field("default").map(|d| self.expr(d)),
                        range: self.range(child),
                    });
                }
                _ if child.is_error() => self.remember_error_names(child),
                _ => {}
            }
        }
        params
    }

    fn structure(&mut self, node: Node<'_>) -> Struct {
        let mut result = Struct {
            name: self.name(node.field("name")),
            params: node.field("parameters").map(|p| self.params(p)),
            class_fields: Vec::new(),
            init: None,
            fields: Vec::new(),
            methods: Vec::new(),
            enumeration: None,
            range: self.range(node),
        };
        if let Some(body) = node.field("body") {
            for member in named_children(body) {
                match member.kind() {
                    "field_definition" => {
                        let Some(name) = self.name(member.field("name")) else {
                            continue;
                        };
                        result.fields.push(Field {
                            name,
                            ty: member.field("type").map(|t| self.ty(t)),
                            value: self.expr_field(member, "value"),
                            range: self.range(member),
                        });
                    }
                    "function_definition" => {
                        let method = self.placed(member, |this| this.function(member));
                        result.methods.push(method);
                    }
                    _ if member.is_error() => self.remember_error_names(member),
                    _ => {}
                }
            }
        }
        result
    }

    // ---------------------------------------------------------------- types

    fn ty(&mut self, node: Node<'_>) -> Type {
        let kind = self.nested(
            node,
            || TypeKind::Missing,
            |this| match node.kind() {
                "primitive_type" => match this.text_of(node) {
                    "Int" => TypeKind::Int,
                    "Bool" => TypeKind::Bool,
                    "Float" => TypeKind::Float,
                    "Shape" => TypeKind::Shape,
                    _ => TypeKind::Missing,
                },
                "tensor_type" => TypeKind::Tensor {
                    dims: node.field("dimensions").map(|list| {
                        let dims: Vec<Dim> = named_children(list)
                            .into_iter()
                            .map(|d| this.dim(d))
                            .collect();
                        this.at_most_one_segment(&dims);
                        dims
                    }),
                },
                "tuple_type" => TypeKind::Tuple(
                    named_children(node)
                        .into_iter()
                        .map(|t| this.ty(t))
                        .collect(),
                ),
                "named_type" => match this.name(named_children(node).first().copied()) {
                    Some(name) => TypeKind::Named(name),
                    None => TypeKind::Missing,
                },
                _ => {
                    if node.is_error() {
                        this.remember_error_names(node);
                    }
                    TypeKind::Missing
                }
            },
        );
        Type {
            kind,
            range: self.range(node),
        }
    }

    fn dim(&mut self, node: Node<'_>) -> Dim {
        match node.kind() {
            "unknown_dimension" => Dim::Unknown(self.range(node)),
            "segment" => {
                let name = self.name(node.field("name"));
                let args = self.segment_args(node);
                match name {
                    Some(name) => Dim::Segment {
                        name,
                        args,
                        range: self.range(node),
                    },
                    None => Dim::Expr(Expr::missing(self.range(node))),
                }
            }
            _ => Dim::Expr(self.expr(node)),
        }
    }

    /// A tensor type has at most one segment (LANGUAGE.md §2): with two,
    /// which dimensions each takes is not determined.
    fn at_most_one_segment(&mut self, dims: &[Dim]) {
        let mut segments = dims.iter().filter_map(|d| match d {
            Dim::Segment { name, range, .. } => Some((name, *range)),
            _ => None,
        });
        let Some((first, _)) = segments.next() else {
            return;
        };
        for (name, range) in segments {
            self.diagnostics.push(Diagnostic::new(
                Code::SyntaxError,
                range,
                format!(
                    "a tensor type has at most one segment, but `..{}` follows `..{}`: which dimensions each would take is not determined",
                    name.text, first.text
                ),
            ));
        }
    }

    /// The names in `..broadcast(a, b)`, or `None` for a plain `..name`.
    fn segment_args(&mut self, node: Node<'_>) -> Option<Vec<Name>> {
        let mut cursor = node.walk();
        let has_parens = node.children(&mut cursor).any(|c| c.kind() == "(");
        if !has_parens {
            return None;
        }
        let name_node = node.field("name");
        let args = named_children(node)
            .into_iter()
            .filter(|c| Some(*c) != name_node)
            .filter_map(|c| self.name(Some(c)))
            .collect();
        Some(args)
    }

    // ----------------------------------------------------------- statements

    fn block(&mut self, node: Node<'_>) -> Block {
        let stmts = self.nested(node, Vec::new, |this| {
            named_children(node)
                .into_iter()
                .filter_map(|s| this.statement(s))
                .collect()
        });
        Block {
            stmts,
            range: self.range(node),
        }
    }

    fn block_field(&mut self, node: Node<'_>, field: &str) -> Block {
        match node.field(field) {
            Some(block) => self.block(block),
            None => Block {
                stmts: Vec::new(),
                range: TextRange::empty(node.end_byte()),
            },
        }
    }

    fn statement(&mut self, node: Node<'_>) -> Option<Stmt> {
        let kind = match node.kind() {
            "let_statement" => StmtKind::Let {
                pattern: self.pattern_field(node),
                ty: node.field("type").map(|t| self.ty(t)),
                value: self.expr_field(node, "value"),
            },
            "var_statement" => StmtKind::Var {
                pattern: self.pattern_field(node),
                ty: node.field("type").map(|t| self.ty(t)),
                value: node.field("value").map(|v| self.expr(v)),
            },
            "assignment" => {
                let op = match node.field("operator").map(|o| o.kind()) {
                    Some("+=") => AssignOp::AddAssign,
                    _ => AssignOp::Assign,
                };
                let target = self.expr_field(node, "target");
                self.check_assignment_target(&target);
                StmtKind::Assign {
                    target,
                    op,
                    value: self.expr_field(node, "value"),
                }
            }
            "assert_statement" => StmtKind::Assert {
                condition: self.expr_field(node, "condition"),
                message: node.field("message").map(|m| self.expr(m)),
                guard: false,
            },
            "if_statement" => self.if_statement(node),
            "for_statement" => {
                let (start, end) = match node.field("range") {
                    Some(r) => (self.expr_field(r, "start"), self.expr_field(r, "end")),
                    None => {
                        let at = TextRange::empty(node.end_byte());
                        (Expr::missing(at), Expr::missing(at))
                    }
                };
                StmtKind::For {
                    variable: self.name(node.field("variable")),
                    start,
                    end,
                    body: self.block_field(node, "body"),
                }
            }
            "while_statement" => StmtKind::While {
                condition: self.expr_field(node, "condition"),
                body: self.block_field(node, "body"),
            },
            "return_statement" => StmtKind::Return(node.field("value").map(|v| self.expr(v))),
            "expression_statement" => match named_children(node).first() {
                Some(expr) => StmtKind::Expr(self.expr(*expr)),
                None => return None,
            },
            _ => {
                if node.is_error() {
                    self.remember_error_names(node);
                }
                return None;
            }
        };
        Some(Stmt {
            kind,
            range: self.range(node),
        })
    }

    fn if_statement(&mut self, node: Node<'_>) -> StmtKind {
        let whole = self.range(node);
        self.nested(
            node,
            || StmtKind::Expr(Expr::missing(whole)),
            |this| {
                let else_branch = node.field("alternative").and_then(|alt| {
                    if alt.kind() == "if_statement" {
                        this.statement(alt).map(|s| ElseBranch::If(Box::new(s)))
                    } else {
                        Some(ElseBranch::Block(this.block(alt)))
                    }
                });
                StmtKind::If {
                    condition: this.expr_field(node, "condition"),
                    then_branch: this.block_field(node, "consequence"),
                    else_branch,
                }
            },
        )
    }

    fn check_assignment_target(&mut self, target: &Expr) {
        let valid = match &target.kind {
            ExprKind::Name(_) | ExprKind::Missing => true,
            ExprKind::Subscript { value, indices } => {
                value.as_name().is_some() && indices.iter().all(|i| i.as_name().is_some())
            }
            _ => false,
        };
        if !valid {
            self.diagnostics.push(Diagnostic::new(
                Code::InvalidAssignmentTarget,
                target.range,
                "cannot assign to this expression: assign to a variable (`x = ...`) or to an \
                 index-notation target (`A[i, j] += ...`)",
            ));
        }
    }

    fn pattern_field(&mut self, node: Node<'_>) -> Pattern {
        match node.field("pattern") {
            Some(p) => self.pattern(p),
            None => Pattern::Missing(TextRange::empty(node.end_byte())),
        }
    }

    fn pattern(&mut self, node: Node<'_>) -> Pattern {
        match node.kind() {
            "identifier" => match self.name(Some(node)) {
                Some(name) => Pattern::Name(name),
                None => Pattern::Missing(self.range(node)),
            },
            "tuple_pattern" => {
                let elements = self.nested(node, Vec::new, |this| {
                    named_children(node)
                        .into_iter()
                        .map(|p| this.pattern(p))
                        .collect()
                });
                Pattern::Tuple {
                    elements,
                    range: self.range(node),
                }
            }
            "index_pattern" => {
                let name_node = node.field("name");
                match self.name(name_node) {
                    Some(name) => {
                        let indices = named_children(node)
                            .into_iter()
                            .filter(|c| Some(*c) != name_node)
                            .filter_map(|c| self.name(Some(c)))
                            .collect();
                        Pattern::Index {
                            name,
                            indices,
                            range: self.range(node),
                        }
                    }
                    None => Pattern::Missing(self.range(node)),
                }
            }
            _ => {
                if node.is_error() {
                    self.remember_error_names(node);
                }
                Pattern::Missing(self.range(node))
            }
        }
    }

    // ---------------------------------------------------------- expressions

    fn expr_field(&mut self, node: Node<'_>, field: &str) -> Expr {
        match node.field(field) {
            Some(child) => self.expr(child),
            None => Expr::missing(TextRange::empty(node.end_byte())),
        }
    }

    fn expr(&mut self, node: Node<'_>) -> Expr {
        let kind = self.nested(node, || ExprKind::Missing, |this| this.expr_kind(node));
        if kind == ExprKind::Hole {
            self.holes.push(self.range(node));
        }
        Expr {
            kind,
            range: self.range(node),
        }
    }

    fn boxed(&mut self, node: Node<'_>, field: &str) -> Box<Expr> {
        Box::new(self.expr_field(node, field))
    }

    fn expr_kind(&mut self, node: Node<'_>) -> ExprKind {
        if node.is_missing() {
            return ExprKind::Missing;
        }
        match node.kind() {
            "identifier" => ExprKind::Name(self.text_of(node).to_owned()),
            "self" => ExprKind::SelfValue,
            "integer" => self.integer(node),
            "float" => ExprKind::Float(self.text_of(node).replace('_', "")),
            "boolean" => ExprKind::Bool(self.text_of(node) == "true"),
            "string" => ExprKind::Str(self.string_value(node)),
            "hole" => ExprKind::Hole,
            "unknown_dimension" => ExprKind::UnknownDim,
            "list" => ExprKind::List(self.exprs(named_children(node))),
            "tuple" => ExprKind::Tuple(self.exprs(named_children(node))),
            "parenthesized_expression" => match named_children(node).first() {
                Some(inner) => self.expr(*inner).kind,
                None => ExprKind::Missing,
            },
            "call" => {
                let args = match node.field("arguments") {
                    Some(list) => named_children(list)
                        .into_iter()
                        .filter(|a| a.kind() == "argument")
                        .map(|a| {
                            self.python_equals(a);
                            Arg {
                                name: self.name(a.field("name")),
                                unpack: None,
                                value: self.expr_field(a, "value"),
                                range: self.range(a),
                            }
                        })
                        .collect(),
                    None => Vec::new(),
                };
                ExprKind::Call {
                    callee: self.boxed(node, "function"),
                    args,
                }
            }
            "subscript" => {
                let mut cursor = node.walk();
                let index_nodes: Vec<Node<'_>> =
                    node.children_by_field_name("index", &mut cursor).collect();
                ExprKind::Subscript {
                    value: self.boxed(node, "value"),
                    indices: self.exprs(index_nodes),
                }
            }
            "slice" => {
                let mut part = |field: &str| node.field(field).map(|n| Box::new(self.expr(n)));
                ExprKind::Slice {
                    start: part("start"),
                    stop: part("stop"),
                    step: part("step"),
                }
            }
            "ellipsis" => ExprKind::Ellipsis,
            "new_axis" => ExprKind::NewAxis,
            "field_access" => {
                let value = self.boxed(node, "value");
                match node.field("field") {
                    Some(f) if f.kind() == "integer" => {
                        match self.text_of(f).replace('_', "").parse() {
                            Ok(index) => ExprKind::Field {
                                value,
                                field: FieldName::Index(index, self.range(f)),
                            },
                            Err(_) => {
                                self.invalid_literal(f, "tuple index");
                                ExprKind::Missing
                            }
                        }
                    }
                    field => match self.name(field) {
                        Some(name) => ExprKind::Field {
                            value,
                            field: FieldName::Named(name),
                        },
                        None => ExprKind::Missing,
                    },
                }
            }
            "unary_expression" => {
                let op = match node.field("operator").map(|o| o.kind()) {
                    Some("!") => UnaryOp::Not,
                    _ => UnaryOp::Neg,
                };
                ExprKind::Unary {
                    op,
                    operand: self.boxed(node, "operand"),
                }
            }
            "binary_expression" | "logical_expression" => {
                let op = match node.field("operator").map(|o| o.kind()) {
                    Some("+") => BinaryOp::Add,
                    Some("-") => BinaryOp::Sub,
                    Some("*") => BinaryOp::Mul,
                    Some("/") => BinaryOp::Div,
                    Some("%") => BinaryOp::Rem,
                    Some("@") => BinaryOp::MatMul,
                    Some("&&") => BinaryOp::And,
                    Some("||") => BinaryOp::Or,
                    _ => return ExprKind::Missing,
                };
                ExprKind::Binary {
                    op,
                    lhs: self.boxed(node, "left"),
                    rhs: self.boxed(node, "right"),
                }
            }
            "comparison" => {
                let mut cursor = node.walk();
                let ops = node
                    .children_by_field_name("operator", &mut cursor)
                    .map(|o| match o.kind() {
                        "==" => CompareOp::Eq,
                        "!=" => CompareOp::Ne,
                        "<" => CompareOp::Lt,
                        "<=" => CompareOp::Le,
                        ">" => CompareOp::Gt,
                        _ => CompareOp::Ge,
                    })
                    .collect::<Vec<_>>();
                let operands = self.exprs(named_children(node));
                if operands.len() != ops.len() + 1 {
                    return ExprKind::Missing;
                }
                ExprKind::Compare { operands, ops }
            }
            "shape_assertion" => {
                let (pattern, pattern_range) = match node.field("shape") {
                    Some(list) => (self.exprs(named_children(list)), self.range(list)),
                    None => (Vec::new(), TextRange::empty(node.end_byte())),
                };
                ExprKind::ShapeAssert {
                    value: self.boxed(node, "value"),
                    pattern,
                    pattern_range,
                }
            }
            "reduction" => {
                let op = match node.field("operator").map(|o| self.text_of(o)) {
                    Some("prod") => ReductionOp::Prod,
                    Some("max") => ReductionOp::Max,
                    Some("min") => ReductionOp::Min,
                    _ => ReductionOp::Sum,
                };
                let bindings = named_children(node)
                    .into_iter()
                    .filter(|c| c.kind() == "index_binding")
                    .filter_map(|b| {
                        let index = self.name(b.field("index"))?;
                        let range = b
                            .field("range")
                            .map(|r| (self.expr_field(r, "start"), self.expr_field(r, "end")));
                        Some(IndexBinding { index, range })
                    })
                    .collect();
                ExprKind::Reduction {
                    op,
                    bindings,
                    body: self.boxed(node, "body"),
                }
            }
            _ => {
                if node.is_error() {
                    self.remember_error_names(node);
                }
                ExprKind::Missing
            }
        }
    }

    fn exprs(&mut self, nodes: Vec<Node<'_>>) -> Vec<Expr> {
        nodes.into_iter().map(|n| self.expr(n)).collect()
    }

    fn integer(&mut self, node: Node<'_>) -> ExprKind {
        match self.text_of(node).replace('_', "").parse::<i64>() {
            Ok(value) => ExprKind::Int(value),
            Err(_) => {
                self.invalid_literal(node, "integer");
                ExprKind::Missing
            }
        }
    }

    /// PyTorch's `kernel_size=3` in a call: a named argument all the same
    /// (the grammar reads it so), reported with how the Tensor language
    /// writes it and the edit that does so.
    fn python_equals(&mut self, argument: Node<'_>) {
        let (Some(name), Some(_), Some(value)) = (
            argument.field("name"),
            argument.field("python_equals"),
            argument.field("value"),
        ) else {
            return;
        };
        let value_text = self.text_of(value);
        let shown = match value_text.chars().count() {
            0..=24 => value_text.to_owned(),
            _ => "...".to_owned(),
        };
        let between = TextRange::new(
            self.offset(name.end_byte()),
            self.offset(value.start_byte()),
        );
        let message = format!(
            "named arguments are written with `:` in the Tensor language: `{}: {shown}`",
            self.text_of(name)
        );
        self.diagnostics.push(
            Diagnostic::new(Code::SyntaxError, self.range(argument), message).with_suggestion(
                "Change `=` to `:`",
                between,
                ": ",
            ),
        );
    }

    fn invalid_literal(&mut self, node: Node<'_>, what: &str) {
        self.diagnostics.push(Diagnostic::new(
            Code::InvalidLiteral,
            self.range(node),
            format!(
                "{what} literal `{}` is too large (the limit is {})",
                self.text_of(node),
                i64::MAX
            ),
        ));
    }

    /// The value of a string literal, with escapes resolved.
    fn string_value(&self, node: Node<'_>) -> String {
        let mut value = String::new();
        for part in named_children(node) {
            let text = self.text_of(part);
            match part.kind() {
                "escape_sequence" => value.push(match text.chars().nth(1) {
                    Some('n') => '\n',
                    Some('t') => '\t',
                    Some('r') => '\r',
                    Some('0') => '\0',
                    Some(other) => other,
                    None => '\\',
                }),
                _ => value.push_str(text),
            }
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use crate::ast::*;
    use crate::parse;

    fn script(text: &str) -> Vec<Stmt> {
        let parse = parse(text);
        assert!(
            parse.diagnostics.is_empty(),
            "unexpected diagnostics: {:?}",
            parse.diagnostics
        );
        parse.file.script.clone()
    }

    fn only_expr(text: &str) -> ExprKind {
        let stmts = script(text);
        match &stmts[..] {
            [Stmt {
                kind: StmtKind::Let { value, .. },
                ..
            }] => value.kind.clone(),
            other => panic!("expected one let statement, got {other:?}"),
        }
    }

    #[test]
    fn chained_comparisons_are_flat() {
        match only_expr("let c = 5 <= n <= 20") {
            ExprKind::Compare { operands, ops } => {
                assert_eq!(ops, vec![CompareOp::Le, CompareOp::Le]);
                assert_eq!(operands.len(), 3);
            }
            other => panic!("not a comparison: {other:?}"),
        }
    }

    #[test]
    fn method_calls_and_named_arguments() {
        match only_expr("let y = x.sum(dim: 1)") {
            ExprKind::Call { callee, args } => {
                assert!(matches!(callee.kind, ExprKind::Field { .. }));
                assert_eq!(args[0].name.as_ref().map(|n| n.text.as_str()), Some("dim"));
                assert_eq!(args[0].value.kind, ExprKind::Int(1));
            }
            other => panic!("not a call: {other:?}"),
        }
    }

    #[test]
    fn reductions_and_index_patterns() {
        let stmts = script("let C[y, x] = sum(k in 0..h) A[k, y] * B[k, x]");
        let StmtKind::Let {
            pattern: Pattern::Index { name, indices, .. },
            value,
            ..
        } = &stmts[0].kind
        else {
            panic!("not an index-notation let: {stmts:?}");
        };
        assert_eq!(name.text, "C");
        assert_eq!(
            indices.iter().map(|i| i.text.as_str()).collect::<Vec<_>>(),
            ["y", "x"]
        );
        let ExprKind::Reduction { op, bindings, .. } = &value.kind else {
            panic!("not a reduction: {value:?}");
        };
        assert_eq!(*op, ReductionOp::Sum);
        assert_eq!(bindings[0].index.text, "k");
        assert!(bindings[0].range.is_some());
    }

    #[test]
    fn holes_strings_and_shape_assertions() {
        match only_expr(r#"let m = f(__, "a\"b") |-> [batch, ?]"#) {
            ExprKind::ShapeAssert { value, pattern, .. } => {
                let ExprKind::Call { args, .. } = value.kind else {
                    panic!("not a call")
                };
                assert_eq!(args[0].value.kind, ExprKind::Hole);
                assert_eq!(args[1].value.kind, ExprKind::Str("a\"b".into()));
                assert_eq!(pattern[1].kind, ExprKind::UnknownDim);
            }
            other => panic!("not a shape assertion: {other:?}"),
        }
    }

    #[test]
    fn items_and_script_are_separated() {
        let parse = parse(
            "const n = 3\nlet a = 1\nfn f(x: Tensor[n, ?], ..rest: Int) -> Tensor where n > 1 { return x }\nstruct S(k: Int) { w = zeros([k]) fn forward(self, x: Tensor) -> Tensor { return x } }\nlet b = 2",
        );
        assert!(parse.diagnostics.is_empty(), "{:?}", parse.diagnostics);
        assert_eq!(parse.file.items.len(), 3);
        assert_eq!(parse.file.script.len(), 2);
        let Item::Function(f) = &parse.file.items[1] else {
            panic!()
        };
        assert_eq!(f.params.len(), 2);
        assert!(f.params[1].variadic);
        assert_eq!(f.where_clauses.len(), 1);
        let Item::Struct(s) = &parse.file.items[2] else {
            panic!()
        };
        assert_eq!(s.fields.len(), 1);
        assert!(s.methods[0].has_self());
    }

    #[test]
    fn huge_integers_are_diagnosed_not_wrapped() {
        let parse = parse("let x = 99999999999999999999999");
        assert_eq!(parse.diagnostics.len(), 1);
        assert_eq!(
            parse.diagnostics[0].code,
            tensorfit_base::Code::InvalidLiteral
        );
    }

    #[test]
    fn invalid_assignment_targets_are_diagnosed() {
        let parse = parse("a + b = 1\nA[i] += 2\nx = 3");
        let codes: Vec<_> = parse.diagnostics.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, ["invalid-assignment-target"]);
    }

    #[test]
    fn deep_nesting_is_cut_off_with_one_diagnostic() {
        let depth = 10_000;
        let text = format!("let x = {}1{}", "(".repeat(depth), ")".repeat(depth));
        let parse = std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(move || parse(&text))
            .unwrap()
            .join()
            .unwrap();
        let codes: Vec<_> = parse.diagnostics.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, ["nesting-too-deep"]);
    }

    #[test]
    fn pieces_and_their_methods_are_lowered_where_placed() {
        let f = "fn f(x: Int) -> Int { return __ }";
        let lowered = crate::lower_piece(f, 1000, &[]);
        let Item::Function(function) = &lowered.file.items[0] else {
            panic!("expected the function");
        };
        assert_eq!(function.range.start, 1000);
        assert_eq!(function.name.as_ref().unwrap().range.start, 1003);
        assert_eq!(
            lowered
                .file
                .holes
                .iter()
                .map(|h| h.start)
                .collect::<Vec<_>>(),
            vec![1000 + f.find("__").unwrap() as u32]
        );
        let s = "struct S { fn m(self) -> Int { return 1 } }";
        let m_at = s.find("fn m").unwrap();
        let lowered = crate::lower_piece(s, 3000, &[(m_at, 5000)]);
        let Item::Struct(structure) = &lowered.file.items[0] else {
            panic!("expected the struct");
        };
        assert_eq!(structure.range.start, 3000);
        assert_eq!(structure.methods[0].range.start, 5000);
        assert_eq!(
            structure.methods[0].name.as_ref().unwrap().range.start,
            5003
        );
    }
}
