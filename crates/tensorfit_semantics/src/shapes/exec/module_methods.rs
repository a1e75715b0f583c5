//! `nn.Module`'s own methods that return the module itself
//! (`model = Net().to(device)`, `net.eval()`), and its `training` flag.
//!
//! Moving a module to a device or a dtype changes no shape: the value is
//! the receiver. `eval()` and `train(mode)` set the `training` flag of
//! the module and of every module it holds, which `forward` may read
//! (GoogLeNet returns its auxiliary outputs only while training). A module
//! is training from its construction on: an instance without the flag
//! reads `True` ([`TRAINING_FIELD`]), so only a module switched to
//! evaluation (or to a mode not known) carries the field, and only its
//! calls need summaries of their own.

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
        "train" => {
            let mode = match given.first() {
                None => Value::Bool(Formula::Const(true)),
                Some(arg) => match &arg.value {
                    Value::Bool(mode) if mode.as_const().is_some() => arg.value.clone(),
                    _ => Value::Unknown,
                },
            };
            with_training(receiver, &mode)
        }
        _ => receiver.clone(),
    }
}

/// The module with its `training` flag, and every module's it holds, set
/// to `mode` (`True` is what a module without the flag reads).
fn with_training(value: &Value, mode: &Value) -> Value {
    match value {
        Value::Instance(instance) => {
            let mut fields: Vec<(String, Value)> = instance
                .fields
                .iter()
                .filter(|(name, _)| name != TRAINING_FIELD)
                .map(|(name, field)| (name.clone(), with_training(field, mode)))
                .collect();
            let training = matches!(mode, Value::Bool(Formula::Const(true)));
            if !instance.is_dict() && !training {
                fields.push((TRAINING_FIELD.to_owned(), mode.clone()));
            }
            Value::Instance(Arc::new(Instance {
                struct_name: instance.struct_name.clone(),
                params: instance.params.clone(),
                fields,
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

/// What `module.training` reads where the module has no such field: a
/// module trains from its construction on.
pub fn default_member(instance: &Instance, name: &str) -> Option<Value> {
    (name == TRAINING_FIELD && !instance.is_dict()).then_some(Value::Bool(Formula::Const(true)))
}
