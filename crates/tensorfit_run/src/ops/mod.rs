//! The prelude's operations on data. Each follows PyTorch's numeric
//! semantics (conv, pooling, matmul, softmax, normalisation) or the
//! papers' (the tensor algebra), and fails with PyTorch-like messages
//! where PyTorch would raise.

pub mod algebra;
pub mod creation;
pub mod einsum;
pub mod elementwise;
pub mod indexing;
pub mod linalg;
pub mod nn;
pub mod products;
pub mod reduce;
pub mod shape;
pub mod subscript;

#[cfg(test)]
mod pytorch_values;

use std::rc::Rc;

use tensorfit_semantics::registry::{self, Family};

use crate::error::{Failure, Outcome};
use crate::random::Rng;
use crate::value::{Tensor, Value};

/// What operations share: the random generator and the size limit.
pub struct OpContext {
    pub rng: Rng,
    max_elements: usize,
    /// The heap held when the run started (the program, its syntax): what
    /// the run holds beyond it is its values, nearly all tensor data.
    heap_at_start: Option<usize>,
}

impl OpContext {
    pub fn new(seed: u64, max_elements: usize) -> OpContext {
        OpContext {
            rng: Rng::new(seed),
            max_elements,
            heap_at_start: tensorfit_base::live_heap_bytes(),
        }
    }

    /// Refuses a tensor too big to allocate, alone or beside the tensors
    /// already held (counted as the run's heap, 4 bytes an element, where
    /// the binary counts it), with its size.
    pub fn check_size(&self, dims: &[usize]) -> Outcome<()> {
        let elements = dims
            .iter()
            .try_fold(1usize, |acc, d| acc.checked_mul(*d))
            .unwrap_or(usize::MAX);
        if elements > self.max_elements {
            let bytes = elements as f64 * 4.0;
            return Err(Failure::limit(format!(
                "a tensor of shape {dims:?} would hold {elements} elements ({}), more than the limit of {} elements",
                human_bytes(bytes),
                self.max_elements
            )));
        }
        if let (Some(start), Some(now)) = (self.heap_at_start, tensorfit_base::live_heap_bytes()) {
            let held = now.saturating_sub(start) / std::mem::size_of::<f32>();
            if held.saturating_add(elements) > self.max_elements {
                return Err(Failure::limit(format!(
                    "a tensor of shape {dims:?} ({elements} elements) beside the {held} elements the run already holds ({}) would pass the limit of {} elements in all",
                    human_bytes(held as f64 * 4.0),
                    self.max_elements
                )));
            }
        }
        Ok(())
    }
}

fn human_bytes(bytes: f64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// An operation's arguments, bound to its parameters by name.
pub struct Args {
    op: String,
    values: Vec<(String, Value)>,
}

impl Args {
    pub fn new(op: &str, values: Vec<(String, Value)>) -> Args {
        Args {
            op: op.to_owned(),
            values,
        }
    }

    pub fn op(&self) -> &str {
        &self.op
    }

    pub fn get(&self, name: &str) -> &Value {
        const NONE: Value = Value::None;
        self.values
            .iter()
            .find(|(n, _)| n == name)
            .map_or(&NONE, |(_, v)| v)
    }

    fn wrong(&self, name: &str, wanted: &str) -> Failure {
        Failure::shape(format!(
            "`{}` expects {wanted} for `{name}`, but got {}",
            self.op,
            self.get(name).describe()
        ))
    }

    pub fn tensor(&self, name: &str) -> Outcome<Rc<Tensor>> {
        self.get(name)
            .as_tensor()
            .ok_or_else(|| self.wrong(name, "a tensor"))
    }

    pub fn opt_tensor(&self, name: &str) -> Outcome<Option<Rc<Tensor>>> {
        match self.get(name) {
            Value::None => Ok(None),
            v => v
                .as_tensor()
                .map(Some)
                .ok_or_else(|| self.wrong(name, "a tensor")),
        }
    }

    pub fn int(&self, name: &str) -> Outcome<i64> {
        self.get(name)
            .as_int()
            .ok_or_else(|| self.wrong(name, "an Int"))
    }

    pub fn opt_int(&self, name: &str) -> Outcome<Option<i64>> {
        match self.get(name) {
            Value::None => Ok(None),
            v => v
                .as_int()
                .map(Some)
                .ok_or_else(|| self.wrong(name, "an Int")),
        }
    }

    pub fn float(&self, name: &str) -> Outcome<f64> {
        self.get(name)
            .as_float()
            .ok_or_else(|| self.wrong(name, "a number"))
    }

    pub fn bool(&self, name: &str) -> Outcome<bool> {
        match self.get(name) {
            Value::Bool(b) => Ok(*b),
            Value::None => Ok(false),
            _ => Err(self.wrong(name, "a Bool")),
        }
    }

    pub fn str(&self, name: &str) -> Option<&str> {
        match self.get(name) {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A shape: a list of `Int`s (or one `Int`).
    pub fn dims(&self, name: &str) -> Outcome<Vec<i64>> {
        match self.get(name) {
            Value::Int(i) => Ok(vec![*i]),
            v => v.as_dims().ok_or_else(|| self.wrong(name, "a shape")),
        }
    }

    /// PyTorch's `int or tuple` parameters (`kernel_size`, `stride`, ...):
    /// `count` values.
    pub fn ints(&self, name: &str, count: usize) -> Outcome<Vec<i64>> {
        match self.get(name) {
            Value::Int(i) => Ok(vec![*i; count]),
            v => match v.as_dims() {
                Some(d) if d.len() == count => Ok(d),
                Some(d) if d.len() == 1 => Ok(vec![d[0]; count]),
                _ => Err(self.wrong(name, &format!("an Int or {count} Ints"))),
            },
        }
    }

    /// The tensors of a list argument (`cat`, `stack`, `einsum`).
    pub fn tensors(&self, name: &str) -> Outcome<Vec<Rc<Tensor>>> {
        match self.get(name) {
            Value::List(items) | Value::Tuple(items) => items
                .iter()
                .map(|v| v.as_tensor().ok_or_else(|| self.wrong(name, "tensors")))
                .collect(),
            Value::Tensor(t) => Ok(vec![t.clone()]),
            _ => Err(self.wrong(name, "a list of tensors")),
        }
    }
}

/// A dimension position counted from the end when negative, as PyTorch
/// does, with its error message.
pub fn normalize_dim(dim: i64, rank: usize) -> Outcome<usize> {
    let r = rank.max(1) as i64;
    let at = if dim < 0 { dim + r } else { dim };
    if (0..r).contains(&at) {
        Ok(at as usize)
    } else {
        Err(Failure::shape(format!(
            "dimension out of range (expected to be in range of [{}, {}], but got {dim})",
            -r,
            r - 1
        )))
    }
}

/// Runs prelude operation `name`, in the module of its registry family.
pub fn call(ctx: &mut OpContext, name: &str, args: &Args) -> Outcome<Value> {
    let ran = match registry::operation(name).map(|op| op.family) {
        Some(Family::Creation) => creation::call(ctx, name, args)?,
        Some(Family::Elementwise) => elementwise::call(ctx, name, args)?,
        Some(Family::Linalg) => match linalg::call(ctx, name, args)? {
            Some(value) => Some(value),
            None => einsum::call(ctx, name, args)?,
        },
        Some(Family::Shape) => shape::call(ctx, name, args)?,
        Some(Family::Indexing) => indexing::call(ctx, name, args)?,
        Some(Family::Reduce) => reduce::call(ctx, name, args)?,
        Some(Family::Nn) => nn::call(ctx, name, args)?,
        Some(Family::Algebra) => algebra::call(ctx, name, args)?,
        // Layers are constructed (`crate::layers`), not called here.
        Some(Family::Layers) | None => None,
    };
    ran.ok_or_else(|| {
        Failure::unimplemented(format!("the interpreter has no implementation of `{name}`"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    /// The registry's promise on the interpreter's side: every operation
    /// runs in its family's module, and every layer is constructed. Called
    /// without arguments each must get as far as complaining about them.
    #[test]
    fn every_registered_operation_is_implemented() {
        let mut ctx = OpContext::new(0, 1 << 20);
        let mut missing = Vec::new();
        for op in registry::OPERATIONS {
            let args = Args::new(op.name, Vec::new());
            let kind = if op.is_layer() {
                crate::layers::construct(&mut ctx, op.name, &args).err()
            } else {
                call(&mut ctx, op.name, &args).err()
            }
            .map(|failure| failure.kind);
            if kind == Some(ErrorKind::Unimplemented) {
                missing.push(op.name);
            }
        }
        assert!(missing.is_empty(), "not implemented: {missing:?}");
        let unknown = call(&mut ctx, "no_such_op", &Args::new("no_such_op", Vec::new()));
        assert!(matches!(unknown, Err(f) if f.kind == ErrorKind::Unimplemented));
    }
}
