//! Functions analysed for the arguments of one call.
//!
//! A function's summary is made once, with placeholders for its parameters,
//! and instantiated at each call. That is exact when the placeholders can
//! stand for what calls pass: numbers for `Int`s, shapes for tensors, an
//! instance built from placeholders of its struct's parameters for `self`.
//! Python code passes more than that:
//! - a module built from things no placeholder stands for (a block class,
//!   a list of layer counts, a config object, an optional `downsample`),
//!   whose fields are unknown in the summary, and so is everything
//!   `forward` computes from them;
//! - numbers, layers or classes to an unannotated parameter, which the
//!   summary took for a tensor (`conv3x3(in_planes, out_planes)`).
//!
//! Such a call gets a summary of its own, with those parameters fixed to
//! the call's values (`Analysis::summary_for_arguments`).

use crate::shapes::analysis::Summary;
use crate::shapes::value::Value;

/// The arguments of a call that the summary's placeholders cannot stand
/// for, by parameter. A known float among them takes every number with it:
/// float arithmetic (`int(v + divisor / 2)`) has no placeholder to carry
/// it.
pub fn fixed_arguments(
    summary: &Summary,
    bound: &[(String, Value, String)],
) -> Vec<(String, Value)> {
    let fixed: Vec<(String, Value)> = bound
        .iter()
        .filter(|(name, actual, _)| {
            summary
                .params
                .iter()
                .find(|(n, _)| n == name)
                .is_some_and(|(_, assumed)| cannot_stand_for(assumed, actual))
        })
        .map(|(name, actual, _)| (name.clone(), actual.clone()))
        .collect();
    // A known number where the function reads a float (`v: float` given
    // `32`) is as good as a known float.
    let float_known = |(name, value): &(String, Value)| match value {
        Value::Float(Some(_)) => true,
        Value::Int(n) => {
            n.as_const().is_some()
                && summary
                    .params
                    .iter()
                    .any(|(p, assumed)| p == name && matches!(assumed, Value::Float(None)))
        }
        _ => false,
    };
    match fixed.iter().any(float_known) {
        true => all_but_tensors(bound),
        false => fixed,
    }
}

/// Whether the summary no longer knows what a list or dict parameter holds
/// when the function returns (see `in_place`).
pub fn loses_containers(summary: &Summary) -> bool {
    summary
        .in_place
        .iter()
        .any(|(_, after)| matches!(after, Value::Unknown))
}

/// Whether a value is or holds a known number (`depth=4`, `[3, 4, 6, 3]`,
/// a config object's `width`).
pub fn holds_known_number(value: &Value) -> bool {
    holds(value, false, &|v| match v {
        Value::Int(n) => n.as_const().is_some(),
        Value::Float(f) => f.is_some(),
        _ => false,
    })
}

/// Whether `value`, or a value it holds (an item, a field, a partial's
/// argument, with `in_layers` a layer's argument), is one `is` accepts.
fn holds(value: &Value, in_layers: bool, is: &dyn Fn(&Value) -> bool) -> bool {
    let inner = |v: &Value| holds(v, in_layers, is);
    is(value)
        || match value {
            Value::List(items) | Value::Tuple(items) => items.iter().any(inner),
            Value::Instance(instance) => instance
                .fields
                .iter()
                .chain(&instance.params)
                .any(|(_, v)| inner(v)),
            Value::Layer(layer) if in_layers => layer.args.iter().any(|(_, v)| inner(v)),
            Value::Partial(partial) => partial.args.iter().any(|a| inner(&a.value)),
            _ => false,
        }
}

/// Every argument but tensors (which placeholders stand for) and unknown
/// values (which fix nothing), for a summary of the call's own values.
pub fn all_but_tensors(bound: &[(String, Value, String)]) -> Vec<(String, Value)> {
    bound
        .iter()
        .filter(|(_, actual, _)| !matches!(actual, Value::Tensor(_) | Value::Unknown))
        .map(|(name, actual, _)| (name.clone(), actual.clone()))
        .collect()
}

/// Every argument that is not unknown, tensors included, for a summary of
/// the call's own values and shapes.
pub fn all_known(bound: &[(String, Value, String)]) -> Vec<(String, Value)> {
    bound
        .iter()
        .filter(|(_, actual, _)| !matches!(actual, Value::Unknown))
        .map(|(name, actual, _)| (name.clone(), actual.clone()))
        .collect()
}

/// Whether the placeholder `assumed` cannot stand for `actual`.
fn cannot_stand_for(assumed: &Value, actual: &Value) -> bool {
    match (assumed, actual) {
        // A flag the call passes (`batch_norm=False`) may decide what the
        // function builds (a list one layer longer), which no symbolic
        // boolean stands for: the call gets its own summary. Only a
        // parameter's own flag: a flag inside `self` (a block's
        // `downsample`) would give each block its own summary, whose calls
        // the migrations then no longer see (examples/models/resnet18).
        (Value::Bool(a), Value::Bool(b)) => a.as_const().is_none() && b.as_const().is_some(),
        // So may a Python float (`width_mult=0.75` sizes every layer).
        (Value::Float(a), Value::Float(b)) => a.is_none() && b.is_some(),
        // And a known `int` given where the function reads a float.
        (Value::Float(None), Value::Int(n)) => n.as_const().is_some(),
        // A tensor placeholder stands for tensors and scalars.
        (Value::Tensor(_), Value::Tensor(_) | Value::Float(_) | Value::Unknown) => false,
        (Value::Tensor(_), _) => true,
        _ => less_known(assumed, actual),
    }
}

fn less_known(assumed: &Value, actual: &Value) -> bool {
    match (assumed, actual) {
        (Value::Unknown, Value::Unknown) => false,
        (Value::Unknown, _) => true,
        (Value::Instance(a), Value::Instance(b)) if a.fields_unknown => {
            a.struct_name != b.struct_name
                || b.params.iter().any(|(name, value)| {
                    a.member(name)
                        .is_none_or(|assumed| less_known(assumed, value))
                })
        }
        (Value::Instance(a), Value::Instance(b)) => {
            a.struct_name != b.struct_name
                || b.fields.iter().chain(&b.params).any(|(name, value)| {
                    a.member(name)
                        .is_none_or(|assumed| less_known(assumed, value))
                })
        }
        (Value::List(a) | Value::Tuple(a), Value::List(b) | Value::Tuple(b)) => {
            a.len() != b.len() || a.iter().zip(b).any(|(x, y)| less_known(x, y))
        }
        (Value::Layer(a), Value::Layer(b)) => {
            a.kind != b.kind
                || a.args.len() != b.args.len()
                || a.args
                    .iter()
                    .zip(&b.args)
                    .any(|((_, x), (_, y))| less_known(x, y))
        }
        // Numbers and booleans symbolic in the summary are substituted by
        // a call; one the summary took as a constant (a field `__init__`
        // sets to `1`, which a derived class's sets to `3`) stands for that
        // value only.
        (Value::Int(a), Value::Int(b)) => a.as_const().is_some() && a != b,
        (Value::Bool(a), Value::Bool(b)) => a.as_const().is_some() && a != b,
        (Value::Float(a), Value::Float(b)) => a.is_some() && a != b,
        (Value::Tensor(_), Value::Tensor(_)) | (Value::Shape(_), Value::Shape(_)) => false,
        (_, Value::Unknown) => false,
        (a, b) => std::mem::discriminant(a) != std::mem::discriminant(b) || a != b,
    }
}

/// Whether a value is or holds an unknown number (a symbolic `int`, a
/// dimension or rank not known): a term of the frame it comes from.
pub fn holds_symbolic_term(value: &Value) -> bool {
    holds(value, true, &|v| match v {
        Value::Int(n) => n.as_const().is_none(),
        Value::Tensor(shape) | Value::Shape(shape) => match shape.dims() {
            Some(dims) => dims.iter().any(|d| d.as_const().is_none()),
            None => true,
        },
        _ => false,
    })
}
