//! The Python builtins the analysis computes, the values of the
//! read-only [`Builtin`]s the front end calls (`Builtin::Int`,
//! `Builtin::Contains`, ...):
//! the builtins on numbers (their arithmetic is in `numbers`),
//! `isinstance` of a builtin type, `in`, `a if c else b`, `copy`, and
//! the truth of a value in a condition (`if stage:`).

use tensorfit_solver::Formula;
use tensorfit_syntax::ast::{self, Builtin, CompareOp, Enumeration};

use super::callables::Question;
use super::comparisons::compare;
use super::numbers::{self, Rounding};
use super::{BranchOrigin, Frame};
use crate::shapes::value::{Instance, Value};
use tensorfit_syntax::ast::REGISTERED_MODULES_FIELD;

impl<'f, 'a> Frame<'f, 'a> {
    /// The value of a call of a read-only builtin
    /// ([`Builtin::is_read_only`]).
    pub(super) fn python_builtin(&mut self, builtin: Builtin, args: &[ast::Arg]) -> Value {
        debug_assert!(builtin.is_read_only(), "{builtin:?} changes its arguments");
        if builtin == Builtin::Conditional {
            return self.conditional(args);
        }
        // Its arguments only tie it to the names it may change.
        if builtin == Builtin::TensorsChangeInPlace {
            self.keeps_items = false;
            return Value::None;
        }
        let given = self.evaluate_args(args);
        if given.iter().any(|arg| arg.name.is_some()) {
            return Value::Unknown;
        }
        let values: Vec<Value> = given.into_iter().map(|arg| arg.value).collect();
        let one = |apply: fn(&Value) -> Value| match values.as_slice() {
            [value] => apply(value),
            _ => Value::Unknown,
        };
        match builtin {
            Builtin::List => self.collected(&values, false),
            Builtin::Tuple => self.collected(&values, true),
            Builtin::Sorted => self.sorted(&values),
            Builtin::Reversed => self.reversed(&values),
            Builtin::Enumerate => self.enumerated(&values),
            Builtin::Range => self.range_items(&values),
            Builtin::Any => self.any_or_all(&values, false),
            Builtin::All => self.any_or_all(&values, true),
            Builtin::Int => one(numbers::int),
            Builtin::Str => {
                one(|v| super::str_format::text_of(v).map_or(Value::Unknown, Value::Str))
            }
            Builtin::Repr => one(|v| super::str_format::repr(v).map_or(Value::Unknown, Value::Str)),
            Builtin::FormatValue => {
                let text = match values.as_slice() {
                    [value] => super::str_format::format_value(value, ""),
                    [value, Value::Str(spec)] => super::str_format::format_value(value, spec),
                    _ => None,
                };
                let text = text.map_or(Value::Unknown, Value::Str);
                self.note_numbers_decide(&text, &values);
                text
            }
            Builtin::Float => one(numbers::float),
            Builtin::Abs => one(numbers::absolute),
            Builtin::Round => one(|v| numbers::rounded(Rounding::Nearest, v)),
            Builtin::Ceil => one(|v| numbers::rounded(Rounding::Ceil, v)),
            Builtin::Floor => one(|v| numbers::rounded(Rounding::Floor, v)),
            Builtin::Min => numbers::extreme(false, &values),
            Builtin::Sum => match values.as_slice() {
                [items] => numbers::sum(items),
                _ => Value::Unknown,
            },
            Builtin::Max => numbers::extreme(true, &values),
            Builtin::Copy | Builtin::DeepCopy => one(Value::clone),
            Builtin::Contains => match values.as_slice() {
                [container, item] => contains(container, item),
                _ => Value::Unknown,
            },
            Builtin::IsInstance => match values.as_slice() {
                [value, Value::Str(types)] => {
                    let value = self.refine(value.clone());
                    let decided = is_instance(&value, types);
                    let opaque = matches!(&value, Value::Tensor(shape) if shape.dims().is_none());
                    if opaque && types.split(',').any(|t| t == "Tensor") {
                        self.ranks_decide = true;
                    }
                    decided
                }
                _ => Value::Unknown,
            },
            Builtin::Format => {
                let text = super::strings::formatted(&values);
                self.note_numbers_decide(&text, &values);
                text
            }
            Builtin::DictFromPairs => match values.as_slice() {
                [] => Instance::dict(Vec::new()),
                [pairs] => dict_from_pairs(pairs),
                _ => Value::Unknown,
            },
            view @ (Builtin::Items | Builtin::Keys | Builtin::Values) => match values.as_slice() {
                // A class of the program may define its own `items()`.
                [Value::Instance(instance)]
                    if !instance.is_dict()
                        && self.method_of(instance, view_method(view)).is_some() =>
                {
                    Value::Unknown
                }
                [container] => dict_view(view, container),
                _ => Value::Unknown,
            },
            Builtin::Zip => zipped(&values),
            Builtin::Math(function) => match values.as_slice() {
                [value] => numbers::math_function(function, value),
                _ => Value::Float(None),
            },
            Builtin::TensorOf => match values.as_slice() {
                [data] => self.tensor_of(data),
                _ => Value::Unknown,
            },
            Builtin::ToList => one(super::tensor_items::to_list),
            Builtin::NumpyLinspace => match values.as_slice() {
                [start, stop, num] => self.numpy_linspace(start, stop, num),
                _ => Value::Unknown,
            },
            Builtin::KeepsShape => one(|v| v.clone().without_elements()),
            Builtin::GetAttr => match values.as_slice() {
                [object, Value::Str(name)] => self.field(object, name),
                _ => Value::Unknown,
            },
            Builtin::DistinctCount => one(super::tensor_items::distinct_count),
            Builtin::IsCallable | Builtin::IsFunction | Builtin::IsClass => {
                let question = match builtin {
                    Builtin::IsCallable => Question::Callable,
                    Builtin::IsFunction => Question::Function,
                    _ => Question::Class,
                };
                match values.as_slice() {
                    [value] => self.introspect(question, value),
                    _ => Value::Unknown,
                }
            }
            Builtin::IfImmutable => one(|v| match is_immutable(v) {
                true => v.clone(),
                false => Value::Unknown,
            }),
            // Handled above, or not read-only.
            Builtin::Conditional
            | Builtin::TensorsChangeInPlace
            | Builtin::Partial
            | Builtin::Power
            | Builtin::Map
            | Builtin::Filter
            | Builtin::Reduce
            | Builtin::SetItem
            | Builtin::SetAttr
            | Builtin::SetTraining
            | Builtin::Pop
            | Builtin::AddModule
            | Builtin::SetModuleAttr
            | Builtin::LoadState => Value::Unknown,
        }
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
        if !self.analysis.semantics.every_value_has_a_truth {
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
            // A plain member is true; a mixed-in one as its `int` or `str`.
            Value::Member(member) => match member.mixed_in() {
                Some(inner) => self.truthiness(inner),
                None => known(true),
            },
            // Functions and classes define no `__bool__` or `__len__`.
            Value::Closure(_) | Value::Callable(_) | Value::Partial(_) => known(true),
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
/// so it decides nothing of numbers, nor whether it is a `Tensor` unless
/// its rank is known (a call that passes tensors of known ranks gets a
/// summary of its own, see `ranks_decide`).
fn is_instance(value: &Value, types: &str) -> Value {
    let of_type = |ty: &str| -> Option<bool> {
        if ty == "Tensor" {
            return match value {
                // A placeholder of unknown rank may stand for a number (an
                // unannotated parameter): undecided, and decided at calls
                // that pass tensors (see `ranks_decide`).
                Value::Tensor(shape) => shape.dims().is_some().then_some(true),
                Value::Elements(_) => Some(true),
                Value::Unknown => None,
                _ => Some(false),
            };
        }
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
            // A member of a `str` or `int` enumeration is one of those.
            Value::Member(member) => matches!(
                (member.kind, ty),
                (Enumeration::Str, "str") | (Enumeration::Int, "int")
            ),
            Value::None
            | Value::Elements(_)
            | Value::Instance(_)
            | Value::Layer(_)
            | Value::Callable(_)
            | Value::Partial(_)
            | Value::Closure(_) => false,
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

/// The method a dict view builtin stands for.
fn view_method(view: Builtin) -> &'static str {
    match view {
        Builtin::Items => "items",
        Builtin::Keys => "keys",
        _ => "values",
    }
}

impl Frame<'_, '_> {
    /// Notes that `result` is unknown only because some of `inputs` are
    /// numbers not known here (see `Frame::numbers_decide`).
    pub(super) fn note_numbers_decide(&mut self, result: &Value, inputs: &[Value]) {
        let symbolic = |v: &Value| matches!(v, Value::Int(t) if t.as_const().is_none());
        let in_inputs = inputs.iter().any(|input| match input {
            Value::Tuple(items) | Value::List(items) => items.iter().any(symbolic),
            other => symbolic(other),
        });
        if matches!(result, Value::Unknown) && in_inputs {
            self.numbers_decide = true;
        }
    }
}

/// `OrderedDict(pairs)` of a list or tuple of `(key, value)` pairs with
/// known string keys (a later pair of a key replaces the value in its
/// place), or of a dict; unknown otherwise.
fn dict_from_pairs(pairs: &Value) -> Value {
    match pairs {
        Value::Instance(dict) if dict.is_dict() => pairs.clone(),
        Value::List(items) | Value::Tuple(items) => {
            let mut fields: Vec<(String, Value)> = Vec::new();
            for item in items {
                let (Value::Tuple(pair) | Value::List(pair)) = item else {
                    return Value::Unknown;
                };
                let [Value::Str(key), value] = pair.as_slice() else {
                    return Value::Unknown;
                };
                match fields.iter_mut().find(|(n, _)| n == key) {
                    Some((_, slot)) => *slot = value.clone(),
                    None => fields.push((key.clone(), value.clone())),
                }
            }
            Instance::dict(fields)
        }
        _ => Value::Unknown,
    }
}

/// `d.items()`, `d.keys()` or `d.values()` (by `view`) of a dict, of the
/// modules an instance of a `ModuleDict` or `Sequential` class registers,
/// or of an `nn.Sequential` (whose names may not be known: its values
/// are). Unknown for anything else, and for a dict with a key set on one
/// path only.
fn dict_view(view: Builtin, container: &Value) -> Value {
    let entries: Vec<(Value, Value)> = match container {
        Value::Instance(dict) if dict.is_dict() && dict.known_len().is_some() => dict
            .fields
            .iter()
            .map(|(n, v)| (Value::Str(n.clone()), v.clone()))
            .collect(),
        Value::Instance(instance) if !instance.is_dict() => {
            return match instance
                .fields
                .iter()
                .find(|(n, _)| n == REGISTERED_MODULES_FIELD)
            {
                Some((_, modules)) => dict_view(view, modules),
                None => Value::Unknown,
            };
        }
        Value::Layer(layer) => match (layer.sequential_layers(), layer.sequential_names()) {
            (Some(layers), Some(names)) => names.into_iter().zip(layers.iter().cloned()).collect(),
            _ => return Value::Unknown,
        },
        _ => return Value::Unknown,
    };
    let unknown_name = entries.iter().any(|(n, _)| matches!(n, Value::Unknown));
    match view {
        Builtin::Values => Value::List(entries.into_iter().map(|(_, v)| v).collect()),
        _ if unknown_name => Value::Unknown,
        Builtin::Keys => Value::List(entries.into_iter().map(|(n, _)| n).collect()),
        _ => Value::List(
            entries
                .into_iter()
                .map(|(n, v)| Value::Tuple(vec![n, v]))
                .collect(),
        ),
    }
}

/// `zip(a, b, ...)` of lists, tuples and known shapes: the tuples of their
/// items, as many as the shortest has. Unknown where a length is not
/// known.
fn zipped(sequences: &[Value]) -> Value {
    let items: Option<Vec<Vec<Value>>> = sequences
        .iter()
        .map(|sequence| match sequence {
            Value::List(items) | Value::Tuple(items) => Some(items.clone()),
            Value::Shape(shape) => shape
                .dims()
                .map(|dims| dims.iter().cloned().map(Value::Int).collect()),
            _ => None,
        })
        .collect();
    let Some(items) = items else {
        return Value::Unknown;
    };
    let shortest = items.iter().map(Vec::len).min().unwrap_or(0);
    Value::List(
        (0..shortest)
            .map(|k| Value::Tuple(items.iter().map(|sequence| sequence[k].clone()).collect()))
            .collect(),
    )
}

/// Whether no call can change the value in place: a number, string,
/// `None`, enumeration member, function or class, or a tuple of those. A
/// closure's captured values are what it took when made.
fn is_immutable(value: &Value) -> bool {
    match value {
        Value::Int(_)
        | Value::Bool(_)
        | Value::Float(_)
        | Value::Str(_)
        | Value::None
        | Value::Shape(_)
        | Value::Member(_)
        | Value::Callable(_)
        | Value::Closure(_) => true,
        Value::Tuple(items) => items.iter().all(is_immutable),
        // A partial holds its arguments, which may be lists.
        Value::Partial(_)
        | Value::Tensor(_)
        | Value::Elements(_)
        | Value::List(_)
        | Value::Layer(_)
        | Value::Instance(_)
        | Value::Unknown => false,
    }
}
