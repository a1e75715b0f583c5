//! Python's changes of a value in place, each made as a new value that
//! the front end assigns back to the local changed (PYTHON.md §3):
//! `x[key] = v` (`registry::SET_ITEM`), `x.name = v` (`registry::SET_ATTR`)
//! and `x.pop(...)` (`registry::POP`, the item and what is left).

use std::sync::Arc;

use tensorfit_syntax::ast;

use super::Frame;
use crate::registry;
use crate::shapes::value::{item_position, Instance, Layer, Value};

impl<'f, 'a> Frame<'f, 'a> {
    /// The value of a call of one of those updates; `None` for any other
    /// callee.
    pub(super) fn updated_value(&mut self, name: &str, args: &[ast::Arg]) -> Option<Value> {
        if ![registry::SET_ITEM, registry::SET_ATTR, registry::POP].contains(&name) {
            return None;
        }
        let values: Vec<Value> = self
            .evaluate_args(args)
            .into_iter()
            .map(|arg| arg.value)
            .collect();
        Some(match (name, values.as_slice()) {
            (registry::SET_ITEM, [container, key, item]) => {
                with_item_set(container, key, item.clone())
            }
            // A property or `__setattr__` may store something else.
            (registry::SET_ATTR, [object, attribute, value])
                if !self.intercepts_attribute(object, attribute) =>
            {
                with_attribute_set(object, attribute, value.clone())
            }
            (registry::POP, _) => popped(&values),
            _ => Value::Unknown,
        })
    }

    /// Whether setting `name` on `object` may run code of its class (a
    /// property's setter, `__setattr__`) rather than store the value.
    fn intercepts_attribute(&self, object: &Value, name: &Value) -> bool {
        let (Value::Instance(instance), Value::Str(name)) = (object, name) else {
            return false;
        };
        self.method_of(instance, name).is_some()
            || self.method_of(instance, "__setattr__").is_some()
    }
}

/// `container` with its item `key` set to `item` (Python's `x[key] =
/// item`): a dict's key, a list's or an `nn.Sequential`'s position.
/// Anything else is unknown: what the container holds is not followed.
fn with_item_set(container: &Value, key: &Value, item: Value) -> Value {
    match (container, key) {
        (Value::Instance(dict), Value::Str(name)) if dict.is_dict() => {
            let mut fields: Vec<(String, Value)> = dict
                .fields
                .iter()
                .filter(|(n, _)| n != name)
                .cloned()
                .collect();
            fields.push((name.clone(), item));
            Instance::dict(fields)
        }
        (Value::List(items), Value::Int(k)) => {
            match k.as_const().and_then(|k| item_position(items.len(), k)) {
                Some(at) => {
                    let mut items = items.clone();
                    items[at] = item;
                    Value::List(items)
                }
                None => Value::Unknown,
            }
        }
        (Value::Layer(layer), _) => match layer.sequential_layers() {
            Some(layers) => match with_item_set(&Value::List(layers.to_vec()), key, item) {
                Value::List(layers) => Layer::sequential(layers),
                _ => Value::Unknown,
            },
            None => Value::Unknown,
        },
        _ => Value::Unknown,
    }
}

/// `object` with its attribute `name` set to `value`: a Python object's
/// (not a dict's, which has no attributes); its own, so that it hides a
/// base's of the same name. Unknown for any other value.
fn with_attribute_set(object: &Value, name: &Value, value: Value) -> Value {
    let (Value::Instance(instance), Value::Str(name)) = (object, name) else {
        return Value::Unknown;
    };
    if instance.is_dict() {
        return Value::Unknown;
    }
    let mut changed = (**instance).clone();
    match changed.fields.iter_mut().find(|(n, _)| n == name) {
        Some((_, slot)) => *slot = value,
        None => changed.fields.push((name.clone(), value)),
    }
    Value::Instance(Arc::new(changed))
}

/// `container.pop(...)` given `[container, key?, default?]`: the pair of
/// the item taken and the container without it; unknown where Python's
/// result is not certain (a key not known, a missing key without a
/// default, which raises).
fn popped(values: &[Value]) -> Value {
    let pair = |item: Value, rest: Value| Value::Tuple(vec![item, rest]);
    match values {
        [Value::Instance(dict), Value::Str(key), default @ ..] if dict.is_dict() => {
            let mut rest = (**dict).clone();
            match rest.fields.iter().position(|(n, _)| n == key) {
                Some(at) => {
                    let (_, item) = rest.fields.remove(at);
                    pair(item, Value::Instance(Arc::new(rest)))
                }
                None => match default {
                    [default] => pair(default.clone(), values[0].clone()),
                    _ => Value::Unknown,
                },
            }
        }
        [Value::List(items), index @ ..] => {
            let k = match index {
                [] => Some(-1),
                [Value::Int(k)] => k.as_const(),
                _ => None,
            };
            let Some(at) = k.and_then(|k| item_position(items.len(), k)) else {
                return Value::Unknown;
            };
            let mut rest = items.clone();
            let item = rest.remove(at);
            pair(item, Value::List(rest))
        }
        _ => Value::Unknown,
    }
}
