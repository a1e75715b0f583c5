//! Expressions.

use std::rc::Rc;

use tensorfit_syntax::ast::{BinaryOp, CompareOp, Expr, ExprKind, FieldName, UnaryOp};

use super::{Frame, Interpreter};
use crate::error::{Failure, Outcome};
use crate::ops;
use crate::ops::subscript::{index_tensor, slice_sequence, IndexItem};
use crate::program::ItemRef;
use crate::value::{dims_text, Value};

impl Interpreter<'_> {
    pub(crate) fn eval(&mut self, frame: &mut Frame, e: &Expr) -> Outcome<Value> {
        let location = self.location(frame, e.range);
        let value = self.eval_kind(frame, e).map_err(|f| f.at(location))?;
        self.record_expression(frame, e.range, &value);
        Ok(value)
    }

    fn eval_kind(&mut self, frame: &mut Frame, e: &Expr) -> Outcome<Value> {
        match &e.kind {
            ExprKind::Name(name) => self.read_name(frame, name),
            ExprKind::SelfValue => frame
                .self_value
                .clone()
                .ok_or_else(|| Failure::program("`self` is used outside a method")),
            ExprKind::Int(i) => Ok(Value::Int(*i)),
            ExprKind::Float(text) => text
                .replace('_', "")
                .parse::<f64>()
                .map(Value::Float)
                .map_err(|_| Failure::program(format!("`{text}` is not a number"))),
            ExprKind::Bool(b) => Ok(Value::Bool(*b)),
            ExprKind::Str(s) => Ok(Value::Str(s.as_str().into())),
            ExprKind::Hole => Err(Failure::program(
                "a hole `__` has no value at run time: `tensorfit check` says which value fits; write it in",
            )),
            ExprKind::List(items) => {
                let values = items
                    .iter()
                    .map(|item| self.eval(frame, item))
                    .collect::<Outcome<Vec<_>>>()?;
                if values.iter().all(|v| matches!(v, Value::Int(_))) {
                    Ok(Value::shape(values.iter().filter_map(Value::as_int).collect()))
                } else {
                    Ok(Value::List(Rc::new(values)))
                }
            }
            ExprKind::UnknownDim => Err(Failure::program("`?` is only allowed in a shape pattern")),
            ExprKind::Tuple(items) => {
                let values = items
                    .iter()
                    .map(|item| self.eval(frame, item))
                    .collect::<Outcome<Vec<_>>>()?;
                Ok(Value::Tuple(Rc::new(values)))
            }
            ExprKind::Call { callee, args } => self.eval_call(frame, e, callee, args),
            ExprKind::Subscript { value, indices } => {
                let base = self.eval(frame, value)?;
                let indices = indices
                    .iter()
                    .map(|i| self.index_item(frame, i))
                    .collect::<Outcome<Vec<_>>>()?;
                self.subscript(frame, value, &base, &indices)
            }
            ExprKind::Slice { .. } | ExprKind::Ellipsis | ExprKind::NewAxis => Err(
                Failure::program("slices, `...` and `None` are only allowed between the brackets of a subscript"),
            ),
            ExprKind::Field { value, field } => {
                let base = self.eval(frame, value)?;
                self.field(frame, value, &base, field)
            }
            ExprKind::Unary { op, operand } => {
                let v = self.eval(frame, operand)?;
                match (op, v) {
                    (UnaryOp::Neg, Value::Int(i)) => i.checked_neg().map(Value::Int).ok_or_else(|| {
                        Failure::data(format!("the Int arithmetic `-({i})` overflows"))
                    }),
                    (UnaryOp::Neg, Value::Float(f)) => Ok(Value::Float(-f)),
                    (UnaryOp::Neg, Value::Tensor(t)) => Ok(Value::tensor(t.mapv(|x| -x))),
                    (UnaryOp::Not, Value::Bool(b)) => Ok(Value::Bool(!b)),
                    (UnaryOp::Not, Value::Tensor(t)) => {
                        Ok(Value::tensor(t.mapv(|x| f32::from(u8::from(x == 0.0)))))
                    }
                    (op, v) => Err(Failure::shape(format!(
                        "`{}` cannot be applied to {}",
                        if *op == UnaryOp::Neg { "-" } else { "!" },
                        v.describe()
                    ))),
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let left = self.eval(frame, lhs)?;
                match op {
                    BinaryOp::And | BinaryOp::Or => {
                        let Value::Bool(l) = left else {
                            return Err(Failure::shape(format!(
                                "`{}` needs Bools, but `{}` is {}",
                                op.symbol(),
                                self.text(frame.file, lhs.range),
                                left.describe()
                            )));
                        };
                        // Short-circuit, as the analysis's path conditions do.
                        if (*op == BinaryOp::And) != l {
                            return Ok(Value::Bool(l));
                        }
                        match self.eval(frame, rhs)? {
                            Value::Bool(r) => Ok(Value::Bool(r)),
                            other => Err(Failure::shape(format!(
                                "`{}` needs Bools, but `{}` is {}",
                                op.symbol(),
                                self.text(frame.file, rhs.range),
                                other.describe()
                            ))),
                        }
                    }
                    _ => {
                        let right = self.eval(frame, rhs)?;
                        self.arithmetic(*op, &left, &right)
                    }
                }
            }
            ExprKind::Compare { operands, ops } => self.compare(frame, operands, ops),
            ExprKind::ShapeAssert {
                value, pattern, ..
            } => {
                let v = self.eval(frame, value)?;
                self.shape_assert(frame, value, &v, pattern)?;
                Ok(v)
            }
            ExprKind::Reduction { .. } => self.reduction(frame, e),
            ExprKind::Missing => Err(Failure::program("the program is incomplete here")),
            ExprKind::Record(_) => Err(Failure::program(
                "a Python dict is checked, never run, by tensorfit",
            )),
            ExprKind::Unknown(why) => Err(Failure::program(format!("cannot run a value tensorfit does not model: {why}"))),
            ExprKind::Closure(_) => Err(Failure::program(
                "a Python function made by a `lambda` or `def` is checked, never run, by tensorfit",
            )),
            // Only the Python front end makes one, and the interpreter runs
            // the Tensor language.
            ExprKind::Builtin(builtin) => Err(Failure::program(format!(
                "cannot run `{}`: the interpreter runs the Tensor language",
                builtin.name()
            ))),
        }
    }

    pub(crate) fn read_name(&mut self, frame: &Frame, name: &str) -> Outcome<Value> {
        if let Some(slot) = frame.lookup(name) {
            return slot.value.clone().ok_or_else(|| {
                Failure::program(format!("`{name}` is read before it is given a value"))
            });
        }
        match self.program.lookup(frame.file, name) {
            Some(ItemRef::Const { file, item }) => self.constant(file, item),
            Some(ItemRef::Function { .. } | ItemRef::Struct(_)) => Err(Failure::program(format!(
                "`{name}` is a function or a struct: call it"
            ))),
            None if name == "None" => Ok(Value::None),
            None => Err(Failure::program(format!("`{name}` is not declared"))),
        }
    }

    /// `+ - * / % @` on any two values.
    pub(crate) fn arithmetic(
        &mut self,
        op: BinaryOp,
        left: &Value,
        right: &Value,
    ) -> Outcome<Value> {
        use Value::{Float, Int};
        match (left, right) {
            (Int(a), Int(b)) => int_arithmetic(op, *a, *b).map(Int),
            (Int(_) | Float(_), Int(_) | Float(_)) => {
                let (a, b) = (
                    left.as_float().unwrap_or(0.0),
                    right.as_float().unwrap_or(0.0),
                );
                Ok(Float(match op {
                    BinaryOp::Add => a + b,
                    BinaryOp::Sub => a - b,
                    BinaryOp::Mul => a * b,
                    BinaryOp::Div | BinaryOp::TrueDiv => a / b,
                    BinaryOp::FloorDiv => (a / b).floor(),
                    BinaryOp::Rem => a - b * (a / b).floor(),
                    _ => {
                        return Err(Failure::shape(format!(
                            "`{}` needs tensors, not numbers",
                            op.symbol()
                        )))
                    }
                }))
            }
            _ => {
                let (Some(a), Some(b)) = (left.as_tensor(), right.as_tensor()) else {
                    return Err(Failure::shape(format!(
                        "`{}` cannot combine {} and {}",
                        op.symbol(),
                        left.describe(),
                        right.describe()
                    )));
                };
                let name = match op {
                    BinaryOp::Add => "add",
                    BinaryOp::Sub => "sub",
                    BinaryOp::Mul => "mul",
                    BinaryOp::Div | BinaryOp::TrueDiv => "div",
                    BinaryOp::FloorDiv => "floor_divide",
                    BinaryOp::Rem => "remainder",
                    BinaryOp::MatMul => {
                        return ops::linalg::matmul(&self.ops, &a, &b).map(Value::tensor)
                    }
                    BinaryOp::And | BinaryOp::Or => unreachable!("logic is evaluated apart"),
                };
                ops::elementwise::binary(&mut self.ops, name, &a, &b).map(Value::tensor)
            }
        }
    }

    fn compare(
        &mut self,
        frame: &mut Frame,
        operands: &[Expr],
        ops_: &[CompareOp],
    ) -> Outcome<Value> {
        let values = operands
            .iter()
            .map(|o| self.eval(frame, o))
            .collect::<Outcome<Vec<_>>>()?;
        // One comparison with a tensor side: element-wise (docs/language.md).
        if ops_.len() == 1 && values.iter().any(|v| matches!(v, Value::Tensor(_))) {
            let (Some(a), Some(b)) = (values[0].as_tensor(), values[1].as_tensor()) else {
                return Err(Failure::shape(format!(
                    "cannot compare {} with {}",
                    values[0].describe(),
                    values[1].describe()
                )));
            };
            let name = ops_[0].prelude_name();
            return ops::elementwise::binary(&mut self.ops, name, &a, &b).map(Value::tensor);
        }
        for (i, op) in ops_.iter().enumerate() {
            if !compare_values(*op, &values[i], &values[i + 1])? {
                return Ok(Value::Bool(false));
            }
        }
        Ok(Value::Bool(true))
    }

    fn shape_assert(
        &mut self,
        frame: &mut Frame,
        value: &Expr,
        v: &Value,
        pattern: &[Expr],
    ) -> Outcome<()> {
        let actual: Vec<i64> = match v {
            Value::Tensor(t) => t.shape().iter().map(|d| *d as i64).collect(),
            other => {
                return Err(Failure::shape(format!(
                    "`|->` needs a tensor, but `{}` is {}",
                    self.text(frame.file, value.range),
                    other.describe()
                )))
            }
        };
        let mut expected = Vec::new();
        for p in pattern {
            expected.push(match p.kind {
                ExprKind::UnknownDim => None,
                _ => Some(self.int(frame, p)?),
            });
        }
        let fits = actual.len() == expected.len()
            && actual
                .iter()
                .zip(&expected)
                .all(|(a, e)| e.is_none_or(|e| e == *a));
        if fits {
            return Ok(());
        }
        let written: Vec<&str> = pattern
            .iter()
            .map(|p| self.text(frame.file, p.range))
            .collect();
        let shown: Vec<String> = expected
            .iter()
            .map(|e| e.map_or("?".to_owned(), |e| e.to_string()))
            .collect();
        let values = if written.iter().zip(&shown).any(|(w, s)| w != s) {
            format!(", that is [{}]", shown.join(", "))
        } else {
            String::new()
        };
        Err(Failure::shape(format!(
            "`{}` has shape {} but is asserted to be [{}]{values}",
            self.text(frame.file, value.range),
            dims_text(&actual),
            written.join(", ")
        )))
    }

    /// One index of a subscript: an `Int`, a slice, `...` or `None`.
    fn index_item(&mut self, frame: &mut Frame, index: &Expr) -> Outcome<IndexItem> {
        match &index.kind {
            ExprKind::Ellipsis => Ok(IndexItem::Ellipsis),
            ExprKind::NewAxis => Ok(IndexItem::NewAxis),
            ExprKind::Slice { start, stop, step } => {
                let mut bound = |part: &Option<Box<Expr>>| -> Outcome<Option<i64>> {
                    let Some(part) = part else {
                        return Ok(None);
                    };
                    match self.eval(frame, part)? {
                        Value::Int(i) => Ok(Some(i)),
                        Value::None => Ok(None),
                        other => Err(Failure::shape(format!(
                            "a slice bound must be an Int, but `{}` is {}",
                            self.text(frame.file, part.range),
                            other.describe()
                        ))),
                    }
                };
                Ok(IndexItem::Slice {
                    start: bound(start)?,
                    stop: bound(stop)?,
                    step: bound(step)?,
                })
            }
            _ => match self.eval(frame, index)? {
                Value::Int(i) => Ok(IndexItem::At(i)),
                other => Err(Failure::program(format!(
                    "an index must be an Int, a slice, `...` or `None`, but `{}` is {} (indexing by tensors is not modelled)",
                    self.text(frame.file, index.range),
                    other.describe()
                ))),
            },
        }
    }

    fn subscript(
        &mut self,
        frame: &Frame,
        value: &Expr,
        base: &Value,
        indices: &[IndexItem],
    ) -> Outcome<Value> {
        let what = self.text(frame.file, value.range);
        let position = |i: i64, len: usize| -> Outcome<usize> {
            normalize_index(i, len).ok_or_else(|| {
                Failure::shape(format!(
                    "index {i} is out of range for `{what}`, which has {len} items"
                ))
            })
        };
        match (base, indices) {
            (Value::Shape(dims), [IndexItem::At(i)]) => {
                Ok(Value::Int(dims[position(*i, dims.len())?]))
            }
            (Value::Tuple(items) | Value::List(items), [IndexItem::At(i)]) => {
                Ok(items[position(*i, items.len())?].clone())
            }
            (Value::Shape(dims), [IndexItem::Slice { start, stop, step }]) => {
                Ok(Value::shape(slice_sequence(dims, *start, *stop, *step)?))
            }
            (Value::List(items), [IndexItem::Slice { start, stop, step }]) => Ok(Value::List(
                Rc::new(slice_sequence(items, *start, *stop, *step)?),
            )),
            (Value::Tuple(items), [IndexItem::Slice { start, stop, step }]) => Ok(Value::Tuple(
                Rc::new(slice_sequence(items, *start, *stop, *step)?),
            )),
            (Value::Shape(_) | Value::Tuple(_) | Value::List(_), _) => Err(Failure::shape(
                format!("`{what}` is indexed by one Int or one slice"),
            )),
            (Value::Tensor(t), _) => {
                let selected = index_tensor(t, indices, what)?;
                Ok(if selected.ndim() == 0 {
                    Value::Float(f64::from(selected.first().copied().unwrap_or_default()))
                } else {
                    Value::tensor(selected)
                })
            }
            (other, _) => Err(Failure::shape(format!(
                "`{what}` is {} and cannot be indexed",
                other.describe()
            ))),
        }
    }

    fn field(
        &mut self,
        frame: &Frame,
        value: &Expr,
        base: &Value,
        field: &FieldName,
    ) -> Outcome<Value> {
        let what = self.text(frame.file, value.range);
        match field {
            FieldName::Index(i, _) => match base {
                Value::Tuple(items) => items.get(*i as usize).cloned().ok_or_else(|| {
                    Failure::shape(format!(
                        "`{what}` has {} elements, not {}",
                        items.len(),
                        i + 1
                    ))
                }),
                other => Err(Failure::shape(format!(
                    "`{what}` is {}, not a tuple",
                    other.describe()
                ))),
            },
            FieldName::Named(name) => match (base, name.text.as_str()) {
                (Value::Tensor(t), "shape") => {
                    Ok(Value::shape(t.shape().iter().map(|d| *d as i64).collect()))
                }
                (Value::Tensor(t), "rank") => Ok(Value::Int(t.ndim() as i64)),
                (Value::Tensor(t), "T") => Ok(Value::tensor(t.t().to_owned())),
                (Value::Shape(s), "rank" | "len") => Ok(Value::Int(s.len() as i64)),
                (Value::Instance(instance), field) => {
                    instance.member(field).cloned().ok_or_else(|| {
                        Failure::program(format!(
                            "`{}` has no field `{field}`",
                            instance.struct_name
                        ))
                    })
                }
                (Value::Layer(layer), field) => layer.attribute(field).ok_or_else(|| {
                    Failure::program(format!(
                        "a {} layer has no field `{field}`",
                        layer.kind_name()
                    ))
                }),
                (other, field) => Err(Failure::shape(format!(
                    "`{what}` is {} and has no field `{field}`",
                    other.describe()
                ))),
            },
        }
    }
}

fn int_arithmetic(op: BinaryOp, a: i64, b: i64) -> Outcome<i64> {
    let overflow = || {
        Failure::data(format!(
            "the Int arithmetic `{a} {} {b}` overflows",
            op.symbol()
        ))
    };
    match op {
        BinaryOp::Add => a.checked_add(b).ok_or_else(overflow),
        BinaryOp::Sub => a.checked_sub(b).ok_or_else(overflow),
        BinaryOp::Mul => a.checked_mul(b).ok_or_else(overflow),
        BinaryOp::Div | BinaryOp::FloorDiv | BinaryOp::Rem if b == 0 => Err(Failure::data(
            format!("division by zero: `{a} {} {b}`", op.symbol()),
        )),
        // `/` floors and `%` takes the sign of the divisor (LANGUAGE.md §1).
        // Every Int divides by -1 without a remainder; only `i64::MIN / -1`
        // leaves the range.
        BinaryOp::Div | BinaryOp::FloorDiv if b == -1 => a.checked_neg().ok_or_else(overflow),
        BinaryOp::Rem if b == -1 => Ok(0),
        BinaryOp::Div | BinaryOp::FloorDiv => {
            Ok(a.div_euclid(b) - i64::from(b < 0 && a.rem_euclid(b) != 0))
        }
        BinaryOp::Rem => {
            let r = a.rem_euclid(b);
            Ok(if b < 0 && r != 0 { r + b } else { r })
        }
        BinaryOp::MatMul => Err(Failure::shape("`@` needs tensors, not Ints")),
        // Only the Python front end makes it; the interpreter runs the
        // Tensor language.
        BinaryOp::TrueDiv => Err(Failure::program(
            "Python's true division `/` is not part of the Tensor language",
        )),
        BinaryOp::And | BinaryOp::Or => unreachable!("logic is evaluated apart"),
    }
}

fn compare_values(op: CompareOp, a: &Value, b: &Value) -> Outcome<bool> {
    use std::cmp::Ordering;
    if matches!(op, CompareOp::Is | CompareOp::IsNot) {
        // Identity is only ever asked of `None` by the front ends.
        let same = matches!((a, b), (Value::None, Value::None));
        return Ok(same == (op == CompareOp::Is));
    }
    let ordering = match (a, b) {
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::Int(_) | Value::Float(_), Value::Int(_) | Value::Float(_)) => {
            let (x, y) = (a.as_float().unwrap_or(0.0), b.as_float().unwrap_or(0.0));
            x.partial_cmp(&y).unwrap_or(Ordering::Less)
        }
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Str(x), Value::Str(y)) => x.cmp(y),
        (Value::None, Value::None) => Ordering::Equal,
        _ => match (a.as_dims(), b.as_dims()) {
            (Some(x), Some(y)) if matches!(op, CompareOp::Eq | CompareOp::Ne) => {
                return Ok((x == y) == (op == CompareOp::Eq))
            }
            _ if matches!(op, CompareOp::Eq | CompareOp::Ne) => {
                // None against a value: different.
                return Ok(op == CompareOp::Ne);
            }
            _ => {
                return Err(Failure::shape(format!(
                    "cannot order {} and {}",
                    a.describe(),
                    b.describe()
                )))
            }
        },
    };
    Ok(match op {
        CompareOp::Eq => ordering.is_eq(),
        CompareOp::Ne => ordering.is_ne(),
        CompareOp::Lt => ordering.is_lt(),
        CompareOp::Le => ordering.is_le(),
        CompareOp::Gt => ordering.is_gt(),
        CompareOp::Ge => ordering.is_ge(),
        CompareOp::Is | CompareOp::IsNot => unreachable!("identity is decided above"),
    })
}

/// `i` counted from the end when negative.
pub(crate) fn normalize_index(i: i64, len: usize) -> Option<usize> {
    let len = len as i64;
    let at = if i < 0 { i + len } else { i };
    (0..len).contains(&at).then_some(at as usize)
}
