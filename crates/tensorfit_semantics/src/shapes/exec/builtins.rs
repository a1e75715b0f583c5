//! The Python builtins the analysis computes, under the names the Python
//! front end calls them by (`registry::INT`, `registry::CONTAINS`, ...):
//! the builtins on numbers (their arithmetic is in `numbers`),
//! `isinstance` of a builtin type, `in`, `a if c else b`, `copy`, and
//! the truth of a value in a condition (`if stage:`).

use tensorfit_solver::Formula;
use tensorfit_syntax::ast::{self, CompareOp};

use super::expressions::compare;
use super::numbers::{self, Rounding};
use super::{BranchOrigin, Frame};
use crate::registry;
use crate::shapes::value::Value;

impl<'f, 'a> Frame<'f, 'a> {
    /// The value of a call of one of those builtins; `None` for any other
    /// callee.
    pub(super) fn python_builtin(&mut self, name: &str, args: &[ast::Arg]) -> Option<Value> {
        if !registry::READ_ONLY_BUILTINS.contains(&name) {
            return None;
        }
        if name == registry::CONDITIONAL {
            return Some(self.conditional(args));
        }
        let given = self.evaluate_args(args);
        if given.iter().any(|arg| arg.name.is_some()) {
            return Some(Value::Unknown);
        }
        let values: Vec<Value> = given.into_iter().map(|arg| arg.value).collect();
        let one = |apply: fn(&Value) -> Value| match values.as_slice() {
            [value] => apply(value),
            _ => Value::Unknown,
        };
        Some(match name {
            registry::INT => one(numbers::int),
            registry::FLOAT => one(numbers::float),
            registry::ABS => one(numbers::absolute),
            registry::ROUND => one(|v| numbers::rounded(Rounding::Nearest, v)),
            registry::CEIL => one(|v| numbers::rounded(Rounding::Ceil, v)),
            registry::FLOOR => one(|v| numbers::rounded(Rounding::Floor, v)),
            registry::MIN => numbers::extreme(false, &values),
            registry::MAX => numbers::extreme(true, &values),
            registry::COPY | registry::DEEP_COPY => one(Value::clone),
            registry::CONTAINS => match values.as_slice() {
                [container, item] => contains(container, item),
                _ => Value::Unknown,
            },
            registry::IS_INSTANCE => match values.as_slice() {
                [value, Value::Str(types)] => is_instance(value, types),
                _ => Value::Unknown,
            },
            _ => Value::Unknown,
        })
    }

    /// A value as a condition: a boolean's formula, and in Python the
    /// truth of a value where the analysis knows it (`bool(value)`): empty
    /// containers, `None`, zero and `""` are false. `None` where not known:
    /// a tensor, a layer, an object (its class or a base outside the file
    /// may define `__len__`), a dict with a key set on one path only.
    pub(super) fn truthiness(&self, value: &Value) -> Option<Formula> {
        if let Value::Bool(f) = value {
            return Some(f.clone());
        }
        if !self.analysis.language.is_python() {
            return None;
        }
        let known = |b: bool| Some(Formula::Const(b));
        match value {
            Value::None => known(false),
            Value::List(items) | Value::Tuple(items) => known(!items.is_empty()),
            Value::Str(text) => known(!text.is_empty()),
            Value::Int(n) => Some(Formula::ne(n, &tensorfit_solver::Term::int(0))),
            Value::Float(Some(x)) => known(*x != 0.0),
            Value::Instance(dict) => dict.known_len().and_then(|n| known(n > 0)),
            _ => None,
        }
    }

    /// `then if condition else otherwise`, passed as `(condition, then,
    /// otherwise)`: an `if` of its own (see `branch`), so only the side a
    /// decided condition selects runs (the other may be what the condition
    /// guards against), and each side runs on its own path.
    fn conditional(&mut self, args: &[ast::Arg]) -> Value {
        let [condition, then, otherwise] = args else {
            return Value::Unknown;
        };
        let Value::Bool(c) = self.expr(&condition.value) else {
            return Value::Unknown;
        };
        let text = self.describe(&condition.value);
        let origin = BranchOrigin {
            at: condition.value.range,
            when_true: format!("`{text}` is true"),
            when_false: format!("`{text}` is false"),
        };
        let (mut a, mut b) = (None, None);
        self.branch(
            c.clone(),
            origin,
            |this| a = Some(this.expr(&then.value)),
            |this| b = Some(this.expr(&otherwise.value)),
        );
        match (a, b) {
            (Some(a), Some(b)) => self.merge(&c, &a, &b),
            (Some(only), None) | (None, Some(only)) => only,
            (None, None) => Value::Unknown,
        }
    }
}

/// `isinstance(value, T)` for `types`, builtin type names joined by `,`:
/// known where the value's kind says what Python's type is. A tensor value
/// may stand for a Python number (an unannotated parameter's placeholder),
/// so it decides nothing.
fn is_instance(value: &Value, types: &str) -> Value {
    let of_type = |ty: &str| -> Option<bool> {
        Some(match value {
            Value::Unknown | Value::Tensor(_) => return None,
            // `bool` is a subclass of `int`.
            Value::Int(_) => ty == "int",
            Value::Bool(_) => matches!(ty, "int" | "bool"),
            Value::Float(_) => ty == "float",
            Value::Str(_) => matches!(ty, "str" | "Sequence"),
            Value::List(_) => matches!(ty, "list" | "Sequence"),
            // `x.shape` is a `torch.Size`, a tuple.
            Value::Tuple(_) | Value::Shape(_) => matches!(ty, "tuple" | "Sequence"),
            Value::Instance(instance) if instance.is_dict() => ty == "dict",
            Value::None
            | Value::Instance(_)
            | Value::Layer(_)
            | Value::Callable(_)
            | Value::Partial(_) => false,
        })
    };
    let mut any = false;
    for ty in types.split(',') {
        match of_type(ty) {
            Some(found) => any |= found,
            None => return Value::Unknown,
        }
    }
    Value::Bool(Formula::truth(any))
}

/// `item in container`: known for a dict's keys (a string key), and for a
/// list, tuple or string whose items `==` compares with `item` (numbers as
/// a formula, decided strings, `None`).
fn contains(container: &Value, item: &Value) -> Value {
    let decided = |found: bool| Value::Bool(Formula::truth(found));
    match (container, item) {
        (Value::Instance(dict), Value::Str(key)) if dict.is_dict() => {
            decided(dict.fields.iter().any(|(name, _)| name == key))
        }
        (Value::Str(text), Value::Str(part)) => decided(text.contains(part.as_str())),
        (Value::List(items) | Value::Tuple(items), _) => {
            let mut equal = Vec::new();
            for candidate in items {
                match compare(CompareOp::Eq, candidate, item) {
                    Some(formula) => equal.push(formula),
                    None => return Value::Unknown,
                }
            }
            Value::Bool(Formula::or(equal))
        }
        _ => Value::Unknown,
    }
}

/// The methods of a known `str` whose result the analysis needs:
/// `arch.startswith("efficientnet_b")` picks a builder's configuration.
pub(super) fn string_method(text: &str, method: &str, args: &[Value]) -> Value {
    let decided = |b: bool| Value::Bool(Formula::Const(b));
    match (method, args) {
        ("startswith", [Value::Str(prefix)]) => decided(text.starts_with(prefix.as_str())),
        ("endswith", [Value::Str(suffix)]) => decided(text.ends_with(suffix.as_str())),
        ("lower", []) => Value::Str(text.to_lowercase()),
        ("upper", []) => Value::Str(text.to_uppercase()),
        _ => Value::Unknown,
    }
}
