//! `nn.Module`'s own methods that return the module itself
//! (`model = Net().to(device)`, `net.eval()`), and its `training` flag.
//!
//! Moving a module to a device or a dtype changes no shape: the value is
//! the receiver. `eval()` and `train(mode)` set the `training` flag of
//! the module and of every module it holds, which `forward` may read
//! (GoogLeNet returns its auxiliary outputs only while training). Only
//! those set it ([`TRAINING_FIELD`]): a module whose mode no call of them
//! set reads an unknown flag, as the mode can be switched in ways not
//! followed (a loop over `modules()`, `apply(fn)`, an alias, a helper).
//! Where the class defines a method of that name, it is called instead.

use std::sync::Arc;

use tensorfit_solver::Formula;

use crate::registry;
use crate::shapes::value::{GivenArg, Instance, Layer, Value};

/// `nn.Module.training`.
pub const TRAINING_FIELD: &str = "training";

/// Whether `receiver.method(...)` is `nn.Module`'s method returning the
/// module: a module value (not a dict) without a method of that name of
/// its own (`has_own_method`).
pub fn returns_itself(receiver: &Value, method: &str, has_own_method: bool) -> bool {
    let module = match receiver {
        Value::Instance(instance) => !instance.is_dict(),
        Value::Layer(_) => true,
        _ => false,
    };
    module && !has_own_method && registry::MODULE_METHODS_RETURNING_ITSELF.contains(&method)
}

/// The value of `receiver.method(given...)` for a method
/// [`returns_itself`] accepts.
pub fn itself(receiver: &Value, method: &str, given: &[GivenArg]) -> Value {
    match method {
        "eval" => with_training(receiver, &Value::Bool(Formula::Const(false))),
        "train" => with_training(receiver, &train_mode(given.first().map(|a| &a.value))),
        _ => receiver.clone(),
    }
}

/// The module with its `training` flag, and every module's it holds, set
/// to `mode` (a known `bool`, or unknown).
pub fn with_training(value: &Value, mode: &Value) -> Value {
    match value {
        Value::Instance(instance) => {
            let mut fields: Vec<(String, Value)> = instance
                .fields
                .iter()
                .filter(|(name, _)| name != TRAINING_FIELD)
                .map(|(name, field)| (name.clone(), with_training(field, mode)))
                .collect();
            if !instance.is_dict() {
                fields.push((TRAINING_FIELD.to_owned(), mode.clone()));
            }
            Value::Instance(Arc::new(Instance {
                struct_name: instance.struct_name.clone(),
                params: instance.params.clone(),
                fields,
                fields_unknown: instance.fields_unknown,
            }))
        }
        Value::Layer(layer) => Value::Layer(Arc::new(Layer {
            kind: layer.kind.clone(),
            args: layer
                .args
                .iter()
                .map(|(name, arg)| (name.clone(), with_training(arg, mode)))
                .collect(),
        })),
        Value::List(items) => Value::List(items.iter().map(|v| with_training(v, mode)).collect()),
        Value::Tuple(items) => Value::Tuple(items.iter().map(|v| with_training(v, mode)).collect()),
        other => other.clone(),
    }
}

/// The mode `train(mode)` sets: `True` without an argument, the argument
/// where it is a known `bool`, unknown otherwise.
pub fn train_mode(given: Option<&Value>) -> Value {
    match given {
        None => Value::Bool(Formula::Const(true)),
        Some(Value::Bool(mode)) if mode.as_const().is_some() => Value::Bool(mode.clone()),
        Some(_) => Value::Unknown,
    }
}
