//! The Python builtins on numbers that the analysis computes
//! (`registry::INT`, ...; their arithmetic is in `numbers`), and
//! `a if c else b`.

use tensorfit_syntax::ast;

use super::numbers::{self, Rounding};
use super::Frame;
use crate::registry;
use crate::shapes::value::Value;

impl<'f, 'a> Frame<'f, 'a> {
    /// The value of a call of one of those builtins; `None` for any other
    /// callee.
    pub(super) fn number_builtin(&mut self, name: &str, args: &[ast::Arg]) -> Option<Value> {
        if name == registry::CONDITIONAL {
            return Some(self.conditional(args));
        }
        let known = [
            registry::INT,
            registry::FLOAT,
            registry::ROUND,
            registry::MIN,
            registry::MAX,
            registry::ABS,
            registry::CEIL,
            registry::FLOOR,
        ];
        if !known.contains(&name) {
            return None;
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
            _ => numbers::extreme(true, &values),
        })
    }

    /// `then if condition else otherwise`, passed as `(condition, then,
    /// otherwise)`: only the branch a decided condition selects runs (the
    /// other may be what the condition guards against); else both, each on
    /// its path, merged.
    fn conditional(&mut self, args: &[ast::Arg]) -> Value {
        let [condition, then, otherwise] = args else {
            return Value::Unknown;
        };
        let c = match self.expr(&condition.value) {
            Value::Bool(formula) => formula,
            _ => return Value::Unknown,
        };
        if let Some(holds) = c.as_const() {
            return self.expr(if holds { &then.value } else { &otherwise.value });
        }
        let before = self.guard.len();
        self.guard.push(c.clone());
        let a = self.expr(&then.value);
        self.guard.truncate(before);
        self.guard.push(tensorfit_solver::Formula::not(&c));
        let b = self.expr(&otherwise.value);
        self.guard.truncate(before);
        self.merge(&c, &a, &b)
    }
}
