//! Python's changes of a value in place, each made as a new value that
//! the front end assigns back to the local changed (PYTHON.md §3):
//! `x[key] = v` (`Builtin::SetItem`), `x.name = v` (`Builtin::SetAttr`)
//! and `x.pop(...)` (`Builtin::Pop`, the item and what is left); and a
//! module's registrations: `x.add_module(name, m)` (`Builtin::AddModule`),
//! `self.name = m` in a Sequential class (`Builtin::SetModuleAttr`), its
//! `training` flag (`Builtin::SetTraining`) and what
//! `x.load_state_dict(...)` may replace (`Builtin::LoadState`).

use std::sync::Arc;

use tensorfit_syntax::ast::{self, Builtin};

use super::Frame;
use crate::shapes::value::{item_position, Instance, Layer, Value};

impl<'f, 'a> Frame<'f, 'a> {
    /// The value of a call of one of those updates
    /// ([`Builtin::is_update`]).
    pub(super) fn updated_value(&mut self, update: Builtin, args: &[ast::Arg]) -> Value {
        debug_assert!(update.is_update(), "{update:?} is no update");
        let values: Vec<Value> = self
            .evaluate_args(args)
            .into_iter()
            .map(|arg| arg.value)
            .collect();
        match (update, values.as_slice()) {
            (Builtin::SetItem, [container, key, item]) => {
                with_item_set(container, key, item.clone())
            }
            // A property or `__setattr__` may store something else.
            (Builtin::SetAttr, [object, attribute, value])
                if !self.intercepts_attribute(object, attribute) =>
            {
                // A field a method of the class also assigns: that
                // method's change is not followed, so the value set here
                // could be stale after any call of one.
                let value = match self.changed_by_methods(object, attribute) {
                    true => Value::Unknown,
                    false => value.clone(),
                };
                with_attribute_set(object, attribute, value)
            }
            (Builtin::Pop, _) => popped(&values),
            // A class's own `train` or `eval` may do anything: unknown.
            (Builtin::SetTraining, [module @ (Value::Instance(_) | Value::Layer(_)), mode]) => {
                let own = match module {
                    Value::Instance(instance) => {
                        self.method_of(instance, "train").is_some()
                            || self.method_of(instance, "eval").is_some()
                    }
                    _ => false,
                };
                match own {
                    true => Value::Unknown,
                    false => super::module_methods::with_training(
                        module,
                        &super::module_methods::train_mode(Some(mode)),
                    ),
                }
            }
            (Builtin::AddModule, [container, name, module]) => {
                with_module_added(container, name, module.clone())
            }
            // `nn.Module.__setattr__`: a layer is registered; a plain value
            // is an attribute, which the Sequential's layers do not see.
            // A builder whose base is a plain module class (not a
            // Sequential): the attribute of its instance.
            // One of a container class registers a layer in its container
            // too: not followed.
            (Builtin::SetModuleAttr, [object @ Value::Instance(instance), name, value])
                if !instance.is_dict() =>
            {
                let registers = instance
                    .fields
                    .iter()
                    .any(|(n, _)| n == tensorfit_syntax::ast::REGISTERED_MODULES_FIELD);
                match registers || self.intercepts_attribute(object, name) {
                    true => Value::Unknown,
                    false => with_attribute_set(object, name, value.clone()),
                }
            }
            (Builtin::SetModuleAttr, [container, name, value]) => match value {
                Value::Layer(_) => with_module_added(container, name, value.clone()),
                Value::Int(_) | Value::Float(_) | Value::Bool(_) | Value::Str(_) => {
                    container.clone()
                }
                // `None` for a name already registered empties its place.
                Value::None if !has_module_named(container, name) => container.clone(),
                _ => Value::Unknown,
            },
            (Builtin::LoadState, [module, ..]) => match self.may_reload_layers(module) {
                true => Value::Unknown,
                false => module.clone(),
            },
            _ => Value::Unknown,
        }
    }

    /// Whether a method of `object`'s class (or of a base) other than
    /// `__init__` may assign or change the field `name` ([`ast::CHANGED_AFTER_INIT`]).
    fn changed_by_methods(&self, object: &Value, name: &Value) -> bool {
        let (Value::Instance(instance), Value::Str(name)) = (object, name) else {
            return false;
        };
        let mut current: Option<&Instance> = Some(instance);
        while let Some(instance) = current {
            let program = &self.analysis.program;
            if let Some((class, _)) = program.struct_def(&instance.struct_name) {
                let assigned = class.fields.iter().any(|field| {
                    field.name.text == *name
                        && matches!(&field.value.kind, ast::ExprKind::Unknown(why)
                            if why.ends_with(ast::CHANGED_AFTER_INIT))
                });
                if assigned {
                    return true;
                }
            }
            current = instance.base();
        }
        false
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
        // A tensor's items are set in place: its shape stays (that the
        // value broadcasts to the indexed part is not checked).
        (Value::Tensor(_), _) => container.clone(),
        // A key already there keeps its place in the dict's order.
        (Value::Instance(dict), Value::Str(name)) if dict.is_dict() => {
            let mut fields = dict.fields.clone();
            match fields.iter_mut().find(|(n, _)| n == name) {
                Some((_, slot)) => *slot = item,
                None => fields.push((name.clone(), item)),
            }
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
        (Value::Layer(layer), _) => match (layer.sequential_layers(), layer.sequential_names()) {
            (Some(layers), Some(names)) => {
                match with_item_set(&Value::List(layers.to_vec()), key, item) {
                    Value::List(layers) => Layer::named_sequential(layers, names),
                    _ => Value::Unknown,
                }
            }
            _ => Value::Unknown,
        },
        _ => Value::Unknown,
    }
}

/// `container.add_module(name, module)`: an `nn.Sequential` or a dict of
/// modules with `module` under `name`, in the place of a module of that
/// name, else last. Unknown where a name is not known.
fn with_module_added(container: &Value, name: &Value, module: Value) -> Value {
    match (container, name) {
        (Value::Instance(dict), Value::Str(_)) if dict.is_dict() => {
            with_item_set(container, name, module)
        }
        (Value::Layer(layer), Value::Str(_)) => {
            let (Some(layers), Some(names)) = (layer.sequential_layers(), layer.sequential_names())
            else {
                return Value::Unknown;
            };
            if names.iter().any(|n| matches!(n, Value::Unknown)) {
                return Value::Unknown;
            }
            let (mut layers, mut names) = (layers.to_vec(), names);
            match names.iter().position(|n| n == name) {
                Some(at) => layers[at] = module,
                None => {
                    layers.push(module);
                    names.push(name.clone());
                }
            }
            Layer::named_sequential(layers, names)
        }
        _ => Value::Unknown,
    }
}

/// Whether a Sequential or dict of modules may have a module registered
/// as `name` (an unknown name may be any).
fn has_module_named(container: &Value, name: &Value) -> bool {
    let Value::Str(text) = name else {
        return true;
    };
    match container {
        Value::Instance(dict) if dict.is_dict() => dict.fields.iter().any(|(n, _)| n == text),
        Value::Layer(layer) => layer.sequential_names().is_none_or(|names| {
            names
                .iter()
                .any(|n| n == name || matches!(n, Value::Unknown))
        }),
        _ => true,
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

impl Frame<'_, '_> {
    /// Whether loading a state dict into `module` may change its layers:
    /// a class inside it (the module's, a submodule's) defines
    /// `_load_from_state_dict`, which `load_state_dict` calls and which may
    /// replace layers. Unknown values may hold such a class.
    pub(super) fn may_reload_layers(&self, module: &Value) -> bool {
        let mut stack = vec![module];
        let mut seen = 0usize;
        while let Some(value) = stack.pop() {
            seen += 1;
            if seen > MAX_VALUES_SEARCHED {
                return true;
            }
            match value {
                Value::Unknown => return true,
                Value::Instance(instance) => {
                    if !instance.is_dict()
                        && self.method_of(instance, "_load_from_state_dict").is_some()
                    {
                        return true;
                    }
                    stack.extend(instance.fields.iter().map(|(_, v)| v));
                }
                // PyTorch's own layers define no such hook; a Sequential's
                // layers may.
                Value::Layer(layer) => stack.extend(layer.sequential_layers().unwrap_or(&[])),
                Value::List(items) | Value::Tuple(items) => stack.extend(items),
                _ => {}
            }
        }
        false
    }
}

/// How many values [`Frame::may_reload_layers`] looks through before it
/// answers "may": a model is far smaller.
const MAX_VALUES_SEARCHED: usize = 100_000;
