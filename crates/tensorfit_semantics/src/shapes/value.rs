//! Symbolic values: what the analysis knows about each value of a program.

use std::sync::Arc;

use tensorfit_solver::{Formula, Term, VarId};

use super::elements::Elements;
use tensorfit_syntax::ast::{
    BASE_INSTANCE_FIELD, DYNAMIC_ATTRIBUTES_FIELD, REGISTERED_MODULES_FIELD,
};

/// The shape of a tensor: `head ++ middle ++ tail`, where `middle` (if any)
/// is a slice of an *opaque* shape, one whose rank is not known. An opaque
/// shape `s` has rank `Rank(s)` and dimensions `Dim(s, i)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    pub head: Vec<Term>,
    pub rest: Option<Rest>,
}

/// Dimensions `skip_front .. Rank(base) - skip_back` of an opaque shape,
/// followed by `tail`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rest {
    pub base: VarId,
    pub skip_front: u32,
    pub skip_back: u32,
    pub tail: Vec<Term>,
}

impl Shape {
    pub fn known(dims: Vec<Term>) -> Shape {
        Shape {
            head: dims,
            rest: None,
        }
    }

    pub fn opaque(base: VarId) -> Shape {
        Shape {
            head: Vec::new(),
            rest: Some(Rest {
                base,
                skip_front: 0,
                skip_back: 0,
                tail: Vec::new(),
            }),
        }
    }

    pub fn scalar() -> Shape {
        Shape::known(Vec::new())
    }

    /// The dimensions, when the rank is known.
    pub fn dims(&self) -> Option<&[Term]> {
        match self.rest {
            None => Some(&self.head),
            Some(_) => None,
        }
    }

    /// The length of the opaque middle part.
    fn middle_len(rest: &Rest) -> Term {
        Term::sub(
            &Term::rank(rest.base),
            &Term::int(i64::from(rest.skip_front + rest.skip_back)),
        )
    }

    pub fn rank(&self) -> Term {
        match &self.rest {
            None => Term::int(self.head.len() as i64),
            Some(rest) => Term::add(
                &Term::int((self.head.len() + rest.tail.len()) as i64),
                &Shape::middle_len(rest),
            ),
        }
    }

    /// Facts every use of this shape may assume: the opaque middle has a
    /// non-negative length.
    pub fn well_formed(&self) -> Formula {
        match &self.rest {
            None => Formula::truth(true),
            Some(rest) => Formula::ge(&Shape::middle_len(rest), &Term::int(0)),
        }
    }

    /// Dimension `index` (negative counts from the end). `None` when the
    /// position is certainly outside a known rank. The caller states that
    /// the position is in range (`index_in_range`).
    pub fn dim(&self, index: i64) -> Option<Term> {
        match &self.rest {
            None => {
                let len = self.head.len() as i64;
                let position = if index < 0 { len + index } else { index };
                (0..len)
                    .contains(&position)
                    .then(|| self.head[position as usize].clone())
            }
            Some(rest) => {
                let head_len = self.head.len() as i64;
                let tail_len = rest.tail.len() as i64;
                let middle = Shape::middle_len(rest);
                if index >= 0 && index < head_len {
                    return Some(self.head[index as usize].clone());
                }
                if index < 0 && -index <= tail_len {
                    return Some(rest.tail[(tail_len + index) as usize].clone());
                }
                if index >= 0 {
                    // Position j inside middle ++ tail.
                    let j = index - head_len;
                    let mut term = Term::dim(rest.base, Term::int(i64::from(rest.skip_front) + j));
                    for (k, t) in rest.tail.iter().enumerate().rev() {
                        let at = Term::add(&middle, &Term::int(k as i64));
                        term = Term::ite(&Formula::eq(&Term::int(j), &at), t, &term);
                    }
                    Some(term)
                } else {
                    // Position from the end inside head ++ middle.
                    let from_end = -index - tail_len; // 1-based from the end of middle
                    let middle_position = Term::sub(&middle, &Term::int(from_end));
                    let mut term = Term::dim(
                        rest.base,
                        Term::add(&Term::int(i64::from(rest.skip_front)), &middle_position),
                    );
                    for (k, h) in self.head.iter().enumerate() {
                        // Falls into the head when middle_position < 0.
                        let at = Term::sub(&Term::int(k as i64), &Term::int(head_len));
                        term = Term::ite(&Formula::eq(&middle_position, &at), h, &term);
                    }
                    Some(term)
                }
            }
        }
    }

    /// Dimension at a symbolic position counted from the front.
    pub fn dim_at(&self, index: &Term) -> Term {
        if let Some(i) = index.as_const() {
            if i >= 0 {
                if let Some(term) = self.dim(i) {
                    return term;
                }
            }
        }
        let head_len = Term::int(self.head.len() as i64);
        let mut term = match &self.rest {
            None => self.head.last().cloned().unwrap_or(Term::int(1)),
            Some(rest) => {
                let j = Term::sub(index, &head_len);
                let middle = Shape::middle_len(rest);
                let mut term = Term::dim(
                    rest.base,
                    Term::add(&Term::int(i64::from(rest.skip_front)), &j),
                );
                for (k, t) in rest.tail.iter().enumerate() {
                    let at = Term::add(&middle, &Term::int(k as i64));
                    term = Term::ite(&Formula::eq(&j, &at), t, &term);
                }
                term
            }
        };
        for (k, h) in self.head.iter().enumerate().rev() {
            term = Term::ite(&Formula::eq(index, &Term::int(k as i64)), h, &term);
        }
        term
    }

    /// `0 <= index < rank` (or `-rank <= index < 0`).
    pub fn index_in_range(&self, index: i64) -> Formula {
        if index >= 0 {
            Formula::lt(&Term::int(index), &self.rank())
        } else {
            Formula::le(&Term::int(-index), &self.rank())
        }
    }

    /// With the rank of an opaque base known, the dimensions spelled out.
    pub fn refine(&self, rank_of: &dyn Fn(VarId) -> Option<i64>) -> Shape {
        let Some(rest) = &self.rest else {
            return self.clone();
        };
        // A rank past the bound stays opaque rather than spelt out
        // dimension by dimension (`assert x.rank == 1000000000`).
        let Some(rank) = rank_of(rest.base).and_then(super::limits::spelt_rank) else {
            return self.clone();
        };
        let from = i64::from(rest.skip_front);
        let to = rank - i64::from(rest.skip_back);
        let mut dims = self.head.clone();
        dims.extend((from..to.max(from)).map(|i| Term::dim(rest.base, Term::int(i))));
        dims.extend(rest.tail.iter().cloned());
        Shape::known(dims)
    }

    /// As [`Shape::refine`], but `self` itself (not a copy) when no rank
    /// it needs is known: values are refined at every branch join.
    pub fn into_refined(self, rank_of: &dyn Fn(VarId) -> Option<i64>) -> Shape {
        if self.refines_with(rank_of) {
            self.refine(rank_of)
        } else {
            self
        }
    }

    /// Whether [`Shape::refine`] changes the shape: its opaque part's rank
    /// is known (and not past the bound).
    pub fn refines_with(&self, rank_of: &dyn Fn(VarId) -> Option<i64>) -> bool {
        self.rest
            .as_ref()
            .and_then(|rest| rank_of(rest.base))
            .and_then(super::limits::spelt_rank)
            .is_some()
    }

    /// Dimensions `from..` and `..to` as a new shape: `slice(1, 0)` drops
    /// the first dimension. Requires the rank to be at least `from + to`.
    pub fn slice(&self, from: usize, from_back: usize) -> Shape {
        match &self.rest {
            None => {
                let end = self.head.len().saturating_sub(from_back);
                Shape::known(
                    self.head
                        .get(from..end.max(from))
                        .map(<[Term]>::to_vec)
                        .unwrap_or_default(),
                )
            }
            Some(rest) => {
                let mut shape = self.clone();
                let mut rest = rest.clone();
                // Drop from the front: head first, then the middle.
                let head_drop = from.min(shape.head.len());
                shape.head.drain(..head_drop);
                rest.skip_front += (from - head_drop) as u32;
                let tail_drop = from_back.min(rest.tail.len());
                rest.tail.truncate(rest.tail.len() - tail_drop);
                rest.skip_back += (from_back - tail_drop) as u32;
                shape.rest = Some(rest);
                shape
            }
        }
    }

    /// [`Shape::slice`] when the result can be written as a shape: `None`
    /// when the dimensions dropped from one end reach into the opaque
    /// middle while the other end keeps spelt-out dimensions. The middle's
    /// length is unknown then, so whether the drop also eats into the kept
    /// dimensions is too (`[x.., 16]` without its first two dimensions is
    /// `[]` for a matrix `x`, not `[x[2..], 16]`).
    pub fn slice_exact(&self, from: usize, from_back: usize) -> Option<Shape> {
        if let Some(rest) = &self.rest {
            let (head, tail) = (self.head.len(), rest.tail.len());
            let ambiguous = (from > head && from_back < tail) || (from_back > tail && from < head);
            if ambiguous {
                return None;
            }
        }
        Some(self.slice(from, from_back))
    }

    /// The shape with `f` applied to each dimension it spells out.
    pub fn map_terms(&self, f: &mut dyn FnMut(&Term) -> Term) -> Shape {
        Shape {
            head: self.head.iter().map(&mut *f).collect(),
            rest: self.rest.as_ref().map(|rest| Rest {
                tail: rest.tail.iter().map(f).collect(),
                ..rest.clone()
            }),
        }
    }

    /// `self ++ other`, when at most one of them is opaque.
    pub fn concat(&self, other: &Shape) -> Option<Shape> {
        match (&self.rest, &other.rest) {
            (None, None) => Some(Shape::known(
                self.head.iter().chain(&other.head).cloned().collect(),
            )),
            (Some(rest), None) => {
                let mut rest = rest.clone();
                rest.tail.extend(other.head.iter().cloned());
                Some(Shape {
                    head: self.head.clone(),
                    rest: Some(rest),
                })
            }
            (None, Some(rest)) => {
                let mut head = self.head.clone();
                head.extend(other.head.iter().cloned());
                Some(Shape {
                    head,
                    rest: Some(rest.clone()),
                })
            }
            (Some(_), Some(_)) => None,
        }
    }
}

/// A prelude layer value, e.g. `Conv2d(3, 64, kernel_size: 3)`: its
/// constructor and arguments by parameter name.
#[derive(Clone, Debug, PartialEq)]
pub struct Layer {
    pub kind: String,
    pub args: Vec<(String, Value)>,
}

impl Layer {
    pub fn arg(&self, name: &str) -> Option<&Value> {
        self.args.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// `nn.Sequential(*layers)`: layers named by their positions.
    pub fn sequential(layers: Vec<Value>) -> Value {
        let names = (0..layers.len())
            .map(|k| Value::Str(k.to_string()))
            .collect();
        Layer::named_sequential(layers, names)
    }

    /// `nn.Sequential` of layers registered under these names
    /// (`OrderedDict`, `add_module`, positions): each a `Value::Str`, or
    /// `Value::Unknown` for a name not known.
    pub fn named_sequential(layers: Vec<Value>, names: Vec<Value>) -> Value {
        Value::Layer(Arc::new(Layer {
            kind: "Sequential".to_owned(),
            args: vec![
                ("layers".to_owned(), Value::List(layers)),
                ("names".to_owned(), Value::List(names)),
            ],
        }))
    }

    /// The names of an `nn.Sequential`'s layers, as in
    /// [`Layer::named_sequential`] (unknown where not recorded).
    pub fn sequential_names(&self) -> Option<Vec<Value>> {
        let layers = self.sequential_layers()?;
        Some(match self.arg("names") {
            Some(Value::List(names)) if names.len() == layers.len() => names.clone(),
            _ => vec![Value::Unknown; layers.len()],
        })
    }

    /// The layer of an `nn.Sequential` registered as `name`
    /// (`features.conv0`): `Value::Unknown` where a name not known may be
    /// it; `None` where no layer has that name.
    pub fn named_layer(&self, name: &str) -> Option<&Value> {
        static UNKNOWN: Value = Value::Unknown;
        let layers = self.sequential_layers()?;
        let names = self.sequential_names()?;
        for (layer, layer_name) in layers.iter().zip(&names) {
            match layer_name {
                Value::Str(text) if text == name => return Some(layer),
                Value::Str(_) => {}
                _ => return Some(&UNKNOWN),
            }
        }
        None
    }

    /// The layers of an `nn.Sequential`, if known; `None` for any other
    /// layer.
    pub fn sequential_layers(&self) -> Option<&[Value]> {
        match (self.kind.as_str(), self.arg("layers")) {
            ("Sequential", Some(Value::List(layers) | Value::Tuple(layers))) => Some(layers),
            _ => None,
        }
    }
}

/// The value of `nn.Sequential(...)` given its (variadic) `layers`: one
/// `OrderedDict` (a dict value) gives its values, under its keys.
/// The shape of a tensor whose items are known: `[n]`.
pub fn elements_shape(elements: &Elements) -> Shape {
    Shape::known(vec![Term::int(elements.len() as i64)])
}

pub fn sequential_of(layers: Value) -> Value {
    match layers {
        Value::List(items) => match items.as_slice() {
            // A key set on one path only may be absent: not known.
            [Value::Instance(dict)] if dict.is_dict() && dict.known_len().is_none() => {
                Value::Unknown
            }
            [Value::Instance(dict)] if dict.is_dict() => {
                let names = dict
                    .fields
                    .iter()
                    .map(|(n, _)| Value::Str(n.clone()))
                    .collect();
                let layers = dict.fields.iter().map(|(_, v)| v.clone()).collect();
                Layer::named_sequential(layers, names)
            }
            _ => Layer::sequential(items),
        },
        Value::Tuple(items) => Layer::sequential(items),
        _ => Value::Unknown,
    }
}

/// An instance of a user struct: its parameters and evaluated fields.
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    pub struct_name: String,
    pub params: Vec<(String, Value)>,
    pub fields: Vec<(String, Value)>,
    /// Built too deep inside a method's `self` to evaluate its fields
    /// (`MAX_ASSUMED_SELF_DEPTH`): it has none, and stands for an instance
    /// of its struct with these parameters whatever fields that one has.
    pub fields_unknown: bool,
}

/// The position Python's index `k` names in a sequence of `len` items
/// (`-1` is the last); `None` out of range.
pub fn item_position(len: usize, k: i64) -> Option<usize> {
    let at = if k < 0 { len as i64 + k } else { k };
    usize::try_from(at).ok().filter(|at| *at < len)
}

/// The struct name of Python's dicts (`dict(a=...)`, `nn.ModuleDict`,
/// `**kwargs`): records of named values.
const DICT: &str = "dict";

impl Instance {
    /// A Python dict of these named values.
    pub fn dict(fields: Vec<(String, Value)>) -> Value {
        Value::Instance(Arc::new(Instance {
            struct_name: DICT.to_owned(),
            params: Vec::new(),
            fields,
            fields_unknown: false,
        }))
    }

    pub fn is_dict(&self) -> bool {
        self.struct_name == DICT
    }

    /// A dict's number of keys, where certain: a key set on one path only
    /// holds an unknown value and may be absent. `None` for any other
    /// instance.
    pub fn known_len(&self) -> Option<usize> {
        let certain = self
            .fields
            .iter()
            .all(|(_, v)| !matches!(v, Value::Unknown));
        (self.is_dict() && certain).then_some(self.fields.len())
    }

    /// The member `name`: a field of the instance's own, else its base
    /// instance's (a Python class derived from another, see
    /// [`BASE_INSTANCE_FIELD`]), else an attribute set by a computed name
    /// ([`DYNAMIC_ATTRIBUTES_FIELD`]) or a module registered in a
    /// container class ([`REGISTERED_MODULES_FIELD`]), else a parameter (a
    /// Tensor struct's; a Python `__init__`'s parameter is no attribute,
    /// and the base's field of the same name is what Python reads).
    pub fn member(&self, name: &str) -> Option<&Value> {
        fn find<'v>(members: &'v [(String, Value)], name: &str) -> Option<&'v Value> {
            members.iter().find(|(n, _)| n == name).map(|(_, v)| v)
        }
        // A field the class sets by its own name that `setattr` may also
        // have set: not known which came last.
        let dynamic = match find(&self.fields, DYNAMIC_ATTRIBUTES_FIELD) {
            Some(Value::Instance(attributes)) => find(&attributes.fields, name).is_some(),
            Some(_) => true,
            None => false,
        };
        if dynamic && find(&self.fields, name).is_some() {
            static UNKNOWN: Value = Value::Unknown;
            return Some(&UNKNOWN);
        }
        find(&self.fields, name)
            .or_else(|| match find(&self.fields, BASE_INSTANCE_FIELD) {
                Some(Value::Instance(base)) => base.member(name),
                // The base's part is not known (changed in place): nor is
                // anything it may hold.
                Some(unknown) => Some(unknown),
                None => None,
            })
            // An attribute set by a computed name (`setattr(self, name, v)`).
            .or_else(|| match find(&self.fields, DYNAMIC_ATTRIBUTES_FIELD) {
                Some(Value::Instance(attributes)) => find(&attributes.fields, name),
                Some(unknown @ Value::Unknown) => Some(unknown),
                _ => None,
            })
            // A module registered under a name (`nn.Module.__getattr__`);
            // a `ModuleList`'s are numbered, which no attribute is.
            .or_else(|| match find(&self.fields, REGISTERED_MODULES_FIELD) {
                Some(Value::Instance(modules)) => find(&modules.fields, name),
                Some(Value::Layer(sequential)) => sequential.named_layer(name),
                Some(unknown @ Value::Unknown) => Some(unknown),
                _ => None,
            })
            .or_else(|| find(&self.params, name))
    }

    /// What the base class's `__init__` made of a derived instance.
    pub fn base(&self) -> Option<&Instance> {
        let (_, base) = self.fields.iter().find(|(n, _)| n == BASE_INSTANCE_FIELD)?;
        match base {
            Value::Instance(base) => Some(base),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Int(Term),
    Bool(Formula),
    /// A Python `float` (or the Tensor language's `Float`), with its value
    /// where Python code computes it from literals (`width_mult = 0.75`).
    Float(Option<f64>),
    Str(String),
    None,
    Tensor(Shape),
    /// A one-dimensional tensor whose items are known (`torch.arange(d)`,
    /// `torch.tensor([0, 3])`, what PyTorch computes from them): see
    /// `shapes::elements`. Anything that does not compute with the items
    /// reads it as the tensor it is ([`Value::without_elements`]).
    Elements(Arc<Elements>),
    /// A list of dimensions (`x.shape`, `x.size()`).
    Shape(Shape),
    Tuple(Vec<Value>),
    List(Vec<Value>),
    Layer(Arc<Layer>),
    Instance(Arc<Instance>),
    /// A struct, function or prelude operation named as a value (Python's
    /// `block=Bottleneck`, `norm_layer=nn.BatchNorm2d`): calling it calls
    /// what it names.
    Callable(String),
    /// `functools.partial(callee, ...)`: a callable with the arguments
    /// given so far; a call adds its own (Python's order: the given
    /// positional ones first, its keywords overriding).
    Partial(Arc<Partial>),
    /// A member of a Python enumeration (`Mode.SAME`).
    Member(Arc<Member>),
    /// A function a body made (Python's `lambda`, a nested `def`), with
    /// the values it took from the scopes around it.
    Closure(Arc<Closure>),
    /// Nothing is known: every use of it is unconstrained.
    Unknown,
}

/// A member of a Python enumeration: one object of its class (`is` and
/// `==` hold of it and itself only), holding the value the class body
/// gives it; a member of an `IntEnum` or `str` enumeration is also that
/// `int` or `str`, and compares and computes as it.
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    pub class: String,
    pub name: String,
    pub value: Value,
    pub kind: tensorfit_syntax::ast::Enumeration,
}

impl Member {
    pub fn new(
        class: &str,
        name: &str,
        value: Value,
        kind: tensorfit_syntax::ast::Enumeration,
    ) -> Arc<Member> {
        Arc::new(Member {
            class: class.to_owned(),
            name: name.to_owned(),
            value,
            kind,
        })
    }

    /// The `int` or `str` the member also is, if it is one.
    pub fn mixed_in(&self) -> Option<&Value> {
        match self.kind {
            tensorfit_syntax::ast::Enumeration::Plain => None,
            _ => Some(&self.value),
        }
    }

    /// Whether both are the one member of a class.
    pub fn is(&self, other: &Member) -> bool {
        self.class == other.class && self.name == other.name
    }
}

/// An argument already evaluated: its name if named, its value, and its
/// text for messages.
#[derive(Clone, Debug, PartialEq)]
pub struct GivenArg {
    pub name: Option<String>,
    pub value: Value,
    pub text: String,
}

impl GivenArg {
    /// A positional argument with no text of its own (one the analysis
    /// makes, or a test's).
    pub fn positional(value: Value) -> GivenArg {
        GivenArg {
            name: None,
            value,
            text: String::new(),
        }
    }
}

/// A function made by an expression ([`tensorfit_syntax::ast::Closure`]),
/// holding the value of each of its captures, in their order. Two are the
/// same value when they are the same code holding the same values.
#[derive(Clone)]
pub struct Closure {
    pub made: Arc<tensorfit_syntax::ast::Closure>,
    pub captured: Vec<Value>,
    /// The value of each default of its own parameters, by parameter:
    /// Python evaluates a default where the function is made.
    pub defaults: Vec<Option<Value>>,
}

impl Closure {
    /// The name Python gives it (`make.<locals>.<lambda>`).
    pub fn name(&self) -> &str {
        self.made
            .function
            .name
            .as_ref()
            .map_or("<lambda>", |n| n.text.as_str())
    }

    /// [`Value::map_terms`] of what it holds.
    pub fn map_terms(
        &self,
        f: &mut dyn FnMut(&Term) -> Term,
        g: &mut dyn FnMut(&Shape) -> Shape,
        h: &mut dyn FnMut(&Formula) -> Formula,
    ) -> Closure {
        Closure {
            made: self.made.clone(),
            captured: self.captured.iter().map(|v| v.map_terms(f, g, h)).collect(),
            defaults: self
                .defaults
                .iter()
                .map(|d| d.as_ref().map(|v| v.map_terms(f, g, h)))
                .collect(),
        }
    }

    fn same_code(&self, other: &Closure) -> bool {
        Arc::ptr_eq(&self.made, &other.made) || self.made == other.made
    }
}

impl PartialEq for Closure {
    fn eq(&self, other: &Closure) -> bool {
        self.same_code(other) && self.captured == other.captured && self.defaults == other.defaults
    }
}

// The code is named, not printed: a summary for fixed arguments is keyed by
// their `Debug` text.
impl std::fmt::Debug for Closure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let start = self.made.function.range.start;
        let (captured, defaults) = (&self.captured, &self.defaults);
        write!(
            f,
            "Closure({}@{start}, {captured:?}, {defaults:?})",
            self.name()
        )
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Partial {
    pub callee: PartialCallee,
    pub args: Vec<GivenArg>,
}

/// What a partial calls.
#[derive(Clone, Debug, PartialEq)]
pub enum PartialCallee {
    /// The struct, function or prelude operation of this name.
    Named(String),
    Closure(Arc<Closure>),
}

impl Partial {
    /// The arguments of a call of this partial with `call`'s own.
    pub fn with_call_args(&self, call: Vec<GivenArg>) -> Vec<GivenArg> {
        let (positional, named): (Vec<GivenArg>, Vec<GivenArg>) =
            self.args.iter().cloned().partition(|a| a.name.is_none());
        let (call_positional, call_named): (Vec<GivenArg>, Vec<GivenArg>) =
            call.into_iter().partition(|a| a.name.is_none());
        let overridden = |a: &GivenArg| call_named.iter().any(|c| c.name == a.name);
        let kept: Vec<GivenArg> = named.into_iter().filter(|a| !overridden(a)).collect();
        positional
            .into_iter()
            .chain(call_positional)
            .chain(kept)
            .chain(call_named)
            .collect()
    }
}

impl Value {
    pub fn as_int(&self) -> Option<&Term> {
        match self {
            Value::Int(t) => Some(t),
            _ => None,
        }
    }

    /// The shape of a tensor-like value; a `Float` is a rank-0 tensor.
    pub fn tensor_shape(&self) -> Option<Shape> {
        match self {
            Value::Tensor(shape) => Some(shape.clone()),
            Value::Elements(elements) => Some(elements_shape(elements)),
            Value::Float(_) | Value::Int(_) => Some(Shape::scalar()),
            _ => None,
        }
    }

    /// The value with every tensor whose items are known read as just a
    /// tensor of its shape (inside lists and tuples too), for what does
    /// not compute with the items.
    pub fn without_elements(self) -> Value {
        match self {
            Value::Elements(elements) => Value::Tensor(elements_shape(&elements)),
            Value::List(items) if items.iter().any(Value::holds_elements) => {
                Value::List(items.into_iter().map(Value::without_elements).collect())
            }
            Value::Tuple(items) if items.iter().any(Value::holds_elements) => {
                Value::Tuple(items.into_iter().map(Value::without_elements).collect())
            }
            other => other,
        }
    }

    pub fn holds_elements(&self) -> bool {
        match self {
            Value::Elements(_) => true,
            Value::List(items) | Value::Tuple(items) => items.iter().any(Value::holds_elements),
            _ => false,
        }
    }

    /// A list of `Int`s (or a shape value) read as dimensions.
    pub fn as_dims(&self) -> Option<Shape> {
        match self {
            Value::Shape(shape) => Some(shape.clone()),
            Value::List(items) | Value::Tuple(items) => {
                let dims: Option<Vec<Term>> = items.iter().map(|v| v.as_int().cloned()).collect();
                dims.map(Shape::known)
            }
            Value::Int(t) => Some(Shape::known(vec![t.clone()])),
            _ => None,
        }
    }

    /// Rewrites every term, shape and formula inside the value.
    pub fn map_terms(
        &self,
        f: &mut dyn FnMut(&Term) -> Term,
        g: &mut dyn FnMut(&Shape) -> Shape,
        h: &mut dyn FnMut(&Formula) -> Formula,
    ) -> Value {
        match self {
            Value::Int(t) => Value::Int(f(t)),
            Value::Bool(b) => Value::Bool(h(b)),
            Value::Tensor(s) => Value::Tensor(g(s)),
            Value::Shape(s) => Value::Shape(g(s)),
            Value::Tuple(items) => {
                Value::Tuple(items.iter().map(|v| v.map_terms(f, g, h)).collect())
            }
            Value::List(items) => Value::List(items.iter().map(|v| v.map_terms(f, g, h)).collect()),
            Value::Layer(layer) => Value::Layer(Arc::new(Layer {
                kind: layer.kind.clone(),
                args: layer
                    .args
                    .iter()
                    .map(|(n, v)| (n.clone(), v.map_terms(f, g, h)))
                    .collect(),
            })),
            Value::Instance(instance) => Value::Instance(Arc::new(Instance {
                struct_name: instance.struct_name.clone(),
                params: instance
                    .params
                    .iter()
                    .map(|(n, v)| (n.clone(), v.map_terms(f, g, h)))
                    .collect(),
                fields: instance
                    .fields
                    .iter()
                    .map(|(n, v)| (n.clone(), v.map_terms(f, g, h)))
                    .collect(),
                fields_unknown: instance.fields_unknown,
            })),
            Value::Partial(partial) => Value::Partial(Arc::new(Partial {
                callee: match &partial.callee {
                    PartialCallee::Closure(closure) => {
                        PartialCallee::Closure(Arc::new(closure.map_terms(f, g, h)))
                    }
                    named => named.clone(),
                },
                args: partial
                    .args
                    .iter()
                    .map(|a| GivenArg {
                        value: a.value.map_terms(f, g, h),
                        ..a.clone()
                    })
                    .collect(),
            })),
            Value::Member(member) => Value::Member(Arc::new(Member {
                value: member.value.map_terms(f, g, h),
                ..member.as_ref().clone()
            })),
            Value::Closure(closure) => Value::Closure(Arc::new(closure.map_terms(f, g, h))),
            Value::Float(_)
            | Value::Str(_)
            | Value::None
            | Value::Callable(_)
            | Value::Elements(_)
            | Value::Unknown => self.clone(),
        }
    }
}

impl Value {
    /// Whether it has a dimension, number or condition of more than
    /// `limits::MAX_TERM_SIZE` nodes (counted with an explicit stack,
    /// stopping at the bound).
    pub fn too_large(&self) -> bool {
        use super::limits::{formula_too_large, term_too_large};
        match self {
            Value::Tensor(shape) | Value::Shape(shape) => {
                let tail = shape.rest.iter().flat_map(|rest| &rest.tail);
                shape.head.iter().chain(tail).any(term_too_large)
            }
            Value::Int(term) => term_too_large(term),
            Value::Bool(formula) => formula_too_large(formula),
            Value::Tuple(items) | Value::List(items) => items.iter().any(Value::too_large),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(v: i64) -> Term {
        Term::int(v)
    }

    #[test]
    fn known_shapes_index_from_both_ends() {
        let shape = Shape::known(vec![c(2), c(3), c(4)]);
        assert_eq!(shape.dim(0), Some(c(2)));
        assert_eq!(shape.dim(-1), Some(c(4)));
        assert_eq!(shape.dim(3), None);
        assert_eq!(shape.rank(), c(3));
        assert_eq!(shape.slice(1, 0), Shape::known(vec![c(3), c(4)]));
    }

    #[test]
    fn opaque_shapes_index_through_the_dimension_function() {
        let x = Shape::opaque(7);
        assert_eq!(x.dim(0), Some(Term::dim(7, c(0))));
        assert_eq!(
            x.dim(-1),
            Some(Term::dim(7, Term::sub(&Term::rank(7), &c(1))))
        );
        // Refined once the rank is known.
        let refined = x.refine(&|_| Some(2));
        assert_eq!(
            refined,
            Shape::known(vec![Term::dim(7, c(0)), Term::dim(7, c(1))])
        );
    }

    #[test]
    fn slices_of_opaque_shapes_keep_their_tail() {
        // conv2d on an unknown rank: batch dims of x, then [c, h, w].
        let x = Shape::opaque(3);
        let batch = x.slice(0, 3);
        let out = batch
            .concat(&Shape::known(vec![c(64), c(5), c(5)]))
            .unwrap();
        assert_eq!(out.dim(-3), Some(c(64)));
        let refined = out.refine(&|_| Some(4));
        assert_eq!(
            refined,
            Shape::known(vec![Term::dim(3, c(0)), c(64), c(5), c(5)])
        );
    }
}
