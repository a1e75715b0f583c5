//! What a value is as Python's introspection asks it: `callable(v)`,
//! `inspect.isfunction(v)` and `inspect.isclass(v)`. A function of the
//! file (a `def`, a lambda, a nested function) is a function; a class of
//! the file and a layer class are classes; a partial, a layer and a module
//! instance are callable and neither; numbers, strings, `None`, lists,
//! tuples and tensors are none of them. A PyTorch operation may be a
//! Python function or a builtin one (`F.relu` is, `torch.relu` is not):
//! undecided, as is anything not known.

use tensorfit_solver::Formula;

use super::Frame;
use crate::shapes::value::Value;

/// What a value is, for the three questions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Function,
    Class,
    /// Callable, but neither a function nor a class.
    OtherCallable,
    NotCallable,
}

/// The question asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Question {
    Callable,
    Function,
    Class,
}

impl Frame<'_, '_> {
    /// The answer to `question` about `value`, where it is known.
    pub(super) fn introspect(&self, question: Question, value: &Value) -> Value {
        let Some(kind) = self.kind_of(value) else {
            return Value::Unknown;
        };
        let answer = match question {
            Question::Callable => kind != Kind::NotCallable,
            Question::Function => kind == Kind::Function,
            Question::Class => kind == Kind::Class,
        };
        Value::Bool(Formula::Const(answer))
    }

    fn kind_of(&self, value: &Value) -> Option<Kind> {
        let program = &self.analysis.program;
        Some(match value {
            Value::Closure(_) => Kind::Function,
            Value::Callable(name) => {
                let operation = crate::registry::referenced_operation(name)
                    .or_else(|| program.names_prelude_op(name).then_some(name.as_str()));
                match operation {
                    Some(op) => match crate::registry::operation(op) {
                        Some(op) if op.is_layer() => Kind::Class,
                        _ => return None,
                    },
                    None if program.function(name).is_some() => Kind::Function,
                    None if program.struct_def(name).is_some() => Kind::Class,
                    None => return None,
                }
            }
            Value::Partial(_) | Value::Layer(_) => Kind::OtherCallable,
            Value::Instance(instance) if instance.is_dict() => Kind::NotCallable,
            Value::Instance(instance) => {
                let calls = ["forward", "__call__"];
                match calls.iter().any(|m| self.method_of(instance, m).is_some()) {
                    true => Kind::OtherCallable,
                    false => return None,
                }
            }
            // An unannotated parameter's placeholder may be anything.
            Value::Tensor(shape) if shape.dims().is_none() => return None,
            Value::Int(_)
            | Value::Bool(_)
            | Value::Float(_)
            | Value::Str(_)
            | Value::None
            | Value::Tensor(_)
            | Value::Elements(_)
            | Value::Shape(_)
            | Value::Tuple(_)
            | Value::List(_)
            | Value::Member(_) => Kind::NotCallable,
            Value::Unknown => return None,
        })
    }
}
