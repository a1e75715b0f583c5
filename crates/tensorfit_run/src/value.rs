//! Run-time values.
//!
//! Every tensor holds `f32` data (the contract): boolean tensors
//! (`mask == 0`) hold 0 and 1, index tensors (`arange`, `argmax`) hold whole
//! numbers. Values are cheap to clone: the big ones sit behind `Rc`.

use std::fmt;
use std::rc::Rc;

use ndarray::ArrayD;

use crate::layers::Layer;
use crate::program::StructId;

pub type Tensor = ArrayD<f32>;

#[derive(Clone, Debug)]
pub enum Value {
    /// PyTorch's `None`: an optional argument not given.
    None,
    Int(i64),
    Bool(bool),
    Float(f64),
    Str(Rc<str>),
    Tensor(Rc<Tensor>),
    /// `x.shape`, or a list literal of `Int`s.
    Shape(Rc<Vec<i64>>),
    /// A list literal of anything else, e.g. the tensors given to `cat`.
    List(Rc<Vec<Value>>),
    Tuple(Rc<Vec<Value>>),
    Layer(Rc<Layer>),
    Instance(Rc<Instance>),
}

/// A value of a user-defined struct: its parameters and fields by name.
#[derive(Debug)]
pub struct Instance {
    pub def: StructId,
    pub struct_name: String,
    pub members: Vec<(String, Value)>,
}

impl Instance {
    pub fn member(&self, name: &str) -> Option<&Value> {
        self.members.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

impl Value {
    pub fn tensor(t: Tensor) -> Value {
        Value::Tensor(Rc::new(t))
    }

    pub fn shape(dims: Vec<i64>) -> Value {
        Value::Shape(Rc::new(dims))
    }

    /// What kind of value this is, for messages: "an Int", "a Tensor[2, 3]".
    pub fn describe(&self) -> String {
        match self {
            Value::None => "None".to_owned(),
            Value::Int(i) => format!("the Int {i}"),
            Value::Bool(b) => format!("the Bool {b}"),
            Value::Float(f) => format!("the Float {f}"),
            Value::Str(_) => "a string".to_owned(),
            Value::Tensor(t) => format!("a {}", shape_text(t.shape())),
            Value::Shape(s) => format!("the shape {}", dims_text(s)),
            Value::List(_) => "a list".to_owned(),
            Value::Tuple(items) => format!("a tuple of {}", items.len()),
            Value::Layer(layer) => format!("a {} layer", layer.kind_name()),
            Value::Instance(instance) => format!("a {}", instance.struct_name),
        }
    }

    /// The value as a tensor: `Float`s and `Int`s are rank-0 tensors in
    /// tensor arithmetic (LANGUAGE.md §1).
    pub fn as_tensor(&self) -> Option<Rc<Tensor>> {
        match self {
            Value::Tensor(t) => Some(t.clone()),
            Value::Float(f) => Some(Rc::new(ArrayD::from_elem(vec![], *f as f32))),
            Value::Int(i) => Some(Rc::new(ArrayD::from_elem(vec![], *i as f32))),
            Value::Bool(b) => Some(Rc::new(ArrayD::from_elem(vec![], f32::from(u8::from(*b))))),
            _ => None,
        }
    }

    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    pub fn as_float(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            Value::Tensor(t) if t.len() == 1 => t.iter().next().map(|v| f64::from(*v)),
            _ => None,
        }
    }

    /// A list of `Int`s, as a shape literal or `x.shape`; a single `Int` is a
    /// list of one (PyTorch's `kernel_size=3` for `(3, 3)` is handled by the
    /// layers themselves).
    pub fn as_dims(&self) -> Option<Vec<i64>> {
        match self {
            Value::Shape(s) => Some(s.to_vec()),
            Value::Tuple(items) | Value::List(items) => items.iter().map(Value::as_int).collect(),
            _ => None,
        }
    }

    pub fn is_none(&self) -> bool {
        matches!(self, Value::None)
    }
}

pub fn dims_text(dims: &[i64]) -> String {
    let parts: Vec<String> = dims.iter().map(i64::to_string).collect();
    format!("[{}]", parts.join(", "))
}

pub fn shape_text(dims: &[usize]) -> String {
    let parts: Vec<String> = dims.iter().map(usize::to_string).collect();
    format!("Tensor[{}]", parts.join(", "))
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::None => write!(f, "None"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Float(x) => write!(f, "{x}"),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Tensor(t) => write!(f, "{}", shape_text(t.shape())),
            Value::Shape(s) => write!(f, "{}", dims_text(s)),
            Value::List(items) | Value::Tuple(items) => {
                let (open, close) = if matches!(self, Value::List(_)) {
                    ("[", "]")
                } else {
                    ("(", ")")
                };
                write!(f, "{open}")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{item}")?;
                }
                write!(f, "{close}")
            }
            Value::Layer(layer) => write!(f, "{}", layer.kind_name()),
            Value::Instance(instance) => write!(f, "{}", instance.struct_name),
        }
    }
}
