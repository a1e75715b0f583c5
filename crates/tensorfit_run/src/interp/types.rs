//! Run-time checks of values against written types. A dimension name seen
//! for the first time binds (as a signature's generic parameter does); seen
//! again, it must match.

use tensorfit_syntax::ast::{self, Dim, TypeKind};

use super::{Frame, Interpreter};
use crate::error::{Failure, Outcome};
use crate::value::{dims_text, Value};

impl Interpreter<'_> {
    /// Checks `value` against `ty`. With `bind`, dimension names not yet in
    /// scope are defined in `frame` from the value's shape.
    pub(crate) fn check_type(
        &mut self,
        frame: &mut Frame,
        ty: &ast::Type,
        value: &Value,
        what: &str,
        bind: bool,
    ) -> Outcome<()> {
        let written = self.text(frame.file, ty.range);
        let mismatch = |value: &Value| {
            Failure::shape(format!(
                "{what} should be a `{written}`, but it is {}",
                value.describe()
            ))
        };
        match &ty.kind {
            TypeKind::Missing => Ok(()),
            TypeKind::Int | TypeKind::Number => matches!(value, Value::Int(_))
                .then_some(())
                .ok_or_else(|| mismatch(value)),
            TypeKind::Bool => matches!(value, Value::Bool(_))
                .then_some(())
                .ok_or_else(|| mismatch(value)),
            TypeKind::Float => matches!(value, Value::Int(_) | Value::Float(_))
                .then_some(())
                .ok_or_else(|| mismatch(value)),
            TypeKind::Shape => value.as_dims().map(|_| ()).ok_or_else(|| mismatch(value)),
            TypeKind::Tuple(types) => {
                let Value::Tuple(items) = value else {
                    return Err(mismatch(value));
                };
                if items.len() != types.len() {
                    return Err(mismatch(value));
                }
                for (i, (t, v)) in types.iter().zip(items.iter()).enumerate() {
                    self.check_type(frame, t, v, &format!("element {i} of {what}"), bind)?;
                }
                Ok(())
            }
            TypeKind::Named(name) => {
                let fits = match value {
                    Value::Instance(instance) => instance.struct_name == name.text,
                    Value::Layer(layer) => layer.kind_name() == name.text,
                    Value::Str(_) => name.text == "String" || name.text == "str",
                    Value::None => true,
                    _ => false,
                };
                fits.then_some(()).ok_or_else(|| mismatch(value))
            }
            TypeKind::Tensor { dims } => {
                let Some(tensor) = value.as_tensor() else {
                    return Err(mismatch(value));
                };
                let Some(dims) = dims else {
                    return Ok(());
                };
                let actual: Vec<i64> = tensor.shape().iter().map(|d| *d as i64).collect();
                self.check_dims(frame, dims, &actual, what, written, bind)
            }
        }
    }

    fn check_dims(
        &mut self,
        frame: &mut Frame,
        dims: &[Dim],
        actual: &[i64],
        what: &str,
        written: &str,
        bind: bool,
    ) -> Outcome<()> {
        let fixed = dims
            .iter()
            .filter(|d| !matches!(d, Dim::Segment { .. }))
            .count();
        let has_segment = fixed < dims.len();
        let rank_fits = if has_segment {
            actual.len() >= fixed
        } else {
            actual.len() == fixed
        };
        let shape_text = |actual: &[i64]| format!("Tensor{}", dims_text(actual));
        if !rank_fits {
            return Err(Failure::shape(format!(
                "{what} should be a `{written}`, but it is a {} (rank {} instead of {}{})",
                shape_text(actual),
                actual.len(),
                if has_segment { "at least " } else { "" },
                fixed
            )));
        }
        let segment_len = actual.len() - fixed;
        let mut position = 0;
        for dim in dims {
            match dim {
                Dim::Unknown(_) => position += 1,
                Dim::Segment { name, args, .. } => {
                    let part = actual[position..position + segment_len].to_vec();
                    position += segment_len;
                    let expected = match args {
                        None => match frame.lookup(&name.text).and_then(|s| s.value.clone()) {
                            Some(v) => v.as_dims(),
                            None => {
                                if bind {
                                    frame.define(
                                        &name.text,
                                        Some(Value::shape(part.clone())),
                                        false,
                                        None,
                                    );
                                }
                                continue;
                            }
                        },
                        Some(operands) => {
                            let shapes: Vec<Option<Vec<i64>>> = operands
                                .iter()
                                .map(|o| {
                                    frame
                                        .lookup(&o.text)
                                        .and_then(|s| s.value.as_ref())
                                        .and_then(Value::as_dims)
                                })
                                .collect();
                            match shapes.as_slice() {
                                [Some(a), Some(b)] => {
                                    crate::ops::elementwise::broadcast_dims(a, b).ok()
                                }
                                _ => None,
                            }
                        }
                    };
                    if let Some(expected) = expected {
                        if expected != part {
                            return Err(Failure::shape(format!(
                                "{what} should be a `{written}`, but it is a {}: `..{}` is {} here but {} before",
                                shape_text(actual),
                                name.text,
                                dims_text(&part),
                                dims_text(&expected)
                            )));
                        }
                    }
                }
                Dim::Expr(e) => {
                    let have = actual[position];
                    let i = position;
                    position += 1;
                    if let Some(name) = e.as_name() {
                        let known = frame.lookup(name).is_some()
                            || self.program.lookup(frame.file, name).is_some();
                        if !known {
                            if bind {
                                frame.define(name, Some(Value::Int(have)), false, None);
                            }
                            continue;
                        }
                    }
                    let want = self.int(frame, e)?;
                    if want != have {
                        let source = self.text(frame.file, e.range);
                        let named = if source == want.to_string() {
                            String::new()
                        } else {
                            format!(" = {want}")
                        };
                        return Err(Failure::shape(format!(
                            "{what} should be a `{written}`, but it is a {}: dimension {i} is {have}, not {source}{named}",
                            shape_text(actual)
                        )));
                    }
                }
            }
        }
        Ok(())
    }
}
