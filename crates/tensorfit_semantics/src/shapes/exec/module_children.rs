//! The modules an `nn.Module` registers (PyTorch's `Module.__setattr__`):
//! `m._modules`, `m.children()`, `m.named_children()`, and iterating over
//! an instance of a class derived from `nn.Sequential`, `nn.ModuleList` or
//! `nn.ModuleDict` (`functools.reduce(f, self, x)`), for such a container
//! class, whose `__init__` the analysis followed (the modules its
//! `super().__init__(...)`, `append`, `add_module` register,
//! `lower/registered.rs`).
//!
//! Any other module registers each attribute assigned a module, but also
//! what a base class outside the file registers, and the analysis does not
//! know a class's bases: unknown, never a guess (a class derived from
//! `nn.Sequential` without an `__init__` of its own registers its
//! arguments, which no field of the instance shows).

use tensorfit_syntax::ast::REGISTERED_MODULES_FIELD;

use super::Frame;
use crate::shapes::value::{Instance, Value};

impl Frame<'_, '_> {
    /// The modules `instance` registers, by name, in order; `None` where
    /// that is not known.
    pub(super) fn registered_children(&self, instance: &Instance) -> Option<Vec<(String, Value)>> {
        if instance.is_dict() || instance.fields_unknown {
            return None;
        }
        // A container class: what its `__init__` registered.
        if let Some((_, modules)) = instance
            .fields
            .iter()
            .find(|(n, _)| n == REGISTERED_MODULES_FIELD)
        {
            return container_children(modules);
        }
        None
    }

    /// `module._modules` (a dict of the registered modules), or the list
    /// `children()`/`named_children()` give; `None` for another method.
    pub(super) fn module_children_call(&self, instance: &Instance, method: &str) -> Option<Value> {
        let children = || self.registered_children(instance);
        let value = match method {
            "children" => children().map(|c| Value::List(c.into_iter().map(|(_, m)| m).collect())),
            "named_children" => children().map(|c| {
                let pairs = c
                    .into_iter()
                    .map(|(name, m)| Value::Tuple(vec![Value::Str(name), m]));
                Value::List(pairs.collect())
            }),
            _ => return None,
        };
        Some(value.unwrap_or(Value::Unknown))
    }

    /// `module._modules`.
    pub(super) fn modules_dict(&self, instance: &Instance) -> Value {
        match self.registered_children(instance) {
            Some(children) => Instance::dict(children),
            None => Value::Unknown,
        }
    }

    /// What `for m in instance` goes over, for a container class: its
    /// registered modules (a `ModuleDict`'s names).
    pub(super) fn iterated_container(&mut self, instance: &Instance) -> Option<Vec<Value>> {
        let (_, modules) = instance
            .fields
            .iter()
            .find(|(n, _)| n == REGISTERED_MODULES_FIELD)?;
        let modules = modules.clone();
        self.iterated(&modules)
    }
}

/// The named modules of a container class's registered value: a dict of
/// modules, a Sequential's layers, a list's items (named by position).
fn container_children(modules: &Value) -> Option<Vec<(String, Value)>> {
    match modules {
        Value::Instance(dict) if dict.is_dict() => {
            dict.known_len()?;
            Some(dict.fields.clone())
        }
        // `nn.Sequential(a, b)` names its modules `"0"`, `"1"`.
        Value::Layer(layer) if layer.arg("names").is_none() => Some(
            layer
                .sequential_layers()?
                .iter()
                .enumerate()
                .map(|(i, m)| (i.to_string(), m.clone()))
                .collect(),
        ),
        Value::Layer(layer) => {
            let layers = layer.sequential_layers()?;
            let names = layer.sequential_names()?;
            names
                .into_iter()
                .zip(layers.iter().cloned())
                .map(|(name, m)| match name {
                    Value::Str(name) => Some((name, m)),
                    _ => None,
                })
                .collect()
        }
        Value::List(items) => Some(
            items
                .iter()
                .enumerate()
                .map(|(i, m)| (i.to_string(), m.clone()))
                .collect(),
        ),
        _ => None,
    }
}
