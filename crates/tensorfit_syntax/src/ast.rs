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
                enumeration: s.enumeration,
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
    /// A Python class derived from `enum.Enum`: its class fields are its
    /// members. `None` for every other struct.
    pub enumeration: Option<Enumeration>,
    pub range: TextRange,
}

/// What kind of `enum.Enum` a class is, which decides what its members
/// equal: each member is one object of the class, holding the value the
/// class body gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Enumeration {
    /// `Enum` or `Flag`: a member equals itself only.
    Plain,
    /// `IntEnum`, `IntFlag`, `class E(int, Enum)`: a member is also the
    /// `int` it holds, equal to it and computing as it.
    Int,
    /// `StrEnum`, `class E(str, Enum)`: a member is also its `str`.
    Str,
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
    /// The callee of a call to an operation the analysis computes itself
    /// (Python's builtins, item and attribute updates, ...): see
    /// [`Builtin`]. Only a front end makes one; no program can name,
    /// define or shadow it.
    Builtin(Builtin),
    /// A function made where the expression stands (Python's `lambda`, and
    /// a `def` inside a function, lowered as an assignment of one): its
    /// value is the function with the values its body reads from the
    /// scopes around it ([`Closure::captures`]).
    Closure(std::sync::Arc<Closure>),
}

/// A function made by an expression ([`ExprKind::Closure`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Closure {
    /// Its own parameters first, then one per capture, in the order of
    /// [`Closure::captures`]: a call binds its arguments to the first
    /// [`Closure::own_params`] only.
    pub function: Function,
    /// The names of the scopes around it that the body reads, each with
    /// the value it takes when the function is made: the name where the
    /// front end can tell that it keeps its value from then on, unknown
    /// where it may change before a call (Python reads a free name when the
    /// function runs).
    pub captures: Vec<Capture>,
}

impl Closure {
    /// The parameters a call binds its arguments to.
    pub fn own_params(&self) -> &[Param] {
        let own = self.function.params.len() - self.captures.len();
        &self.function.params[..own]
    }
}

/// A name a closure's body reads from the scopes around it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Capture {
    pub name: Name,
    pub value: Expr,
}

/// What a front end lowers to an operation the analysis computes itself,
/// rather than to a call of a name the program could define. Each is the
/// callee of a call ([`ExprKind::Builtin`]) and is evaluated by one
/// handler in `tensorfit_semantics`' `shapes/exec` (`builtins.rs` for the
/// values, `updates.rs` for the updates, `calls.rs` for `partial` and the
/// power); the Python front end makes them (`lower/expressions.rs`,
/// `statements.rs`, `containers.rs`). Adding one is a variant here, its
/// [`Builtin::name`], and its handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Builtin {
    // Updates of a local, lowered as `x = update(x, ...)` (`updates.rs`).
    /// `x[key] = value`: the container with that item set (a dict's key,
    /// a list's or `nn.Sequential`'s position).
    SetItem,
    /// `x.name = value`: the object with that attribute set. The change is
    /// followed on the name it is made through (PYTHON.md §3: values are
    /// not aliased).
    SetAttr,
    /// `x.eval()`, `x.train(mode)` as statements: the module with its
    /// `training` flag set (`mode` is `False` for `eval()`).
    SetTraining,
    /// `x.pop(...)` of a dict or list: the pair of the item taken and what
    /// is left.
    Pop,
    /// `x.add_module(name, module)` and `register_module`: the
    /// `nn.Sequential` or dict of modules with the module registered under
    /// that name (replacing one of the same name, else last).
    AddModule,
    /// `self.name = value` in the `__init__` of a class derived from
    /// `nn.Sequential` (`nn.Module.__setattr__`): registered if a layer.
    SetModuleAttr,
    /// `x.load_state_dict(...)` as a statement: the module after loading.
    LoadState,
    // Calls the analysis follows itself (`calls.rs`).
    /// `functools.partial(callee, ...)`: a partial of a callable value.
    Partial,
    /// `a ** b`: Python's power of numbers, PyTorch's `pow` of tensors.
    Power,
    /// `map(f, a, ...)`, `filter(f, a)`, `functools.reduce(f, a[, init])`:
    /// `f` called on the items (`functional.rs`).
    Map,
    Filter,
    Reduce,
    // Values (`builtins.rs`), which never change their arguments.
    /// An f-string or `str.format`: its parts' texts joined.
    Format,
    /// `collections.OrderedDict(pairs)` and `dict(pairs)` of `(key,
    /// value)` pairs: a dict, where the keys are known strings.
    DictFromPairs,
    /// `d.items()`, `d.keys()`, `d.values()` of a dict (or of the modules
    /// a `ModuleDict` or `Sequential` registers), in order.
    Items,
    Keys,
    Values,
    /// `zip(a, b, ...)` of sequences of known length.
    Zip,
    /// `copy.copy(x)`, `copy.deepcopy(x)`: the analysis's values are never
    /// changed in place, so the value itself.
    Copy,
    DeepCopy,
    /// Python's builtins on numbers (`shapes/exec/numbers.rs`).
    Int,
    Float,
    Round,
    Min,
    Max,
    Abs,
    Ceil,
    Floor,
    /// `sum(xs)` of a list of numbers.
    Sum,
    /// `str(x)`: the text Python gives a value the analysis knows.
    Str,
    /// `format(x, spec)`, and an f-string's `{x:spec}`: the text of `x`
    /// by the format specification mini-language.
    FormatValue,
    /// `repr(x)`, and an f-string's `{x!r}`.
    Repr,
    /// Python's builtins over iterables (`shapes/exec/sequences.rs`):
    /// `list(x)`, `tuple(x)`, `sorted(x)`, `reversed(x)`, `enumerate(x)`,
    /// `range(...)` as a value, `any(x)`, `all(x)`.
    List,
    Tuple,
    Sorted,
    Reversed,
    Enumerate,
    Range,
    Any,
    All,
    /// `a if c else b` as `(c, a, b)`: only the branch `c` selects is
    /// evaluated where `c` is decided.
    Conditional,
    /// A `math` function of one float, computed from a known argument.
    Math(MathFunction),
    /// `torch.tensor(data)` of a list of numbers.
    TensorOf,
    /// `t.tolist()`: Python's numbers where the items are known.
    ToList,
    /// `len(set(xs))`: the number of different items.
    DistinctCount,
    /// `np.linspace(start, stop, num)`, in `float64` as numpy computes it.
    NumpyLinspace,
    /// `getattr(x, name)` without a default, of a known string.
    GetAttr,
    /// `x.cuda()`, `x.bool()`, `x.add_(1)`, ...: the value itself, its
    /// items (`shapes::elements`) no longer known.
    KeepsShape,
    /// Put before a statement that may change a tensor in place
    /// (`t.add_(1)`, `t += 1`, `out=t`): from there on no tensor's items
    /// are kept. Its arguments only tie it to the names it may change.
    TensorsChangeInPlace,
    /// `item in container` as `(container, item)`.
    Contains,
    /// A local that a function defined beside it passes to a call, which
    /// may change it in place: the value where it is a number, string,
    /// `None`, function or tuple of those (no call changes one), else
    /// unknown.
    IfImmutable,
    /// `isinstance(v, T)` of the builtin types the analysis decides, the
    /// types as one string: `(v, "int,tuple")`.
    IsInstance,
    /// `callable(v)`, `inspect.isfunction(v)`, `inspect.isclass(v)`
    /// (`shapes/exec/callables.rs`).
    IsCallable,
    IsFunction,
    IsClass,
}

/// The `math` functions of one float that [`Builtin::Math`] computes, as
/// CPython does with the platform's C library.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MathFunction {
    Sqrt,
    Log,
    Log2,
    Log10,
    Exp,
}

impl MathFunction {
    pub const ALL: [MathFunction; 5] = [
        MathFunction::Sqrt,
        MathFunction::Log,
        MathFunction::Log2,
        MathFunction::Log10,
        MathFunction::Exp,
    ];

    /// Its Python name (`math.sqrt`).
    pub fn name(self) -> &'static str {
        match self {
            MathFunction::Sqrt => "math.sqrt",
            MathFunction::Log => "math.log",
            MathFunction::Log2 => "math.log2",
            MathFunction::Log10 => "math.log10",
            MathFunction::Exp => "math.exp",
        }
    }

    /// The function of that Python name.
    pub fn named(name: &str) -> Option<MathFunction> {
        MathFunction::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Its value at `x`; `None` outside its domain.
    pub fn apply(self, x: f64) -> Option<f64> {
        match self {
            MathFunction::Sqrt if x >= 0.0 => Some(x.sqrt()),
            MathFunction::Log if x > 0.0 => Some(x.ln()),
            MathFunction::Log2 if x > 0.0 => Some(x.log2()),
            MathFunction::Log10 if x > 0.0 => Some(x.log10()),
            MathFunction::Exp => Some(x.exp()),
            _ => None,
        }
    }
}

impl Builtin {
    /// The name it is printed by (a dump of the lowering, an operand a
    /// message quotes): the module and function of Python it stands for.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::SetItem => "operator.setitem",
            Builtin::SetAttr => "builtins.setattr",
            Builtin::SetTraining => "torch.nn.Module.train",
            Builtin::Pop => "builtins.pop",
            Builtin::AddModule => "torch.nn.Module.add_module",
            Builtin::SetModuleAttr => "torch.nn.Module.__setattr__",
            Builtin::LoadState => "torch.nn.Module.load_state_dict",
            Builtin::Partial => "functools.partial",
            Builtin::Power => "operator.pow",
            Builtin::Map => "builtins.map",
            Builtin::Filter => "builtins.filter",
            Builtin::Reduce => "functools.reduce",
            Builtin::Format => "builtins.format",
            Builtin::DictFromPairs => "collections.OrderedDict",
            Builtin::Items => "builtins.dict.items",
            Builtin::Keys => "builtins.dict.keys",
            Builtin::Values => "builtins.dict.values",
            Builtin::Zip => "builtins.zip",
            Builtin::Copy => "copy.copy",
            Builtin::DeepCopy => "copy.deepcopy",
            Builtin::Int => "builtins.int",
            Builtin::Str => "builtins.str",
            Builtin::FormatValue => "builtins.format_value",
            Builtin::Repr => "builtins.repr",
            Builtin::List => "builtins.list",
            Builtin::Tuple => "builtins.tuple",
            Builtin::Sorted => "builtins.sorted",
            Builtin::Reversed => "builtins.reversed",
            Builtin::Enumerate => "builtins.enumerate",
            Builtin::Range => "builtins.range",
            Builtin::Any => "builtins.any",
            Builtin::All => "builtins.all",
            Builtin::Float => "builtins.float",
            Builtin::Round => "builtins.round",
            Builtin::Min => "builtins.min",
            Builtin::Max => "builtins.max",
            Builtin::Abs => "builtins.abs",
            Builtin::Ceil => "math.ceil",
            Builtin::Floor => "math.floor",
            Builtin::Sum => "builtins.sum",
            Builtin::Conditional => "builtins.conditional",
            Builtin::Math(function) => function.name(),
            Builtin::TensorOf => "torch.tensor",
            Builtin::ToList => "torch.Tensor.tolist",
            Builtin::DistinctCount => "builtins.len_of_set",
            Builtin::NumpyLinspace => "numpy.linspace",
            Builtin::GetAttr => "builtins.getattr",
            Builtin::KeepsShape => "torch.Tensor.keeps_shape",
            Builtin::TensorsChangeInPlace => "torch.Tensor.changes_in_place",
            Builtin::Contains => "operator.contains",
            Builtin::IfImmutable => "builtins.if_immutable",
            Builtin::IsInstance => "builtins.isinstance",
            Builtin::IsCallable => "builtins.callable",
            Builtin::IsFunction => "inspect.isfunction",
            Builtin::IsClass => "inspect.isclass",
        }
    }

    /// Whether it gives a local a new value made from the old one, `x =
    /// update(x, ...)`: a change of what its first argument names.
    pub fn is_update(self) -> bool {
        matches!(
            self,
            Builtin::SetItem
                | Builtin::SetAttr
                | Builtin::SetTraining
                | Builtin::Pop
                | Builtin::AddModule
                | Builtin::SetModuleAttr
                | Builtin::LoadState
        )
    }

    /// Whether it never changes its arguments: all but the updates and
    /// those that call what they are given (`partial`, the power of a
    /// class's `__pow__`, `map`, `filter`, `reduce`).
    pub fn is_read_only(self) -> bool {
        !self.is_update() && !self.calls_its_arguments()
    }

    /// Whether it calls what it is given (`calls.rs` follows them).
    pub fn calls_its_arguments(self) -> bool {
        matches!(
            self,
            Builtin::Partial | Builtin::Power | Builtin::Map | Builtin::Filter | Builtin::Reduce
        )
    }
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
    /// The Tensor language's `/`: of Ints, the floored quotient
    /// (LANGUAGE.md §1); of tensors, elementwise division.
    Div,
    /// Python's `/`: true division, a float even of two ints (`7 / 2` is
    /// `3.5`); of tensors, PyTorch's `div`, a floating tensor.
    TrueDiv,
    /// Python's `//`: the floored quotient, of ints, floats and tensors.
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
            BinaryOp::Div | BinaryOp::TrueDiv => "/",
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
            | ExprKind::Unknown(_)
            | ExprKind::Builtin(_) => Vec::new(),
            // The body is a scope of its own, read when the function runs.
            ExprKind::Closure(closure) => closure.captures.iter().map(|c| &c.value).collect(),
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
