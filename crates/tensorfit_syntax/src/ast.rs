//! The typed syntax tree: owned, with a byte range on every node.
//!
//! It is lowered from the tree-sitter tree and is always complete: a piece
//! the user has not typed yet is `ExprKind::Missing`, a name that is absent
//! is `None`. Later layers never look at tree-sitter.

use tensorfit_base::TextRange;

/// Joins a class and a function that belongs to it (a Python
/// `@classmethod`) in the function's item name, `Class::method`: unlike `.`,
/// which names a struct's method, it gives a free function that no
/// identifier of either language can be.
pub const CLASS_FUNCTION_SEPARATOR: &str = "::";

/// The hidden parameter of a Python class method that receives the class
/// it is called on (its `cls`), which a call through the class passes
/// (`BlockParams.from_init_params(...)`); unknown where nothing passes it.
pub const CLASS_ARGUMENT: &str = "$class";

/// The field of a Python instance that holds what its base class's
/// `__init__` made (`super().__init__(...)` in a class derived from another
/// of the file): the analysis reads a member or method the class does not
/// have through it, as Python's attribute lookup goes on to the base. No
/// identifier can be this name.
pub const BASE_INSTANCE_FIELD: &str = "$super";

/// The field of a Python instance of a class derived from `nn.ModuleDict`
/// or `nn.Sequential` that holds the modules it registers, in order (a
/// dict by name): what `self.items()`, `self.values()` and iteration over
/// `self` read. No identifier can be this name.
pub const REGISTERED_MODULES_FIELD: &str = "$modules";

/// The field of a Python instance that holds the attributes its
/// `__init__` sets by a name computed at run time (`setattr(self, name,
/// stage)` in ShuffleNetV2): a dict by name, read for an attribute the
/// class does not set by its own name. No identifier can be this name.
pub const DYNAMIC_ATTRIBUTES_FIELD: &str = "$attributes";

/// Why a Python field is unknown when a method other than `__init__` may
/// assign or change it (`self.{name}` is written before): the analysis
/// does not follow such a method's changes to its object, so a value set
/// on the object from outside (`r.extra = t`) is not kept either, where a
/// call of that method would leave it stale.
pub const CHANGED_AFTER_INIT: &str = "may be changed after `__init__`";

/// A function's key as Python spells it: a class function `Class::method`
/// is `Class.method`; any other key is itself.
pub fn python_function_name(key: &str) -> std::borrow::Cow<'_, str> {
    match key.contains(CLASS_FUNCTION_SEPARATOR) {
        true => key.replace(CLASS_FUNCTION_SEPARATOR, ".").into(),
        false => key.into(),
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct SourceFile {
    /// Declarations, in source order. Their order does not matter to scoping.
    pub items: Vec<Item>,
    /// The top-level statements, in order: the file's script body.
    pub script: Vec<Stmt>,
    /// Every shape hole `__` of the file, in source order.
    pub holes: Vec<TextRange>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Name {
    pub text: String,
    pub range: TextRange,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Item {
    Const(Const),
    Import(Import),
    Function(Function),
    Struct(Struct),
}

impl Item {
    pub fn name(&self) -> Option<&Name> {
        match self {
            Item::Const(c) => c.name.as_ref(),
            Item::Import(_) => None,
            Item::Function(f) => f.name.as_ref(),
            Item::Struct(s) => s.name.as_ref(),
        }
    }

    /// The item as far as declaring its names goes: functions and methods
    /// without their bodies (cloned without copying them).
    pub fn declaration(&self) -> Item {
        match self {
            Item::Function(f) => Item::Function(f.without_body()),
            Item::Struct(s) => Item::Struct(Struct {
                name: s.name.clone(),
                params: s.params.clone(),
                class_fields: s.class_fields.clone(),
                init: s.init.clone(),
                fields: s.fields.clone(),
                methods: s.methods.iter().map(Function::without_body).collect(),
                range: s.range,
            }),
            other => other.clone(),
        }
    }

    pub fn range(&self) -> TextRange {
        match self {
            Item::Const(c) => c.range,
            Item::Import(i) => i.range,
            Item::Function(f) => f.range,
            Item::Struct(s) => s.range,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Const {
    pub name: Option<Name>,
    pub ty: Option<Type>,
    pub value: Expr,
    pub range: TextRange,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Import {
    /// The path as written, without quotes and with escapes resolved.
    pub path: Option<String>,
    /// The names the importing file takes from it by name (Python's `from
    /// m import a, b`), which it finds there before any other import's;
    /// empty for a Tensor-language import, which takes every item.
    pub names: Vec<String>,
    pub path_range: TextRange,
    pub range: TextRange,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Function {
    pub name: Option<Name>,
    /// `extern fn`: a contract without a body.
    pub is_extern: bool,
    pub params: Vec<Param>,
    pub return_type: Option<Type>,
    pub where_clauses: Vec<Expr>,
    pub body: Option<Block>,
    pub range: TextRange,
}

impl Function {
    /// The function without its body (cloned without copying the body).
    pub fn without_body(&self) -> Function {
        Function {
            name: self.name.clone(),
            is_extern: self.is_extern,
            params: self.params.clone(),
            return_type: self.return_type.clone(),
            where_clauses: self.where_clauses.clone(),
            body: None,
            range: self.range,
        }
    }

    /// Whether the first parameter is `self` (a method).
    pub fn has_self(&self) -> bool {
        self.params.first().is_some_and(|p| p.is_self)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Param {
    pub is_self: bool,
    /// `..dims: Int`: takes all remaining positional arguments.
    pub variadic: bool,
    /// Python's `*args` (the remaining positional arguments, as a tuple)
    /// and `**kwargs` (the named arguments no other parameter takes, as a
    /// dict).
    pub collects: Option<Unpack>,
    pub name: Name,
    pub ty: Option<Type>,
    pub default: Option<Expr>,
    pub range: TextRange,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Struct {
    pub name: Option<Name>,
    /// `None` for `struct Name { ... }` without a parameter list.
    pub params: Option<Vec<Param>>,
    /// Python class attributes (`expansion = 4`): set before `init` runs,
    /// and read on the class itself (`block.expansion`) as on instances.
    pub class_fields: Vec<Field>,
    /// Python's `__init__`: statements run for each instance once the
    /// parameters are bound. What it assigns to the names `self.<field>`
    /// the fields then read. `None` in the Tensor language, whose fields
    /// are expressions of the parameters and earlier fields.
    pub init: Option<Block>,
    pub fields: Vec<Field>,
    pub methods: Vec<Function>,
    pub range: TextRange,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Field {
    pub name: Name,
    pub ty: Option<Type>,
    pub value: Expr,
    pub range: TextRange,
}

// ------------------------------------------------------------------- types

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Type {
    pub kind: TypeKind,
    pub range: TextRange,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    Int,
    /// A Python constructor parameter read as a number because `__init__`
    /// only stores it or uses it as one: an `Int` to the analysis, except
    /// that it may hold a float (`word_blanking_prob`), so comparisons that
    /// order it are not decided as integers' (see
    /// `tensorfit_semantics`' `Analysis::fractional_vars`). Never written.
    Number,
    Bool,
    Float,
    Shape,
    /// `Tensor` (unknown rank) when `dims` is `None`, `Tensor[...]` otherwise.
    Tensor {
        dims: Option<Vec<Dim>>,
    },
    Tuple(Vec<Type>),
    /// A struct or layer type.
    Named(Name),
    Missing,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// `?`
    Unknown(TextRange),
    /// `..name` or `..broadcast(a, b)`
    Segment {
        name: Name,
        args: Option<Vec<Name>>,
        range: TextRange,
    },
    /// A literal, a dimension name or an `Int` expression.
    Expr(Expr),
}

// -------------------------------------------------------------- statements

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub range: TextRange,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Stmt {
    pub kind: StmtKind,
    pub range: TextRange,
}

impl Stmt {
    /// The statements directly inside this one's branches or body.
    pub fn nested(&self) -> Vec<&Stmt> {
        match &self.kind {
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                let mut inside: Vec<&Stmt> = then_branch.stmts.iter().collect();
                match else_branch {
                    Some(ElseBranch::Block(block)) => inside.extend(&block.stmts),
                    Some(ElseBranch::If(stmt)) => inside.push(stmt),
                    None => {}
                }
                inside
            }
            StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
                body.stmts.iter().collect()
            }
            _ => Vec::new(),
        }
    }

    /// The expressions of this statement itself, in source order (those of
    /// the statements nested in it are theirs).
    pub fn exprs(&self) -> Vec<&Expr> {
        match &self.kind {
            StmtKind::Let { value, .. } => vec![value],
            StmtKind::Var { value, .. } => value.iter().collect(),
            StmtKind::Assign { target, value, .. } => vec![target, value],
            StmtKind::Assert {
                condition, message, ..
            } => std::iter::once(condition).chain(message).collect(),
            StmtKind::If { condition, .. } | StmtKind::While { condition, .. } => vec![condition],
            StmtKind::For { start, end, .. } => vec![start, end],
            StmtKind::Return(value) => value.iter().collect(),
            StmtKind::Expr(expr) => vec![expr],
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StmtKind {
    /// `let pattern: T = value`
    Let {
        pattern: Pattern,
        ty: Option<Type>,
        value: Expr,
    },
    /// `var pattern: T = value`, the value optional.
    Var {
        pattern: Pattern,
        ty: Option<Type>,
        value: Option<Expr>,
    },
    /// `target = value` or `target += value`.
    Assign {
        target: Expr,
        op: AssignOp,
        value: Expr,
    },
    Assert {
        condition: Expr,
        message: Option<Expr>,
        /// Python's `if not condition: raise ...` in the middle of a body:
        /// the program goes on only where the condition holds. Raising is
        /// what the function does for other values, so a failure is its
        /// callers' error, never its own (PYTHON.md §3).
        guard: bool,
    },
    If {
        condition: Expr,
        then_branch: Block,
        else_branch: Option<ElseBranch>,
    },
    /// `for variable in start..end { body }`
    For {
        variable: Option<Name>,
        start: Expr,
        end: Expr,
        body: Block,
    },
    While {
        condition: Expr,
        body: Block,
    },
    Return(Option<Expr>),
    Expr(Expr),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AssignOp {
    Assign,
    AddAssign,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ElseBranch {
    Block(Block),
    If(Box<Stmt>),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Pattern {
    Name(Name),
    Tuple {
        elements: Vec<Pattern>,
        range: TextRange,
    },
    /// `A[i, j]` on the left of index notation.
    Index {
        name: Name,
        indices: Vec<Name>,
        range: TextRange,
    },
    Missing(TextRange),
}

impl Pattern {
    pub fn range(&self) -> TextRange {
        match self {
            Pattern::Name(name) => name.range,
            Pattern::Tuple { range, .. }
            | Pattern::Index { range, .. }
            | Pattern::Missing(range) => *range,
        }
    }
}

// ------------------------------------------------------------- expressions

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Expr {
    pub kind: ExprKind,
    pub range: TextRange,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ExprKind {
    Name(String),
    SelfValue,
    Int(i64),
    /// The literal's text; parsed to a number where it is used.
    Float(String),
    Bool(bool),
    Str(String),
    /// `__`: an unknown `Int` constant the tool solves for.
    Hole,
    /// `[a, b, c]`: a shape or list literal.
    List(Vec<Expr>),
    /// `?` inside the shape pattern of `|->`.
    UnknownDim,
    Tuple(Vec<Expr>),
    Call {
        callee: Box<Expr>,
        args: Vec<Arg>,
    },
    /// `x[i, 1:3, ..., None]`: each index is an expression or one of the
    /// three index-only kinds below.
    Subscript {
        value: Box<Expr>,
        indices: Vec<Expr>,
    },
    /// `start:stop:step` (each part optional), only inside a subscript.
    Slice {
        start: Option<Box<Expr>>,
        stop: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
    },
    /// `...` inside a subscript: as many full slices as the rank needs.
    Ellipsis,
    /// `None` inside a subscript: a new dimension of size 1.
    NewAxis,
    Field {
        value: Box<Expr>,
        field: FieldName,
    },
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `a < b <= c`: `ops.len() + 1 == operands.len()`.
    Compare {
        operands: Vec<Expr>,
        ops: Vec<CompareOp>,
    },
    /// `value |-> [d1, ..., dn]`
    ShapeAssert {
        value: Box<Expr>,
        pattern: Vec<Expr>,
        pattern_range: TextRange,
    },
    /// `sum(k in 0..h) body`
    Reduction {
        op: ReductionOp,
        bindings: Vec<IndexBinding>,
        body: Box<Expr>,
    },
    /// Text that is missing or could not be parsed (already diagnosed).
    Missing,
    /// A record of named values: Python's `dict(wte=..., h=...)` and
    /// `nn.ModuleDict`, whose fields are read as `d.wte`.
    Record(Vec<Arg>),
    /// A value the front end does not model (PYTHON.md: a name, attribute,
    /// package or operation tensorfit does not know), with the reason hover
    /// gives. The analysis knows nothing about it and reports nothing.
    Unknown(String),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Arg {
    pub name: Option<Name>,
    /// Python's `f(*xs)` and `f(**kw)`: the value's items are the
    /// arguments.
    pub unpack: Option<Unpack>,
    pub value: Expr,
    pub range: TextRange,
}

/// Python's `*` (positional items) and `**` (named items), in a call or a
/// parameter list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unpack {
    Positional,
    Keywords,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FieldName {
    Named(Name),
    /// `t.0`
    Index(u32, TextRange),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IndexBinding {
    pub index: Name,
    /// `in start..end`
    pub range: Option<(Expr, Expr)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    /// Python's `//` (the Tensor language's `/` of Ints floors already;
    /// only Python code has both, which differ on floats).
    FloorDiv,
    Rem,
    MatMul,
    And,
    Or,
}

impl BinaryOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::FloorDiv => "//",
            BinaryOp::Rem => "%",
            BinaryOp::MatMul => "@",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Python's `is` and `is not`, whose only use for shapes is comparing
    /// with `None` (`if self.downsample is not None`).
    Is,
    IsNot,
}

impl CompareOp {
    /// The prelude's element-wise form, used when an operand is a tensor:
    /// `a == b` is `eq(a, b)`.
    pub fn prelude_name(self) -> &'static str {
        match self {
            CompareOp::Eq => "eq",
            CompareOp::Ne => "ne",
            CompareOp::Lt => "lt",
            CompareOp::Le => "le",
            CompareOp::Gt => "gt",
            CompareOp::Ge => "ge",
            CompareOp::Is => "eq",
            CompareOp::IsNot => "ne",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReductionOp {
    Sum,
    Prod,
    Max,
    Min,
}

impl Expr {
    pub fn missing(range: TextRange) -> Expr {
        Expr {
            kind: ExprKind::Missing,
            range,
        }
    }

    /// The name if this expression is a bare identifier.
    pub fn as_name(&self) -> Option<&str> {
        match &self.kind {
            ExprKind::Name(name) => Some(name),
            _ => None,
        }
    }

    /// A slice, `...` or `None`: forms that exist only between the
    /// brackets of a subscript.
    pub fn is_index_only(&self) -> bool {
        matches!(
            self.kind,
            ExprKind::Slice { .. } | ExprKind::Ellipsis | ExprKind::NewAxis
        )
    }

    /// The expressions directly inside this one, in source order.
    pub fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::List(items) | ExprKind::Tuple(items) => items.iter().collect(),
            ExprKind::Call { callee, args } => std::iter::once(&**callee)
                .chain(args.iter().map(|a| &a.value))
                .collect(),
            ExprKind::Subscript { value, indices } => {
                std::iter::once(&**value).chain(indices).collect()
            }
            ExprKind::Slice { start, stop, step } => [start, stop, step]
                .into_iter()
                .flatten()
                .map(|e| &**e)
                .collect(),
            ExprKind::Field { value, .. } => vec![value],
            ExprKind::Record(fields) => fields.iter().map(|f| &f.value).collect(),
            ExprKind::Unary { operand, .. } => vec![operand],
            ExprKind::Binary { lhs, rhs, .. } => vec![lhs, rhs],
            ExprKind::Compare { operands, .. } => operands.iter().collect(),
            ExprKind::ShapeAssert { value, pattern, .. } => {
                std::iter::once(&**value).chain(pattern).collect()
            }
            ExprKind::Reduction { bindings, body, .. } => bindings
                .iter()
                .filter_map(|b| b.range.as_ref())
                .flat_map(|(lo, hi)| [lo, hi])
                .chain(std::iter::once(&**body))
                .collect(),
            ExprKind::Name(_)
            | ExprKind::SelfValue
            | ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Bool(_)
            | ExprKind::Str(_)
            | ExprKind::Hole
            | ExprKind::UnknownDim
            | ExprKind::Ellipsis
            | ExprKind::NewAxis
            | ExprKind::Missing
            | ExprKind::Unknown(_) => Vec::new(),
        }
    }

    /// This expression and every expression inside it, outer first. Walked
    /// with an explicit stack: nesting depth is the user's to choose.
    pub fn descendants(&self) -> impl Iterator<Item = &Expr> {
        let mut stack = vec![self];
        std::iter::from_fn(move || {
            let next = stack.pop()?;
            stack.extend(next.children().into_iter().rev());
            Some(next)
        })
    }
}
