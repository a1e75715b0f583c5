//! Where the analysis computes a tensor's items (`shapes::elements`): the
//! operations of Python code on a tensor whose items are known, and the
//! builtins that make one from a list (`torch.tensor`) or give them back
//! (`.tolist()`). Every other use reads the tensor as its shape
//! (`Value::without_elements`).

use tensorfit_solver::{Formula, Term};
use tensorfit_syntax::ast::BinaryOp;

use super::Frame;
use crate::shapes::elements::{ElementType, Elements, Operand, Scalar, Transcendental};
use crate::shapes::value::Value;
use std::sync::Arc;

impl Frame<'_, '_> {
    /// The items of an operation's result where its inputs' are known
    /// (Python code only); `None` where they are not computed.
    pub(super) fn operation_items(
        &self,
        name: &str,
        bound: &[(String, Value, String)],
    ) -> Option<Value> {
        if !self.analysis.semantics.tensors_keep_items || !self.keeps_items {
            return None;
        }
        let get = |param: &str| {
            bound
                .iter()
                .find(|(n, _, _)| n == param)
                .map_or(&Value::None, |(_, v, _)| v)
        };
        let input = || match get("input") {
            Value::Elements(elements) => Some(elements.as_ref()),
            _ => None,
        };
        let elements = match name {
            "arange" => {
                let (start, end) = match get("end") {
                    Value::None => (Value::Int(Term::int(0)), get("start").clone()),
                    end => (get("start").clone(), end.clone()),
                };
                let int = |v: &Value| match v {
                    Value::Int(t) => self.known(t).as_const(),
                    _ => None,
                };
                Elements::arange(int(&start)?, int(&end)?, int(get("step"))?)?
            }
            // `torch.add(t, 2)`: PyTorch takes no number as `input`.
            "add" | "sub" | "mul" | "div" | "divide" if input().is_some() => {
                let op = match name {
                    "add" => BinaryOp::Add,
                    "sub" => BinaryOp::Sub,
                    "mul" => BinaryOp::Mul,
                    _ => BinaryOp::TrueDiv,
                };
                // The prelude's default `alpha` is the float 1.
                let plain_alpha = matches!(get("alpha"), Value::None)
                    || self.known_value(get("alpha")) == Some(1.0);
                if !plain_alpha || !matches!(get("rounding_mode"), Value::None) {
                    return None;
                }
                self.arithmetic_items(op, get("input"), get("other"))?
            }
            // Its items are within a few ulps of PyTorch's (or numpy's):
            // never exact, so `.tolist()` gives floats of unknown value,
            // and as many of them as `steps`.
            "linspace" => {
                let (start, end) = (
                    self.known_value(get("start"))?,
                    self.known_value(get("end"))?,
                );
                let steps = match get("steps") {
                    Value::Int(t) => self.known(t).as_const()?,
                    _ => return None,
                };
                if !(1..=crate::shapes::elements::MAX_KNOWN_ELEMENTS as i64).contains(&steps) {
                    return None;
                }
                let step = match steps {
                    1 => 0.0,
                    _ => (end - start) / (steps - 1) as f64,
                };
                let items: Vec<f64> = (0..steps).map(|i| start + step * i as f64).collect();
                let error = 4.0 * f64::from(f32::EPSILON) * start.abs().max(end.abs()).max(1.0);
                Elements::new(ElementType::Float32, items, error)?
            }
            "pow" => {
                let (base, exponent) =
                    (self.operand(get("input"))?, self.operand(get("exponent"))?);
                Elements::pow(base, exponent)?
            }
            "log" => input()?.unary(Transcendental::Log)?,
            "exp" => input()?.unary(Transcendental::Exp)?,
            "sqrt" => input()?.unary(Transcendental::Sqrt)?,
            "neg" => Elements::binary(
                BinaryOp::Mul,
                Operand::Tensor(input()?),
                Operand::Scalar(Scalar::int(-1)),
            )?,
            "round" => input()?.round()?,
            "diff" => {
                let plain = |p: &str, default: i64| match get(p) {
                    Value::Int(t) => t.as_const() == Some(default),
                    _ => false,
                };
                let no_ends =
                    matches!(get("prepend"), Value::None) && matches!(get("append"), Value::None);
                if !plain("n", 1) || !(plain("dim", -1) || plain("dim", 0)) || !no_ends {
                    return None;
                }
                input()?.diff()?
            }
            "int" => input()?.converted(ElementType::Int32)?,
            "long" => input()?.converted(ElementType::Int64)?,
            "float" => input()?.converted(ElementType::Float32)?,
            "double" => input()?.converted(ElementType::Float64)?,
            _ => return None,
        };
        // An empty tensor is not followed (dimensions are positive).
        (!elements.is_empty()).then(|| Value::Elements(Arc::new(elements)))
    }

    /// `a op b` where one side is a tensor with known items and the other
    /// is one too or a known Python number.
    pub(super) fn arithmetic_items(&self, op: BinaryOp, a: &Value, b: &Value) -> Option<Elements> {
        let has_items = matches!(a, Value::Elements(_)) || matches!(b, Value::Elements(_));
        if !has_items || !self.keeps_items {
            return None;
        }
        Elements::binary(op, self.operand(a)?, self.operand(b)?)
    }

    /// A value as an operand of an operation on items.
    fn operand<'v>(&self, value: &'v Value) -> Option<Operand<'v>> {
        Some(match value {
            Value::Elements(elements) => Operand::Tensor(elements),
            other => Operand::Scalar(self.scalar(other)?),
        })
    }

    /// A known Python number's value.
    fn known_value(&self, value: &Value) -> Option<f64> {
        self.scalar(value).map(|s| s.value)
    }

    /// A known Python number.
    fn scalar(&self, value: &Value) -> Option<Scalar> {
        match value {
            Value::Int(t) => self.known(t).as_const().map(Scalar::int),
            Value::Float(Some(x)) => Some(Scalar::float(*x)),
            Value::Bool(f) => f.as_const().map(Scalar::bool),
            _ => None,
        }
    }

    /// `np.linspace(start, stop, num)` (`Builtin::NumpyLinspace`):
    /// numpy's `float64` points, each `i * step + start` and the last
    /// `stop`, as numpy 1.24 computes them; unknown where a bound or the
    /// count is not known (an empty array is not followed).
    pub(super) fn numpy_linspace(&self, start: &Value, stop: &Value, num: &Value) -> Value {
        let (Some(start), Some(stop)) = (self.known_value(start), self.known_value(stop)) else {
            return Value::Unknown;
        };
        let count = match num {
            Value::Int(t) => self.known(t).as_const(),
            _ => None,
        };
        let Some(count) = count.filter(|n| *n >= 1) else {
            return Value::Unknown;
        };
        let (delta, div) = (stop - start, (count - 1) as f64);
        let step = delta / div;
        let items = (0..count)
            .map(|i| {
                let i = i as f64;
                let offset = match div > 0.0 && step != 0.0 {
                    true => i * step,
                    false if div > 0.0 => i / div * delta,
                    false => i * delta,
                };
                match count > 1 && i == div {
                    true => stop,
                    false => offset + start,
                }
            })
            .collect();
        match Elements::new(ElementType::Float64, items, 0.0).filter(|_| self.keeps_items) {
            Some(elements) => Value::Elements(Arc::new(elements)),
            None => Value::Unknown,
        }
    }

    /// `torch.tensor(data)` (`Builtin::TensorOf`): the items of a list of
    /// known numbers; a tensor of its length where they are numbers not
    /// all known; unknown for anything else (nested lists, tensors).
    pub(super) fn tensor_of(&self, data: &Value) -> Value {
        let (Value::List(items) | Value::Tuple(items)) = data else {
            return Value::Unknown;
        };
        // An empty tensor is not followed (dimensions are positive).
        if items.is_empty() {
            return Value::Unknown;
        }
        let scalars: Option<Vec<Scalar>> = match self.keeps_items {
            true => items.iter().map(|v| self.scalar(v)).collect(),
            false => None,
        };
        if let Some(elements) = scalars.and_then(|s| Elements::from_scalars(&s)) {
            return Value::Elements(Arc::new(elements));
        }
        let numbers = items
            .iter()
            .all(|v| matches!(v, Value::Int(_) | Value::Float(_) | Value::Bool(_)));
        match numbers {
            true => Value::Tensor(crate::shapes::value::Shape::known(vec![Term::int(
                items.len() as i64,
            )])),
            false => Value::Unknown,
        }
    }
}

/// `t.tolist()` (`Builtin::ToList`): Python's numbers of a tensor with
/// known items (floats of unknown value where an item may differ from
/// PyTorch's); unknown for any other value.
pub(super) fn to_list(value: &Value) -> Value {
    let Value::Elements(elements) = value else {
        return Value::Unknown;
    };
    let item = |x: f64| match elements.ty {
        ElementType::Bool => Value::Bool(Formula::truth(x != 0.0)),
        ElementType::Int32 | ElementType::Int64 => Value::Int(Term::int(x as i64)),
        ElementType::Float32 | ElementType::Float64 => {
            Value::Float(elements.is_exact().then_some(x))
        }
    };
    Value::List(elements.items.iter().map(|&x| item(x)).collect())
}

/// `len(set(xs))` (`Builtin::DistinctCount`): how many different items a
/// list of known numbers or strings has.
pub(super) fn distinct_count(value: &Value) -> Value {
    let (Value::List(items) | Value::Tuple(items)) = value else {
        return Value::Unknown;
    };
    let mut seen: Vec<String> = Vec::new();
    for item in items {
        let key = match item {
            Value::Int(t) => match t.as_const() {
                Some(n) => format!("n{n}"),
                None => return Value::Unknown,
            },
            // Python's `1 == 1.0` and `True == 1`: one item of the set (a
            // whole float converts to the integer exactly).
            Value::Float(Some(x)) if x.fract() == 0.0 && x.abs() < 9.2e18 => {
                format!("n{}", *x as i64)
            }
            Value::Float(Some(x)) => format!("f{x}"),
            Value::Bool(f) => match f.as_const() {
                Some(b) => format!("n{}", i64::from(b)),
                None => return Value::Unknown,
            },
            Value::Str(s) => format!("s{s}"),
            _ => return Value::Unknown,
        };
        if !seen.contains(&key) {
            seen.push(key);
        }
    }
    Value::Int(Term::int(seen.len() as i64))
}
