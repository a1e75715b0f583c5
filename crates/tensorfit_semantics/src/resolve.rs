//! Name resolution: which declaration every name of a file refers to.
//!
//! The name checks (`name_check.rs`: undeclared, redeclared, immutable,
//! uninitialised, argument counts) and the editor features (navigation,
//! references, semantic tokens, completion, signature help) all ask the
//! same question, so it is answered once here, by one walk over the syntax
//! tree that follows the scoping rules of docs/language.md: block scopes and
//! shadowing, parameters and dimension names bound by a signature, index
//! variables local to their statement, functions that do not see the
//! script's locals, `self.member` inside methods. The walk records every
//! occurrence of a name (declaration or use) with what it resolves to, and
//! every name declared twice in one scope.
//!
//! The walked text may be a part of a file (the database checks names one
//! piece at a time): names of items declared elsewhere — another piece, an
//! imported file — resolve to [`Target::Outer`] through [`OuterItems`].
//!
//! Member accesses (`m.forward`, `self.conv.weight`) resolve when the
//! receiver's struct can be told from the syntax alone: `self`, a binding
//! initialised with a constructor call (`let m = Model()`), a parameter or
//! binding annotated with a struct type. Anything else is left unresolved
//! rather than guessed.
//!
//! The walk can also *probe* one offset: it then remembers the scope there
//! (for completion) and the call or member access the offset is in.

use std::collections::{BTreeMap, HashMap};

use crate::{Prelude, PRELUDE_VALUES};
use tensorfit_base::TextRange;
use tensorfit_syntax::ast::{self, ExprKind, FieldName, Pattern, StmtKind};

/// Properties every tensor has (`x.shape`, `x.rank`), for the name checks
/// and the editor features.
pub const TENSOR_PROPERTIES: &[&str] = &["shape", "rank"];

pub type DefId = usize;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefKind {
    Const,
    Function,
    Struct,
    Method,
    Field,
    /// A parameter of a struct's constructor (`struct Block(planes: Int)`).
    StructParam,
    Param,
    Let,
    Var,
    LoopVar,
    DimName,
    Segment,
    IndexVar,
}

/// The syntax a declaration comes from, for details and signatures.
#[derive(Clone, Copy, Debug)]
pub enum DefSource<'a> {
    Const(&'a ast::Const),
    Function(&'a ast::Function),
    Struct(&'a ast::Struct),
    Field(&'a ast::Field),
    Param(&'a ast::Param),
    /// The annotation of a `let`/`var`, if any.
    Binding(Option<&'a ast::Type>),
    None,
}

#[derive(Clone, Debug)]
pub struct Def<'a> {
    pub name: String,
    pub kind: DefKind,
    pub name_range: TextRange,
    /// The whole declaration: the item, the statement, the parameter.
    pub full_range: TextRange,
    /// The struct of a member, the function or struct of a parameter.
    pub owner: Option<DefId>,
    /// The struct whose instance this binding holds, when known.
    pub instance_of: Option<DefId>,
    pub source: DefSource<'a>,
}

/// What a name refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Def(DefId),
    /// An operation of the prelude (also when called as a method).
    Prelude(String),
    /// A parameter of a prelude operation, named in a call.
    PreludeParam {
        op: String,
        param: String,
    },
    /// `None`.
    PreludeValue(String),
    /// An item declared outside the walked text: in another piece of the
    /// file or in an imported file (see [`OuterItems`]).
    Outer(String),
    /// `x.shape`, `x.rank`.
    TensorProperty(String),
    /// `broadcast` in `..broadcast(a, b)`.
    SegmentFunction,
    Unresolved,
}

/// Where in the syntax a name occurs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Plain,
    /// The called name of `f(...)`.
    Callee,
    /// `value.name`; `called` for `value.name(...)`. `self_of` is the
    /// struct whose `self` the receiver is.
    Member {
        called: bool,
        self_of: Option<DefId>,
    },
    /// The name assigned by `name = ...`, `name += ...` or `name[i] = ...`.
    Assigned,
    /// The function of a dimension segment: `broadcast` in
    /// `..broadcast(a, b)`.
    SegmentFunction,
    /// `name:` in a call.
    NamedArg,
    /// A struct or layer type: `m: Model`.
    TypeName,
    /// A name inside `Tensor[...]`.
    Dimension,
    /// PyTorch's module before one of its operations: `F` in
    /// `F.softmax(x)`, `torch.nn` in `torch.nn.Linear(3, 4)`, when the
    /// program declares no such name. The unresolved name is the whole
    /// `F.softmax`; its range runs from the prefix to the operation's name.
    /// `modelled`: the prelude has the operation.
    TorchPrefix {
        modelled: bool,
    },
}

/// How PyTorch code names the modules its operations live in: written
/// before a prelude operation in a Tensor file, they are a habit, reported
/// with the operation's own name (`softmax`, not `F.softmax`).
const TORCH_PREFIXES: &[&str] = &["torch", "nn", "F", "functional"];

/// A name that resolves to nothing.
#[derive(Clone, Debug)]
pub struct UnresolvedName {
    pub name: String,
    pub range: TextRange,
    pub role: Role,
    /// The local bindings visible there, innermost first: kept for the
    /// first few names (see [`SCOPES_KEPT_FOR_SUGGESTIONS`]) that a "did
    /// you mean" may be offered for.
    pub visible: Option<Vec<DefId>>,
}

#[derive(Clone, Debug)]
pub struct Occurrence {
    pub range: TextRange,
    pub target: Target,
    pub declaration: bool,
    pub role: Role,
}

/// What a call calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Callee {
    /// A function, a method or a struct's constructor.
    Def(DefId),
    /// A prelude operation; `method` for `x.op(...)`, whose receiver is the
    /// first argument.
    Prelude {
        op: String,
        method: bool,
    },
    /// A function or struct declared outside the walked text.
    Outer(String),
    Unknown,
}

#[derive(Clone, Debug)]
pub struct CallSite<'a> {
    pub callee_range: TextRange,
    pub range: TextRange,
    pub callee: Callee,
    pub args: &'a [ast::Arg],
    /// The callee is named by the call itself (`f(...)`, `self.m(...)`,
    /// `x.op(...)`), not found through a value whose struct the syntax
    /// only suggests (`m(...)` with `let m = Model()`, which a later
    /// assignment may have changed). Argument checks trust only these.
    pub direct: bool,
}

/// The items of a file a walk sees without walking them: those of the
/// file's other pieces and of its imports.
pub trait OuterItems {
    fn declares(&self, name: &str) -> bool;
}

/// A whole file, without imports: nothing is outside it.
pub struct NoOuterItems;

impl OuterItems for NoOuterItems {
    fn declares(&self, _: &str) -> bool {
        false
    }
}

/// The most unresolved names whose scope a resolution keeps (for "did you
/// mean" suggestions; a file with thousands of unknown names gets them for
/// the first few only).
pub const SCOPES_KEPT_FOR_SUGGESTIONS: usize = 50;

/// The scope at the probed offset.
#[derive(Clone, Debug, Default)]
pub struct ProbeScope {
    /// Visible local bindings, innermost first, shadowed ones left out.
    pub locals: Vec<DefId>,
    /// The offset is on a struct or layer type name.
    pub in_type: bool,
    /// The offset is on the member name of `receiver.member`.
    pub member: Option<ProbeMember>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProbeMember {
    /// The receiver's struct, when known.
    pub receiver_struct: Option<DefId>,
    /// The receiver is a struct instance (so tensor operations do not
    /// apply).
    pub receiver_is_instance: bool,
}

#[derive(Debug)]
pub struct Resolution<'a> {
    /// What names no declaration of the file's resolve to.
    pub prelude: &'a Prelude,
    pub defs: Vec<Def<'a>>,
    /// Sorted by range.
    pub occurrences: Vec<Occurrence>,
    pub calls: Vec<CallSite<'a>>,
    /// The file's items by name; the first declaration wins.
    pub items: BTreeMap<String, DefId>,
    /// The declaration of each item of the file, in order.
    pub item_defs: Vec<Option<DefId>>,
    /// Fields, constructor parameters and methods of each struct.
    pub members: HashMap<DefId, Members>,
    /// The parameters (without `self`) of functions, methods and structs.
    pub params: HashMap<DefId, Vec<DefId>>,
    /// Declarations of a name already declared in the same scope, with the
    /// first one: `(later, first)`.
    pub redeclarations: Vec<(DefId, DefId)>,
    /// `self` outside the methods of a struct.
    pub stray_self: Vec<TextRange>,
    /// The names that resolve to nothing, in the order walked.
    pub unresolved: Vec<UnresolvedName>,
    pub probe: Option<ProbeScope>,
}

#[derive(Clone, Debug, Default)]
pub struct Members {
    pub fields: Vec<DefId>,
    pub params: Vec<DefId>,
    pub methods: Vec<DefId>,
}

impl<'a> Resolution<'a> {
    fn new(prelude: &'a Prelude) -> Resolution<'a> {
        Resolution {
            prelude,
            defs: Vec::new(),
            occurrences: Vec::new(),
            calls: Vec::new(),
            items: BTreeMap::new(),
            item_defs: Vec::new(),
            members: HashMap::new(),
            params: HashMap::new(),
            redeclarations: Vec::new(),
            stray_self: Vec::new(),
            unresolved: Vec::new(),
            probe: None,
        }
    }

    /// The occurrence at `offset`: one that contains it, else one that ends
    /// there (the cursor just after a name).
    pub fn occurrence_at(&self, offset: usize) -> Option<&Occurrence> {
        let offset = u32::try_from(offset).ok()?;
        let mut touching = None;
        for occurrence in &self.occurrences {
            let range = occurrence.range;
            if range.start <= offset && offset < range.end {
                return Some(occurrence);
            }
            if range.end == offset && !range.is_empty() {
                touching = Some(occurrence);
            }
        }
        touching
    }

    /// The occurrences inside `range` (those of an expression), in order.
    pub fn occurrences_within(&self, range: TextRange) -> &[Occurrence] {
        let first = self
            .occurrences
            .partition_point(|o| o.range.start < range.start);
        let end = self
            .occurrences
            .partition_point(|o| o.range.start < range.end);
        &self.occurrences[first..end.max(first)]
    }

    /// The declaration or use recorded at exactly `range`.
    pub fn occurrence_exactly_at(&self, range: TextRange) -> Option<&Occurrence> {
        self.occurrences_within(range)
            .iter()
            .find(|o| o.range == range)
    }

    /// The member of struct `s` called `name`; a call prefers methods.
    pub fn member(&self, s: DefId, name: &str, called: bool) -> Option<DefId> {
        let members = self.members.get(&s)?;
        let find = |ids: &[DefId]| ids.iter().copied().find(|&id| self.defs[id].name == name);
        if called {
            find(&members.methods)
                .or_else(|| find(&members.fields))
                .or_else(|| find(&members.params))
        } else {
            find(&members.fields)
                .or_else(|| find(&members.params))
                .or_else(|| find(&members.methods))
        }
    }

    /// What calling a value of struct `s` calls: its `forward` method.
    pub fn forward_of(&self, s: DefId) -> Option<DefId> {
        let members = self.members.get(&s)?;
        members
            .methods
            .iter()
            .copied()
            .find(|&id| self.defs[id].name == "forward")
    }
}

/// Resolves every name of `file`.
pub fn resolve<'a>(file: &'a ast::SourceFile, prelude: &'a Prelude) -> Resolution<'a> {
    resolve_with(file, prelude, &NoOuterItems, None, Walked::All)
}

/// Resolves every name of `part`, a part of a file whose other items (and
/// imported items) are `outer`.
pub fn resolve_in<'a>(
    part: &'a ast::SourceFile,
    prelude: &'a Prelude,
    outer: &dyn OuterItems,
) -> Resolution<'a> {
    resolve_with(part, prelude, outer, None, Walked::All)
}

/// Resolves the names of `file` and records the scope at `probe`. Only the
/// first `walked_items` items are walked; the others (items after the
/// cursor, imported items) are declared, so that they can be referred to,
/// but their bodies, whose ranges belong to another text, are not.
pub fn resolve_at<'a>(
    file: &'a ast::SourceFile,
    prelude: &'a Prelude,
    probe: u32,
    walked_items: usize,
) -> Resolution<'a> {
    resolve_with(
        file,
        prelude,
        &NoOuterItems,
        Some(probe),
        Walked::First(walked_items),
    )
}

/// Resolves the names of the item around `offset` (or of the script, if
/// no item is), with every item declared: what a question about one name
/// needs (hover), without walking the whole file's bodies (5 ms on a file
/// of 1,000 functions). The names there resolve as in [`resolve`].
pub fn resolve_around<'a>(
    file: &'a ast::SourceFile,
    prelude: &'a Prelude,
    offset: u32,
) -> Resolution<'a> {
    resolve_with(file, prelude, &NoOuterItems, None, Walked::Around(offset))
}

/// Which bodies a resolution walks (every item is declared).
#[derive(Clone, Copy)]
enum Walked {
    All,
    /// The first items and the script.
    First(usize),
    /// The items whose range holds the offset, or else the script.
    Around(u32),
}

impl Walked {
    fn item(self, index: usize, item: &ast::Item) -> bool {
        match self {
            Walked::All => true,
            Walked::First(count) => index < count,
            Walked::Around(offset) => holds(item.range(), offset),
        }
    }

    fn script(self, file: &ast::SourceFile) -> bool {
        match self {
            Walked::All | Walked::First(_) => true,
            Walked::Around(offset) => !file.items.iter().any(|i| holds(i.range(), offset)),
        }
    }
}

fn holds(range: TextRange, offset: u32) -> bool {
    range.start <= offset && offset <= range.end
}

fn resolve_with<'a>(
    file: &'a ast::SourceFile,
    prelude: &'a Prelude,
    outer: &dyn OuterItems,
    probe: Option<u32>,
    walked: Walked,
) -> Resolution<'a> {
    let mut walker = Walker {
        res: Resolution::new(prelude),
        outer,
        scopes_kept: 0,
        scopes: Vec::new(),
        current_struct: None,
        in_method: false,
        probe,
        block_snapshot: None,
        exact_snapshot: None,
    };
    let item_ids = walker.declare_items(file);
    walker.walk_items(file, &item_ids, walked);
    walker.res.item_defs = item_ids;
    if walked.script(file) {
        walker.with_fresh_scopes(|w| {
            // The script is a block spanning the file; any function body
            // around the probe is more specific.
            w.stmts_in_block(&file.script, TextRange::new(0, u32::MAX as usize));
        });
    }
    let mut res = walker.res;
    res.occurrences
        .sort_by_key(|o| (o.range.start, o.range.end, !o.declaration));
    res.probe = match (walker.exact_snapshot, walker.block_snapshot) {
        (Some(exact), _) => Some(exact),
        (None, Some((_, block))) => Some(block),
        (None, None) => probe.map(|_| ProbeScope::default()),
    };
    res
}

#[derive(Clone, Default)]
struct Scope {
    names: HashMap<String, DefId>,
    /// Bare subscripts in index notation declare index variables here.
    collects_indices: bool,
    /// The statement or reduction an index variable belongs to.
    index_context: TextRange,
}

struct Walker<'a, 'o> {
    res: Resolution<'a>,
    outer: &'o dyn OuterItems,
    /// How many unresolved names have their scope kept.
    scopes_kept: usize,
    scopes: Vec<Scope>,
    current_struct: Option<DefId>,
    in_method: bool,
    probe: Option<u32>,
    /// The scope after the last statement before the probe, with the start
    /// of its block (the innermost block wins).
    block_snapshot: Option<(u32, ProbeScope)>,
    /// The scope at a name that contains the probe.
    exact_snapshot: Option<ProbeScope>,
}

/// `torch.nn.functional` as written (see `Walker::is_torch_prefix`).
fn prefix_text(value: &ast::Expr) -> String {
    match &value.kind {
        ExprKind::Name(name) => name.clone(),
        ExprKind::Field {
            value: inner,
            field: FieldName::Named(field),
        } => format!("{}.{}", prefix_text(inner), field.text),
        _ => String::new(),
    }
}

fn contains(range: TextRange, offset: u32) -> bool {
    range.start <= offset && offset <= range.end
}

impl<'a> Walker<'a, '_> {
    // --------------------------------------------------------- declarations

    fn add_def(&mut self, def: Def<'a>) -> DefId {
        self.res.defs.push(def);
        self.res.defs.len() - 1
    }

    /// A use of `name` (not its declaration), noting it when it resolves
    /// to nothing.
    fn use_of(&mut self, name: &str, range: TextRange, target: Target, role: Role) {
        if target == Target::Unresolved {
            let suggestible = matches!(
                role,
                Role::Plain | Role::Callee | Role::Assigned | Role::Dimension
            );
            let visible = (suggestible && self.scopes_kept < SCOPES_KEPT_FOR_SUGGESTIONS)
                .then(|| self.snapshot(None, false).locals);
            self.scopes_kept += usize::from(visible.is_some());
            self.res.unresolved.push(UnresolvedName {
                name: name.to_owned(),
                range,
                role,
                visible,
            });
        }
        self.occurrence(range, target, false, role);
    }

    fn occurrence(&mut self, range: TextRange, target: Target, declaration: bool, role: Role) {
        self.res.occurrences.push(Occurrence {
            range,
            target,
            declaration,
            role,
        });
    }

    /// Creates the declarations of items, struct members and parameters
    /// before any body is walked: bodies refer to items declared later, and
    /// named arguments to parameters of functions walked later.
    /// Returns the declaration of each item (in `file.items` order).
    fn declare_items(&mut self, file: &'a ast::SourceFile) -> Vec<Option<DefId>> {
        let mut structs = Vec::new();
        let mut item_ids = Vec::with_capacity(file.items.len());
        for item in &file.items {
            let mut item_id = None;
            match item {
                ast::Item::Const(c) => {
                    if let Some(name) = &c.name {
                        let id = self.item_def(name, DefKind::Const, c.range, DefSource::Const(c));
                        self.register_item(name, id);
                        item_id = Some(id);
                    }
                }
                ast::Item::Import(_) => {}
                ast::Item::Function(f) => {
                    if let Some(name) = &f.name {
                        let id =
                            self.item_def(name, DefKind::Function, f.range, DefSource::Function(f));
                        self.register_item(name, id);
                        self.declare_params(id, &f.params, DefKind::Param);
                        item_id = Some(id);
                    }
                }
                ast::Item::Struct(s) => {
                    let Some(name) = &s.name else {
                        item_ids.push(None);
                        continue;
                    };
                    let id = self.item_def(name, DefKind::Struct, s.range, DefSource::Struct(s));
                    item_id = Some(id);
                    self.register_item(name, id);
                    let params = self.declare_params(
                        id,
                        s.params.as_deref().unwrap_or(&[]),
                        DefKind::StructParam,
                    );
                    let mut members = Members {
                        params,
                        ..Members::default()
                    };
                    for field in &s.fields {
                        let field_id = self.add_def(Def {
                            name: field.name.text.clone(),
                            kind: DefKind::Field,
                            name_range: field.name.range,
                            full_range: field.range,
                            owner: Some(id),
                            instance_of: None,
                            source: DefSource::Field(field),
                        });
                        members.fields.push(field_id);
                    }
                    for method in &s.methods {
                        let Some(method_name) = &method.name else {
                            continue;
                        };
                        let method_id = self.add_def(Def {
                            name: method_name.text.clone(),
                            kind: DefKind::Method,
                            name_range: method_name.range,
                            full_range: method.range,
                            owner: Some(id),
                            instance_of: None,
                            source: DefSource::Function(method),
                        });
                        self.declare_params(method_id, &method.params, DefKind::Param);
                        members.methods.push(method_id);
                    }
                    self.res.members.insert(id, members);
                    structs.push((id, s));
                }
            }
            item_ids.push(item_id);
        }
        // Now that every struct name is known: which fields and parameters
        // hold struct instances.
        for (id, s) in structs {
            let members = self.res.members.get(&id).cloned().unwrap_or_default();
            for (field_id, field) in members.fields.iter().zip(&s.fields) {
                let instance = field
                    .ty
                    .as_ref()
                    .and_then(|t| self.struct_of_type(t))
                    .or_else(|| self.constructed_struct(&field.value));
                self.res.defs[*field_id].instance_of = instance;
            }
        }
        for id in 0..self.res.defs.len() {
            if let DefSource::Param(p) = self.res.defs[id].source {
                let instance = p.ty.as_ref().and_then(|t| self.struct_of_type(t));
                self.res.defs[id].instance_of = instance;
            }
        }
        item_ids
    }

    fn item_def(
        &mut self,
        name: &ast::Name,
        kind: DefKind,
        full_range: TextRange,
        source: DefSource<'a>,
    ) -> DefId {
        self.add_def(Def {
            name: name.text.clone(),
            kind,
            name_range: name.range,
            full_range,
            owner: None,
            instance_of: None,
            source,
        })
    }

    fn register_item(&mut self, name: &ast::Name, id: DefId) {
        self.res.items.entry(name.text.clone()).or_insert(id);
    }

    fn declare_params(
        &mut self,
        owner: DefId,
        params: &'a [ast::Param],
        kind: DefKind,
    ) -> Vec<DefId> {
        let ids: Vec<DefId> = params
            .iter()
            .filter(|p| !p.is_self)
            .map(|p| {
                self.add_def(Def {
                    name: p.name.text.clone(),
                    kind,
                    name_range: p.name.range,
                    full_range: p.range,
                    owner: Some(owner),
                    instance_of: None,
                    source: DefSource::Param(p),
                })
            })
            .collect();
        self.res.params.insert(owner, ids.clone());
        ids
    }

    /// The user struct a type names.
    fn struct_of_type(&self, ty: &ast::Type) -> Option<DefId> {
        match &ty.kind {
            ast::TypeKind::Named(name) => self.item_struct(&name.text),
            _ => None,
        }
    }

    fn item_struct(&self, name: &str) -> Option<DefId> {
        let id = *self.res.items.get(name)?;
        (self.res.defs[id].kind == DefKind::Struct).then_some(id)
    }

    /// `Model(...)` at module level (fields see no locals but parameters,
    /// which are not structs).
    fn constructed_struct(&self, value: &ast::Expr) -> Option<DefId> {
        match &value.kind {
            ExprKind::Call { callee, .. } => self.item_struct(callee.as_name()?),
            ExprKind::ShapeAssert { value, .. } => self.constructed_struct(value),
            _ => None,
        }
    }

    // ---------------------------------------------------------------- scopes

    fn with_fresh_scopes(&mut self, body: impl FnOnce(&mut Self)) {
        let saved = std::mem::replace(&mut self.scopes, vec![Scope::default()]);
        body(self);
        self.scopes = saved;
    }

    fn lookup_local(&self, name: &str) -> Option<DefId> {
        self.scopes
            .iter()
            .rev()
            .find_map(|scope| scope.names.get(name).copied())
    }

    /// Whether `value` is PyTorch's name for a module of operations (`F`,
    /// `torch.nn.functional`) that the program does not declare.
    fn is_torch_prefix(&self, value: &ast::Expr) -> bool {
        match &value.kind {
            ExprKind::Name(name) => {
                TORCH_PREFIXES.contains(&name.as_str())
                    && self.resolve_name(name) == Target::Unresolved
            }
            ExprKind::Field {
                value: inner,
                field: FieldName::Named(field),
            } => TORCH_PREFIXES.contains(&field.text.as_str()) && self.is_torch_prefix(inner),
            _ => false,
        }
    }

    fn resolve_name(&self, name: &str) -> Target {
        if let Some(id) = self.lookup_local(name) {
            return Target::Def(id);
        }
        if let Some(&id) = self.res.items.get(name) {
            return Target::Def(id);
        }
        if self.outer.declares(name) {
            return Target::Outer(name.to_owned());
        }
        if self.res.prelude.signature(name).is_some() {
            return Target::Prelude(name.to_owned());
        }
        if PRELUDE_VALUES.contains(&name) {
            return Target::PreludeValue(name.to_owned());
        }
        Target::Unresolved
    }

    /// Binds `name` in the innermost scope, noting a name already declared
    /// there.
    fn bind(&mut self, name: &str, id: DefId) {
        if let Some(scope) = self.scopes.last_mut() {
            if let Some(first) = scope.names.insert(name.to_owned(), id) {
                self.res.redeclarations.push((id, first));
            }
        }
    }

    /// Declares a new local binding in the innermost scope.
    fn declare_local(
        &mut self,
        name: &ast::Name,
        kind: DefKind,
        full_range: TextRange,
        instance_of: Option<DefId>,
        source: DefSource<'a>,
    ) -> DefId {
        let id = self.add_def(Def {
            name: name.text.clone(),
            kind,
            name_range: name.range,
            full_range,
            owner: None,
            instance_of,
            source,
        });
        self.bind(&name.text, id);
        self.occurrence(name.range, Target::Def(id), true, Role::Plain);
        id
    }

    // --------------------------------------------------------------- probing

    fn snapshot(&self, member: Option<ProbeMember>, in_type: bool) -> ProbeScope {
        let mut seen = std::collections::HashSet::new();
        let mut locals = Vec::new();
        for scope in self.scopes.iter().rev() {
            let mut names: Vec<(&String, &DefId)> = scope.names.iter().collect();
            names.sort_by_key(|(_, id)| std::cmp::Reverse(**id));
            for (name, id) in names {
                if seen.insert(name.clone()) {
                    locals.push(*id);
                }
            }
        }
        ProbeScope {
            locals,
            in_type,
            member,
        }
    }

    /// Remembers the scope when `range` (a name) contains the probe.
    fn probe_name(&mut self, range: TextRange, member: Option<ProbeMember>, in_type: bool) {
        if self.exact_snapshot.is_some() {
            return;
        }
        if self.probe.is_some_and(|p| contains(range, p)) {
            self.exact_snapshot = Some(self.snapshot(member, in_type));
        }
    }

    /// Remembers the scope of a block that contains the probe, unless a
    /// block inside it (which starts later) already did.
    fn probe_block(&mut self, block: TextRange) {
        let Some(probe) = self.probe else { return };
        if !contains(block, probe) {
            return;
        }
        let more_specific = self
            .block_snapshot
            .as_ref()
            .is_none_or(|(start, _)| block.start >= *start);
        if more_specific {
            self.block_snapshot = Some((block.start, self.snapshot(None, false)));
        }
    }

    // ----------------------------------------------------------------- items

    fn walk_items(
        &mut self,
        file: &'a ast::SourceFile,
        item_ids: &[Option<DefId>],
        walked: Walked,
    ) {
        for (i, item) in file.items.iter().enumerate() {
            if !walked.item(i, item) {
                continue;
            }
            let id = item_ids.get(i).copied().flatten();
            match item {
                ast::Item::Const(c) => {
                    if let (Some(name), Some(id)) = (&c.name, id) {
                        self.occurrence(name.range, Target::Def(id), true, Role::Plain);
                    }
                    self.with_fresh_scopes(|w| {
                        if let Some(ty) = &c.ty {
                            w.ty(ty, false, c.range);
                        }
                        w.expr(&c.value);
                    });
                }
                ast::Item::Import(_) => {}
                ast::Item::Function(f) => self.function(f, id),
                ast::Item::Struct(s) => self.structure(s, id),
            }
        }
    }

    fn function(&mut self, f: &'a ast::Function, id: Option<DefId>) {
        if let (Some(name), Some(id)) = (&f.name, id) {
            self.occurrence(name.range, Target::Def(id), true, Role::Plain);
        }
        let param_ids = id
            .and_then(|id| self.res.params.get(&id).cloned())
            .unwrap_or_default();
        let saved_method = self.in_method;
        self.with_fresh_scopes(|w| {
            w.in_method = f.has_self();
            w.params(f.params.iter().filter(|p| !p.is_self), &param_ids);
            for param in &f.params {
                if let Some(ty) = &param.ty {
                    w.ty(ty, true, param.range);
                }
                if let Some(default) = &param.default {
                    w.expr(default);
                }
            }
            if let Some(ty) = &f.return_type {
                w.ty(ty, true, ty.range);
            }
            for clause in &f.where_clauses {
                w.expr(clause);
            }
            if let Some(body) = &f.body {
                w.scopes.push(Scope::default());
                w.stmts_in_block(&body.stmts, body.range);
                w.scopes.pop();
            }
        });
        self.in_method = saved_method;
    }

    /// Binds parameters to the declarations made for them up front (or to
    /// new ones when the function had no name to hang them on).
    fn params(&mut self, params: impl Iterator<Item = &'a ast::Param>, ids: &[DefId]) {
        for (i, param) in params.enumerate() {
            match ids.get(i) {
                Some(&id) => {
                    self.bind(&param.name.text, id);
                    self.occurrence(param.name.range, Target::Def(id), true, Role::Plain);
                }
                None => {
                    let instance = param.ty.as_ref().and_then(|t| self.struct_of_type(t));
                    self.declare_local(
                        &param.name,
                        DefKind::Param,
                        param.range,
                        instance,
                        DefSource::Param(param),
                    );
                }
            }
        }
    }

    fn structure(&mut self, s: &'a ast::Struct, id: Option<DefId>) {
        if let (Some(name), Some(id)) = (&s.name, id) {
            self.occurrence(name.range, Target::Def(id), true, Role::Plain);
        }
        let members = id
            .and_then(|id| self.res.members.get(&id).cloned())
            .unwrap_or_default();
        let saved_struct = std::mem::replace(&mut self.current_struct, id);
        self.with_fresh_scopes(|w| {
            w.params(s.params.iter().flatten(), &members.params);
            for param in s.params.iter().flatten() {
                if let Some(ty) = &param.ty {
                    w.ty(ty, true, param.range);
                }
                if let Some(default) = &param.default {
                    w.expr(default);
                }
            }
            for (i, field) in s.fields.iter().enumerate() {
                if let Some(&field_id) = members.fields.get(i) {
                    w.occurrence(field.name.range, Target::Def(field_id), true, Role::Plain);
                }
                if let Some(ty) = &field.ty {
                    w.ty(ty, true, field.range);
                }
                // A field initialiser sees the struct's parameters: the
                // scope for completion there is this one.
                w.probe_block(field.range);
                w.expr(&field.value);
            }
        });
        let mut methods = members.methods.iter();
        for method in &s.methods {
            let method_id = if method.name.is_some() {
                methods.next().copied()
            } else {
                None
            };
            self.function(method, method_id);
        }
        self.current_struct = saved_struct;
    }

    // ----------------------------------------------------------------- types

    /// Walks a type; with `binds_names`, a bare name that resolves to
    /// nothing declares a dimension name (as the name checker does).
    fn ty(&mut self, ty: &'a ast::Type, binds_names: bool, context: TextRange) {
        match &ty.kind {
            ast::TypeKind::Tensor { dims: Some(dims) } => {
                for dim in dims {
                    self.dim(dim, binds_names, context);
                }
            }
            ast::TypeKind::Tuple(elements) => {
                for element in elements {
                    self.ty(element, binds_names, context);
                }
            }
            ast::TypeKind::Named(name) => {
                self.probe_name(name.range, None, true);
                let target = match self.res.items.get(&name.text) {
                    Some(&id) if self.res.defs[id].kind == DefKind::Struct => Target::Def(id),
                    None if self.outer.declares(&name.text) => Target::Outer(name.text.clone()),
                    _ if self.res.prelude.signature(&name.text).is_some() => {
                        Target::Prelude(name.text.clone())
                    }
                    _ => Target::Unresolved,
                };
                self.use_of(&name.text, name.range, target, Role::TypeName);
            }
            // A type still to be typed is a type position too.
            ast::TypeKind::Missing => self.probe_name(ty.range, None, true),
            _ => {}
        }
    }

    fn dim(&mut self, dim: &'a ast::Dim, binds_names: bool, context: TextRange) {
        match dim {
            ast::Dim::Unknown(_) => {}
            ast::Dim::Segment {
                name, args: None, ..
            } => {
                self.probe_name(name.range, None, false);
                match self.lookup_local(&name.text) {
                    Some(id) => {
                        self.occurrence(name.range, Target::Def(id), false, Role::Dimension)
                    }
                    None => {
                        self.declare_local(name, DefKind::Segment, context, None, DefSource::None);
                    }
                }
            }
            ast::Dim::Segment {
                name,
                args: Some(args),
                ..
            } => {
                let target = if name.text == "broadcast" {
                    Target::SegmentFunction
                } else {
                    Target::Unresolved
                };
                self.use_of(&name.text, name.range, target, Role::SegmentFunction);
                for arg in args {
                    self.probe_name(arg.range, None, false);
                    let target = self.resolve_name(&arg.text);
                    self.use_of(&arg.text, arg.range, target, Role::Dimension);
                }
            }
            ast::Dim::Expr(expr) => match &expr.kind {
                ExprKind::Name(name) => {
                    let range = name_range(expr, name);
                    self.probe_name(range, None, false);
                    match self.resolve_name(name) {
                        Target::Unresolved if binds_names => {
                            let name = ast::Name {
                                text: name.clone(),
                                range,
                            };
                            self.declare_local(
                                &name,
                                DefKind::DimName,
                                context,
                                None,
                                DefSource::None,
                            );
                        }
                        target => self.use_of(name, range, target, Role::Dimension),
                    }
                }
                _ => self.expr(expr),
            },
        }
    }

    // ------------------------------------------------------------ statements

    /// The statements of one block, in the current (already pushed) scope.
    /// The scope at the probe is the one before the first statement that
    /// does not end before it.
    fn stmts_in_block(&mut self, stmts: &'a [ast::Stmt], block: TextRange) {
        let mut probed = false;
        for stmt in stmts {
            if !probed && self.probe.is_some_and(|p| stmt.range.end > p) {
                self.probe_block(block);
                probed = true;
            }
            self.stmt(stmt);
        }
        if !probed {
            self.probe_block(block);
        }
    }

    fn block_in_new_scope(&mut self, block: &'a ast::Block) {
        self.scopes.push(Scope::default());
        self.stmts_in_block(&block.stmts, block.range);
        self.scopes.pop();
    }

    fn stmt(&mut self, stmt: &'a ast::Stmt) {
        match &stmt.kind {
            StmtKind::Let { pattern, ty, value } => {
                self.definition_value(pattern, Some(value), stmt.range);
                if let Some(ty) = ty {
                    self.ty(ty, true, stmt.range);
                }
                let instance = self.instance_for(ty.as_ref(), Some(value));
                self.declare_pattern(pattern, DefKind::Let, stmt.range, instance, ty.as_ref());
            }
            StmtKind::Var { pattern, ty, value } => {
                self.definition_value(pattern, value.as_ref(), stmt.range);
                if let Some(ty) = ty {
                    self.ty(ty, true, stmt.range);
                }
                let instance = self.instance_for(ty.as_ref(), value.as_ref());
                self.declare_pattern(pattern, DefKind::Var, stmt.range, instance, ty.as_ref());
            }
            StmtKind::Assign { target, value, .. } => self.assignment(target, value, stmt.range),
            StmtKind::Assert {
                condition, message, ..
            } => {
                self.expr(condition);
                if let Some(message) = message {
                    self.expr(message);
                }
            }
            StmtKind::If {
                condition,
                then_branch,
                else_branch,
            } => {
                self.expr(condition);
                self.block_in_new_scope(then_branch);
                match else_branch {
                    Some(ast::ElseBranch::Block(block)) => self.block_in_new_scope(block),
                    Some(ast::ElseBranch::If(nested)) => {
                        self.scopes.push(Scope::default());
                        self.stmt(nested);
                        self.scopes.pop();
                    }
                    None => {}
                }
            }
            StmtKind::For {
                variable,
                start,
                end,
                body,
            } => {
                self.expr(start);
                self.expr(end);
                self.scopes.push(Scope::default());
                if let Some(variable) = variable {
                    self.declare_local(
                        variable,
                        DefKind::LoopVar,
                        stmt.range,
                        None,
                        DefSource::None,
                    );
                }
                self.stmts_in_block(&body.stmts, body.range);
                self.scopes.pop();
            }
            StmtKind::While { condition, body } => {
                self.expr(condition);
                self.block_in_new_scope(body);
            }
            StmtKind::Return(value) => {
                if let Some(value) = value {
                    self.expr(value);
                }
            }
            StmtKind::Expr(expr) => self.expr(expr),
        }
    }

    /// The struct a new binding holds: from its annotation or its value.
    fn instance_for(&self, ty: Option<&ast::Type>, value: Option<&ast::Expr>) -> Option<DefId> {
        ty.and_then(|t| self.struct_of_type(t))
            .or_else(|| value.and_then(|v| self.struct_of_expr(v)))
    }

    fn definition_value(
        &mut self,
        pattern: &'a Pattern,
        value: Option<&'a ast::Expr>,
        stmt: TextRange,
    ) {
        let Some(value) = value else { return };
        match pattern {
            Pattern::Index { indices, .. } => self.index_notation(
                indices.iter().map(|i| (i.text.clone(), i.range)),
                value,
                stmt,
            ),
            _ => self.expr(value),
        }
    }

    /// The right side of index notation, with the left-hand indices (and
    /// every bare subscript) as statement-local index variables.
    fn index_notation(
        &mut self,
        indices: impl Iterator<Item = (String, TextRange)>,
        value: &'a ast::Expr,
        stmt: TextRange,
    ) {
        self.scopes.push(Scope {
            collects_indices: true,
            index_context: stmt,
            ..Scope::default()
        });
        for (text, range) in indices {
            let name = ast::Name { text, range };
            self.probe_name(range, None, false);
            self.declare_local(&name, DefKind::IndexVar, stmt, None, DefSource::None);
        }
        self.expr(value);
        self.scopes.pop();
    }

    fn declare_pattern(
        &mut self,
        pattern: &'a Pattern,
        kind: DefKind,
        stmt: TextRange,
        instance: Option<DefId>,
        ty: Option<&'a ast::Type>,
    ) {
        match pattern {
            Pattern::Name(name) | Pattern::Index { name, .. } => {
                self.probe_name(name.range, None, false);
                self.declare_local(name, kind, stmt, instance, DefSource::Binding(ty));
            }
            Pattern::Tuple { elements, .. } => {
                for element in elements {
                    self.declare_pattern(element, kind, stmt, None, None);
                }
            }
            Pattern::Missing(_) => {}
        }
    }

    fn assignment(&mut self, target: &'a ast::Expr, value: &'a ast::Expr, stmt: TextRange) {
        match &target.kind {
            ExprKind::Name(name) => {
                self.expr(value);
                self.assigned_name(target, name);
            }
            ExprKind::Subscript {
                value: tensor,
                indices,
            } => {
                let index_names: Vec<(String, TextRange)> = indices
                    .iter()
                    .filter_map(|i| {
                        let name = i.as_name()?;
                        Some((name.to_owned(), name_range(i, name)))
                    })
                    .collect();
                self.index_notation(index_names.into_iter(), value, stmt);
                for index in indices.iter().filter(|i| i.as_name().is_none()) {
                    self.expr(index);
                }
                match tensor.as_name() {
                    Some(name) => self.assigned_name(tensor, name),
                    None => self.expr(tensor),
                }
            }
            _ => {
                self.expr(target);
                self.expr(value);
            }
        }
    }

    fn assigned_name(&mut self, target: &ast::Expr, name: &str) {
        let range = name_range(target, name);
        self.probe_name(range, None, false);
        let resolved = self.resolve_name(name);
        self.use_of(name, range, resolved, Role::Assigned);
    }

    // ----------------------------------------------------------- expressions

    /// The user struct an expression's value is an instance of, when the
    /// syntax tells.
    fn struct_of_expr(&self, e: &ast::Expr) -> Option<DefId> {
        match &e.kind {
            ExprKind::SelfValue if self.in_method => self.current_struct,
            ExprKind::Name(name) => match self.resolve_name(name) {
                Target::Def(id) => match self.res.defs[id].kind {
                    DefKind::Struct => None,
                    _ => self.res.defs[id].instance_of,
                },
                _ => None,
            },
            ExprKind::Call { callee, .. } => match &callee.kind {
                ExprKind::Name(name) => match self.resolve_name(name) {
                    Target::Def(id) if self.res.defs[id].kind == DefKind::Struct => Some(id),
                    _ => None,
                },
                _ => None,
            },
            ExprKind::Field {
                value,
                field: FieldName::Named(name),
            } => {
                let s = self.struct_of_expr(value)?;
                let member = self.res.member(s, &name.text, false)?;
                self.res.defs[member].instance_of
            }
            ExprKind::ShapeAssert { value, .. } => self.struct_of_expr(value),
            _ => None,
        }
    }

    fn expr(&mut self, e: &'a ast::Expr) {
        match &e.kind {
            ExprKind::Name(name) => {
                let range = name_range(e, name);
                self.probe_name(range, None, false);
                let target = self.resolve_name(name);
                self.use_of(name, range, target, Role::Plain);
            }
            ExprKind::SelfValue => {
                if !self.in_method {
                    self.res.stray_self.push(e.range);
                }
            }
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Bool(_)
            | ExprKind::Str(_)
            | ExprKind::Hole
            | ExprKind::UnknownDim
            | ExprKind::Ellipsis
            | ExprKind::NewAxis
            | ExprKind::Missing
            | ExprKind::Unknown(_)
            | ExprKind::Builtin(_) => {}
            ExprKind::Record(fields) => fields.iter().for_each(|f| self.expr(&f.value)),
            // Its body is another scope, its parameters and captures its
            // own names: only what it takes from here is read here.
            ExprKind::Closure(closure) => closure.captures.iter().for_each(|c| self.expr(&c.value)),
            ExprKind::Slice { .. } => {
                for part in e.children() {
                    self.expr(part);
                }
            }
            ExprKind::List(elements) | ExprKind::Tuple(elements) => {
                for element in elements {
                    self.expr(element);
                }
            }
            ExprKind::Call { callee, args } => self.call(e, callee, args),
            ExprKind::Subscript { value, indices } => {
                self.expr(value);
                let tensor_indexing = !is_shape_like(value);
                let collecting = self.scopes.iter().any(|s| s.collects_indices);
                for index in indices {
                    match &index.kind {
                        ExprKind::Name(name) if tensor_indexing && collecting => {
                            self.use_index(name, name_range(index, name));
                        }
                        _ => self.expr(index),
                    }
                }
            }
            ExprKind::Field { value, field } => {
                self.expr(value);
                if let FieldName::Named(name) = field {
                    self.member_access(value, name, false);
                }
            }
            ExprKind::Unary { operand, .. } => self.expr(operand),
            ExprKind::Binary { lhs, rhs, .. } => {
                self.expr(lhs);
                self.expr(rhs);
            }
            ExprKind::Compare { operands, .. } => {
                for operand in operands {
                    self.expr(operand);
                }
            }
            ExprKind::ShapeAssert { value, pattern, .. } => {
                self.expr(value);
                for dim in pattern {
                    self.expr(dim);
                }
            }
            ExprKind::Reduction { bindings, body, .. } => {
                for binding in bindings {
                    if let Some((start, end)) = &binding.range {
                        self.expr(start);
                        self.expr(end);
                    }
                }
                self.scopes.push(Scope {
                    collects_indices: true,
                    index_context: e.range,
                    ..Scope::default()
                });
                for binding in bindings {
                    self.probe_name(binding.index.range, None, false);
                    self.declare_local(
                        &binding.index,
                        DefKind::IndexVar,
                        e.range,
                        None,
                        DefSource::None,
                    );
                }
                self.expr(body);
                self.scopes.pop();
            }
        }
    }

    /// A bare subscript in index notation: the index variable of that name
    /// in the statement, declared by its first use.
    fn use_index(&mut self, name: &str, range: TextRange) {
        self.probe_name(range, None, false);
        if let Some(id) = self.lookup_local(name) {
            if self.res.defs[id].kind == DefKind::IndexVar {
                self.occurrence(range, Target::Def(id), false, Role::Plain);
                return;
            }
        }
        let Some(position) = self.scopes.iter().rposition(|s| s.collects_indices) else {
            return;
        };
        let context = self.scopes[position].index_context;
        let id = self.add_def(Def {
            name: name.to_owned(),
            kind: DefKind::IndexVar,
            name_range: range,
            full_range: context,
            owner: None,
            instance_of: None,
            source: DefSource::None,
        });
        self.scopes[position].names.insert(name.to_owned(), id);
        self.occurrence(range, Target::Def(id), true, Role::Plain);
    }

    fn call(&mut self, call: &'a ast::Expr, callee: &'a ast::Expr, args: &'a [ast::Arg]) {
        let (resolved, direct) = match &callee.kind {
            ExprKind::Name(name) => {
                let range = name_range(callee, name);
                self.probe_name(range, None, false);
                let target = self.resolve_name(name);
                let resolved = match &target {
                    Target::Def(id) => match self.res.defs[*id].kind {
                        DefKind::Function | DefKind::Struct | DefKind::Method => Callee::Def(*id),
                        // Calling an instance calls its `forward`.
                        _ => self.res.defs[*id]
                            .instance_of
                            .and_then(|s| self.res.forward_of(s))
                            .map_or(Callee::Unknown, Callee::Def),
                    },
                    Target::Prelude(op) => Callee::Prelude {
                        op: op.clone(),
                        method: false,
                    },
                    Target::Outer(name) => Callee::Outer(name.clone()),
                    _ => Callee::Unknown,
                };
                // `m(x)` calls `m`'s `forward` only if `m` still holds the
                // struct it was made with.
                let direct = match &target {
                    Target::Def(id) => matches!(
                        self.res.defs[*id].kind,
                        DefKind::Function | DefKind::Struct | DefKind::Method
                    ),
                    _ => true,
                };
                self.use_of(name, range, target, Role::Callee);
                (resolved, direct)
            }
            ExprKind::Field {
                value,
                field: FieldName::Named(method),
            } if self.is_torch_prefix(value)
                && (self.res.prelude.signature(&method.text).is_some()
                    || crate::pytorch_names::is_pytorch_name(&method.text)) =>
            {
                // `F.softmax(x)` means `softmax(x)`: checked as that call,
                // with one error at the prefix (name_check/unresolved.rs).
                let prefix =
                    TextRange::new(value.range.start as usize, method.range.start as usize);
                let op = method.text.clone();
                let modelled = self.res.prelude.signature(&op).is_some();
                self.use_of(
                    &format!("{}.{op}", prefix_text(value)),
                    prefix,
                    Target::Unresolved,
                    Role::TorchPrefix { modelled },
                );
                match modelled {
                    true => {
                        self.occurrence(
                            method.range,
                            Target::Prelude(op.clone()),
                            false,
                            Role::Callee,
                        );
                        (Callee::Prelude { op, method: false }, true)
                    }
                    false => {
                        self.occurrence(method.range, Target::Unresolved, false, Role::Callee);
                        (Callee::Unknown, false)
                    }
                }
            }
            ExprKind::Field {
                value,
                field: FieldName::Named(method),
            } => {
                self.expr(value);
                let target = self.member_access(value, method, true);
                let on_self = matches!(value.kind, ExprKind::SelfValue);
                match target {
                    Target::Def(id) if self.res.defs[id].kind == DefKind::Method => {
                        (Callee::Def(id), on_self)
                    }
                    Target::Def(id) => (
                        self.res.defs[id]
                            .instance_of
                            .and_then(|s| self.res.forward_of(s))
                            .map_or(Callee::Unknown, Callee::Def),
                        false,
                    ),
                    Target::Prelude(op) => (Callee::Prelude { op, method: true }, true),
                    _ => (Callee::Unknown, false),
                }
            }
            _ => {
                self.expr(callee);
                let forward = self
                    .struct_of_expr(callee)
                    .and_then(|s| self.res.forward_of(s));
                (forward.map_or(Callee::Unknown, Callee::Def), false)
            }
        };
        for arg in args {
            if let Some(name) = &arg.name {
                let target = match &resolved {
                    Callee::Def(id) => self
                        .res
                        .params
                        .get(id)
                        .and_then(|params| {
                            params
                                .iter()
                                .copied()
                                .find(|&p| self.res.defs[p].name == name.text)
                        })
                        .map_or(Target::Unresolved, Target::Def),
                    Callee::Prelude { op, .. } => {
                        let known = self
                            .res
                            .prelude
                            .signature(op)
                            .is_some_and(|s| s.params.iter().any(|p| p.name == name.text));
                        if known {
                            Target::PreludeParam {
                                op: op.clone(),
                                param: name.text.clone(),
                            }
                        } else {
                            Target::Unresolved
                        }
                    }
                    Callee::Outer(_) | Callee::Unknown => Target::Unresolved,
                };
                self.use_of(&name.text, name.range, target, Role::NamedArg);
            }
            self.expr(&arg.value);
        }
        self.res.calls.push(CallSite {
            callee_range: callee.range,
            range: call.range,
            callee: resolved,
            args,
            direct,
        });
    }

    /// Resolves `value.name` (`called`: `value.name(...)`) and records it.
    fn member_access(&mut self, value: &ast::Expr, name: &ast::Name, called: bool) -> Target {
        let receiver = self.struct_of_expr(value);
        let is_self = matches!(value.kind, ExprKind::SelfValue);
        let self_of = if is_self { self.current_struct } else { None };
        let receiver_is_instance = receiver.is_some() || is_self;
        self.probe_name(
            name.range,
            Some(ProbeMember {
                receiver_struct: receiver,
                receiver_is_instance,
            }),
            false,
        );
        let target = match receiver {
            Some(s) => self
                .res
                .member(s, &name.text, called)
                .map_or(Target::Unresolved, Target::Def),
            None if receiver_is_instance => Target::Unresolved,
            None if TENSOR_PROPERTIES.contains(&name.text.as_str()) => {
                Target::TensorProperty(name.text.clone())
            }
            None if called && self.res.prelude.signature(&name.text).is_some() => {
                Target::Prelude(name.text.clone())
            }
            None => Target::Unresolved,
        };
        let role = Role::Member { called, self_of };
        if is_self && self_of.is_none() {
            // `self` outside any struct: that is the error, not its member.
            self.occurrence(name.range, target.clone(), false, role);
        } else {
            self.use_of(&name.text, name.range, target.clone(), role);
        }
        target
    }
}

/// The range of the identifier of a name expression: the lowering keeps
/// the range of parentheses around it (`(x)`), which is narrowed here.
pub fn name_range(e: &ast::Expr, name: &str) -> TextRange {
    let len = name.len() as u32;
    let range = e.range;
    let width = range.end.saturating_sub(range.start);
    if width <= len {
        return range;
    }
    // `((x))`: as many parentheses on each side, with no space inside.
    let pad = (width - len) / 2;
    TextRange {
        start: range.start + pad,
        end: range.start + pad + len,
    }
}

/// `x.shape[i]` and `x.size()[i]` index a shape, not a tensor.
fn is_shape_like(value: &ast::Expr) -> bool {
    match &value.kind {
        ExprKind::Field {
            field: FieldName::Named(name),
            ..
        } => name.text == "shape",
        ExprKind::Call { callee, .. } => matches!(
            &callee.kind,
            ExprKind::Field { field: FieldName::Named(name), .. } if name.text == "size"
        ),
        _ => false,
    }
}
