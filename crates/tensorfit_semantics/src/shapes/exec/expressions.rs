//! Expressions: names, literals, arithmetic on `Int`s and on tensors
//! (broadcasting), comparisons, indexing and fields, `|->` claims.

use tensorfit_base::TextRange;
use tensorfit_solver::{Formula, Term};
use tensorfit_syntax::ast::{self, BinaryOp, CompareOp, ExprKind, FieldName, UnaryOp};

use super::comparisons::compare;
use super::{identity, Frame};
use crate::shapes::describe::describe;
use crate::shapes::fact::{Explain, FactKind, ShapeClaim};
use crate::shapes::limits::{LimitKind, MAX_CONTAINER_ITEMS};
use crate::shapes::rules::{self, Args};
use crate::shapes::value::{Instance, Shape, Value};

impl<'f, 'a> Frame<'f, 'a> {
    pub fn condition(&mut self, expr: &ast::Expr) -> Formula {
        match self.expr(expr) {
            Value::Bool(f) => f,
            _ => Formula::var(self.analysis.vars.fresh()),
        }
    }

    pub fn int(&mut self, expr: &ast::Expr) -> Term {
        match self.expr(expr) {
            Value::Int(t) => t,
            _ => self.fresh_int(),
        }
    }

    pub fn expr(&mut self, expr: &ast::Expr) -> Value {
        if !self.step(1) {
            return Value::Unknown;
        }
        let value = self.expr_inner(expr);
        let value = if value.too_large() {
            // Dimensions that double at each step (broadcasting shapes that
            // depend on unknowns) would swamp memory and the solver.
            self.analysis.hit(LimitKind::TermSize);
            Value::Unknown
        } else {
            value
        };
        let value = self.refine(value);
        if self.constructing == 0 {
            self.push_record(None, expr.range, &value);
        }
        value
    }

    pub(super) fn expr_inner(&mut self, expr: &ast::Expr) -> Value {
        match &expr.kind {
            ExprKind::Name(name) => self.name(name),
            ExprKind::SelfValue => self.self_value.clone().unwrap_or(Value::Unknown),
            ExprKind::Int(v) => Value::Int(Term::int(*v)),
            // Python's floats have their values (`width_mult = 0.75`
            // decides sizes); the Tensor language's never decide a shape.
            ExprKind::Float(text) => Value::Float(
                self.analysis
                    .semantics
                    .floats_have_values
                    .then(|| super::numbers::literal(text))
                    .flatten(),
            ),
            ExprKind::Bool(v) => Value::Bool(Formula::truth(*v)),
            ExprKind::Str(s) => Value::Str(s.clone()),
            ExprKind::Hole => Value::Int(Term::var(self.analysis.hole(expr.range))),
            ExprKind::UnknownDim
            | ExprKind::Missing
            | ExprKind::Unknown(_)
            // Only ever a callee (`Frame::call_builtin`).
            | ExprKind::Builtin(_)
            | ExprKind::Reduction { .. } => Value::Unknown,
            ExprKind::List(items) => Value::List(items.iter().map(|i| self.expr(i)).collect()),
            ExprKind::Tuple(items) => Value::Tuple(items.iter().map(|i| self.expr(i)).collect()),
            ExprKind::Record(fields) => Instance::dict(
                fields
                    .iter()
                    .filter_map(|f| Some((f.name.as_ref()?.text.clone(), self.expr(&f.value))))
                    .collect(),
            ),
            ExprKind::Call { callee, args } => self.call(expr, callee, args),
            ExprKind::Closure(closure) => self.make_closure(closure),
            ExprKind::Subscript { value, indices } => {
                let v = self.expr(value);
                self.subscript(&v, indices, self.describe(value), expr.range)
            }
            // Only inside a subscript, which reads them itself.
            ExprKind::Slice { .. } | ExprKind::Ellipsis | ExprKind::NewAxis => Value::Unknown,
            ExprKind::Field { value, field } => {
                let v = self.expr(value);
                match field {
                    FieldName::Index(i, _) => match v {
                        Value::Tuple(items) | Value::List(items) => {
                            items.get(*i as usize).cloned().unwrap_or(Value::Unknown)
                        }
                        _ => Value::Unknown,
                    },
                    FieldName::Named(name) => self.field(&v, &name.text),
                }
            }
            ExprKind::Unary { op, operand } => {
                let v = self.expr(operand).without_elements();
                match (op, v) {
                    (UnaryOp::Neg, Value::Int(t)) => Value::Int(Term::neg(&t)),
                    (UnaryOp::Neg, Value::Float(x)) => Value::Float(x.map(|x| -x)),
                    (UnaryOp::Neg, v @ Value::Tensor(_)) => v,
                    (UnaryOp::Not, v) => match self.truthiness(&v) {
                        Some(f) => Value::Bool(Formula::not(&f)),
                        None => Value::Unknown,
                    },
                    _ => Value::Unknown,
                }
            }
            ExprKind::Binary { op, lhs, rhs } => self.binary(expr, *op, lhs, rhs),
            ExprKind::Compare { operands, ops } => {
                let values: Vec<Value> = operands
                    .iter()
                    .map(|o| self.expr(o).without_elements())
                    .collect();
                // A comparison with a value nothing is known of is not
                // known either: the paths it decides are opaque (see `if`).
                if values.iter().any(|v| matches!(v, Value::Unknown)) {
                    return Value::Unknown;
                }
                if let ([op @ (CompareOp::Is | CompareOp::IsNot)], [a, b]) =
                    (ops.as_slice(), values.as_slice())
                {
                    return match identity::identical(a, b) {
                        Some(same) if *op == CompareOp::Is => Value::Bool(same),
                        Some(same) => Value::Bool(Formula::not(&same)),
                        None => Value::Unknown,
                    };
                }
                if let ([op], [a, b]) = (ops.as_slice(), values.as_slice()) {
                    if matches!(a, Value::Tensor(_)) || matches!(b, Value::Tensor(_)) {
                        // PyTorch's element-wise comparison: a boolean tensor.
                        let bound = vec![
                            ("input".to_owned(), a.clone(), self.describe(&operands[0])),
                            ("other".to_owned(), b.clone(), self.describe(&operands[1])),
                        ];
                        return self.elementwise_comparison(*op, bound, expr.range);
                    }
                }
                let mut parts = Vec::new();
                for (i, op) in ops.iter().enumerate() {
                    if self.orders_a_fraction(*op, &values[i], &values[i + 1]) {
                        // Over the integers `0 < p < 1` never holds, for a
                        // float it may: undecided, and decided at a call
                        // that passes known numbers (`numbers_decide`).
                        self.numbers_decide = true;
                        return Value::Bool(self.opaque_condition());
                    }
                    match compare(*op, &values[i], &values[i + 1]) {
                        Some(f) => parts.push(f),
                        // `src.shape != dst.shape` of tensors of unknown
                        // rank: a path it decides is not known to be taken
                        // (a guard on it, nested or not, binds no caller).
                        None => return Value::Bool(self.opaque_condition()),
                    }
                }
                Value::Bool(Formula::and(parts))
            }
            ExprKind::ShapeAssert { value, pattern, .. } => {
                let v = self.expr(value);
                self.shape_assertion(&v, self.describe(value), pattern, expr.range);
                v
            }
        }
    }

    /// `a == b` (and the other comparisons) with a tensor operand, as the
    /// prelude's `eq` (`ne`, `lt`, ...).
    pub(super) fn elementwise_comparison(
        &mut self,
        op: CompareOp,
        bound: Vec<(String, Value, String)>,
        range: TextRange,
    ) -> Value {
        self.apply_or_defer(op.prelude_name(), bound, range)
    }

    /// A rank-dependent prelude rule applied to operands that are not a
    /// call's arguments (`a @ b`, `a == b`): kept for each call while an
    /// operand's rank is unknown, as calls of those operations are.
    pub(super) fn apply_or_defer(
        &mut self,
        name: &str,
        bound: Vec<(String, Value, String)>,
        range: TextRange,
    ) -> Value {
        if self.has_opaque_tensor(&bound) {
            return self.defer(name, bound, range);
        }
        rules::apply(self, name, &Args::new(bound), range).unwrap_or(Value::Unknown)
    }

    pub(super) fn name(&mut self, name: &str) -> Value {
        if let Some(value) = self.value_of(name) {
            return value;
        }
        let program = &self.analysis.program;
        if name == "None" {
            Value::None
        } else if program.struct_def(name).is_some()
            || program.function(name).is_some()
            || program.prelude_op(name).is_some()
            || crate::registry::referenced_operation(name)
                .is_some_and(|op| program.prelude_op(op).is_some())
        {
            // Named as a value (`block=Bottleneck`,
            // `norm_layer=nn.BatchNorm2d`): called later.
            Value::Callable(name.to_owned())
        } else {
            Value::Unknown
        }
    }

    /// The value of a name in scope or of a constant, refined.
    pub fn value_of(&mut self, name: &str) -> Option<Value> {
        if let Some(slot) = self.lookup(name) {
            let value = slot.value.clone();
            let value = match self.keeps_items {
                true => value,
                false => value.without_elements(),
            };
            return Some(self.refine(value));
        }
        let constant = self.analysis.program.constant(name)?;
        // A constant defined through itself (`const n = n + 1`, often a
        // half-typed line) has no value; evaluating it would not end.
        if self.evaluating_constants.iter().any(|c| c == name) {
            return Some(Value::Unknown);
        }
        self.evaluating_constants.push(name.to_owned());
        let value = self.expr(&constant.value.clone());
        self.evaluating_constants.pop();
        Some(value)
    }

    pub(super) fn field(&mut self, value: &Value, name: &str) -> Value {
        if let Value::Elements(_) = value {
            return self.field(&value.clone().without_elements(), name);
        }
        if matches!((value, name), (Value::Tensor(_), "shape" | "rank")) {
            self.shape_reads += 1;
        }
        match (value, name) {
            (Value::Tensor(shape), "shape") => Value::Shape(shape.clone()),
            (Value::Tensor(shape), "rank") => Value::Int(shape.rank()),
            (Value::Instance(instance), _) => match instance.member(name) {
                Some(member) => member.clone(),
                // `nn.Module._modules`.
                None if name == "_modules" && !instance.is_dict() => {
                    let instance = instance.clone();
                    self.modules_dict(&instance)
                }
                None => Value::Unknown,
            },
            // A layer of an `nn.Sequential` by its name (`features.conv0`).
            (Value::Layer(layer), _) => layer.named_layer(name).cloned().unwrap_or(Value::Unknown),
            (Value::Member(member), _) => super::enumerations::member_attribute(member, name),
            (Value::Callable(class), _) if self.enumeration(class).is_some() => {
                let class = class.clone();
                self.enum_member(&class, name)
            }
            // A class attribute read on the class (`block.expansion`).
            (Value::Callable(class), _) => {
                let attribute = self
                    .analysis
                    .program
                    .struct_def(class)
                    .and_then(|(def, _)| def.class_fields.iter().find(|f| f.name.text == name))
                    .map(|field| field.value.clone());
                match attribute {
                    Some(value) => self.default_value(&value),
                    None => Value::Unknown,
                }
            }
            _ => Value::Unknown,
        }
    }

    pub(super) fn binary(
        &mut self,
        expr: &ast::Expr,
        op: BinaryOp,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
    ) -> Value {
        let a = self.expr(lhs);
        // `a and b`, `a or b` where `a` decides: Python's value is `a`, or
        // `b` (not evaluated otherwise: `self.memory_efficient and
        // self.any_requires_grad(features)`).
        if matches!(op, BinaryOp::And | BinaryOp::Or)
            && self.analysis.semantics.and_or_short_circuit
        {
            if let Some(truth) = self.truthiness(&a).and_then(|t| t.as_const()) {
                return match (op, truth) {
                    (BinaryOp::And, false) | (BinaryOp::Or, true) => a,
                    _ => self.expr(rhs),
                };
            }
        }
        let b = self.expr(rhs);
        // A member of an `IntEnum` or `str` enumeration computes as the
        // `int` or `str` it is (`Size.BIG * 2`, `prefix + Mode.SAME`).
        let mixed_in = |v: Value| match &v {
            Value::Member(member) => member.mixed_in().cloned().unwrap_or(Value::Unknown),
            _ => v,
        };
        let (a, b) = (mixed_in(a), mixed_in(b));
        if let Some(items) = self.arithmetic_items(op, &a, &b) {
            return Value::Elements(std::sync::Arc::new(items));
        }
        let (a, b) = (a.without_elements(), b.without_elements());
        match (op, &a, &b) {
            (BinaryOp::And, Value::Bool(x), Value::Bool(y)) => {
                Value::Bool(Formula::and([x.clone(), y.clone()]))
            }
            (BinaryOp::Or, Value::Bool(x), Value::Bool(y)) => {
                Value::Bool(Formula::or([x.clone(), y.clone()]))
            }
            // Python's `7 / 2` of known ints is the float 3.5 (a symbolic
            // quotient stays the Tensor language's, see docs/python.md).
            (BinaryOp::TrueDiv, Value::Int(x), Value::Int(y))
                if self.known(x).as_const().is_some()
                    && self.known(y).as_const().is_some_and(|d| d != 0) =>
            {
                let (x, y) = (self.known(x).as_const(), self.known(y).as_const());
                let (Some(x), Some(y)) = (x, y) else {
                    return Value::Unknown;
                };
                Value::Float(Some(x as f64 / y as f64))
            }
            // A symbolic quotient is a float of unknown value: flooring it
            // (the Tensor language's `/`) is wrong once it is rounded or
            // multiplied back (`round(src_h * (height / src_h))` is
            // `height`, not 0, in diffusers' video resizing).
            (BinaryOp::TrueDiv, Value::Int(_), Value::Int(y)) => {
                self.require_nonzero_divisor(y, rhs, expr.range);
                Value::Float(None)
            }
            (_, Value::Int(x), Value::Int(y)) if op != BinaryOp::MatMul => {
                if matches!(op, BinaryOp::Div | BinaryOp::FloorDiv | BinaryOp::Rem) {
                    self.require_nonzero_divisor(y, rhs, expr.range);
                }
                Value::Int(match op {
                    BinaryOp::Add => Term::add(x, y),
                    BinaryOp::Sub => Term::sub(x, y),
                    BinaryOp::Mul => Term::mul(x, y),
                    BinaryOp::Div | BinaryOp::FloorDiv => Term::div(x, y),
                    BinaryOp::Rem => Term::rem(x, y),
                    _ => return Value::Unknown,
                })
            }
            (_, Value::Int(_) | Value::Float(_), Value::Int(_) | Value::Float(_))
                if op != BinaryOp::MatMul =>
            {
                super::numbers::arithmetic(op, &a, &b).unwrap_or(Value::Unknown)
            }
            // Python's list concatenation (`layers + [block]`, and
            // `layers.append(block)` as the front end writes it).
            (BinaryOp::Add, Value::List(x), Value::List(y)) => match self.joined_items(x, y) {
                Some(items) => Value::List(items),
                None => Value::Unknown,
            },
            // Python's operations on strings, tuples and lists.
            (_, Value::Str(_), _) | (_, Value::Tuple(_), Value::Tuple(_))
                if !self.analysis.semantics.sequences_have_operators =>
            {
                Value::Unknown
            }
            (BinaryOp::Add, Value::Tuple(x), Value::Tuple(y)) => match self.joined_items(x, y) {
                Some(items) => Value::Tuple(items),
                None => Value::Unknown,
            },
            (BinaryOp::Add, Value::Str(x), Value::Str(y)) => {
                if x.len() + y.len() > MAX_CONTAINER_ITEMS {
                    self.analysis.hit(LimitKind::ContainerSize);
                    return Value::Unknown;
                }
                Value::Str(format!("{x}{y}"))
            }
            // `"-" * 20`: the text repeated (none for `k <= 0`).
            (BinaryOp::Mul, Value::Str(text), Value::Int(k))
            | (BinaryOp::Mul, Value::Int(k), Value::Str(text)) => {
                let Some(k) = k.as_const() else {
                    self.note_numbers_decide(&Value::Unknown, &[Value::Int(k.clone())]);
                    return Value::Unknown;
                };
                let times = usize::try_from(k.max(0)).unwrap_or(0);
                if text.len().saturating_mul(times) > MAX_CONTAINER_ITEMS {
                    self.analysis.hit(LimitKind::ContainerSize);
                    return Value::Unknown;
                }
                Value::Str(text.repeat(times))
            }
            (BinaryOp::Rem, Value::Str(template), values) => {
                let text = super::strings::percent_formatted(template, values);
                self.note_numbers_decide(&text, std::slice::from_ref(values));
                text
            }
            // `[STRIDE] * num_stages`: the items repeated.
            (BinaryOp::Mul, Value::List(items) | Value::Tuple(items), Value::Int(k))
            | (BinaryOp::Mul, Value::Int(k), Value::List(items) | Value::Tuple(items)) => {
                let items = repeated(&a, &b, items, k);
                if matches!(items, Value::Unknown) && k.as_const().is_some() {
                    self.analysis.hit(LimitKind::ContainerSize);
                }
                self.note_numbers_decide(&items, &[Value::Int(k.clone())]);
                items
            }
            (BinaryOp::MatMul, _, _) => {
                let bound = vec![
                    ("input".to_owned(), a, self.describe(lhs)),
                    ("other".to_owned(), b, self.describe(rhs)),
                ];
                self.apply_or_defer("matmul", bound, expr.range)
            }
            (
                BinaryOp::Add
                | BinaryOp::Sub
                | BinaryOp::Mul
                | BinaryOp::Div
                | BinaryOp::TrueDiv
                | BinaryOp::FloorDiv
                | BinaryOp::Rem,
                _,
                _,
            ) => {
                let (Some(x), Some(y)) = (a.tensor_shape(), b.tensor_shape()) else {
                    return Value::Unknown;
                };
                if !matches!(a, Value::Tensor(_)) && !matches!(b, Value::Tensor(_)) {
                    return Value::Float(None);
                }
                let (x, y) = (self.refine_shape(&x), self.refine_shape(&y));
                let scalar = |s: &Shape| s.dims().is_some_and(<[Term]>::is_empty);
                let opaque = x.dims().is_none() || y.dims().is_none();
                if opaque && x != y && !scalar(&x) && !scalar(&y) {
                    let bound = vec![
                        ("input".to_owned(), a, self.describe(lhs)),
                        ("other".to_owned(), b, self.describe(rhs)),
                    ];
                    return self.defer("add", bound, expr.range);
                }
                let texts = (self.describe(lhs), self.describe(rhs));
                let shape = rules::broadcast(self, &x, &y, (&texts.0, &texts.1), expr.range);
                Value::Tensor(shape)
            }
            _ => Value::Unknown,
        }
    }

    /// Python and the Tensor language refuse to divide by zero.
    fn require_nonzero_divisor(&mut self, divisor: &Term, rhs: &ast::Expr, range: TextRange) {
        self.require(
            Formula::ne(divisor, &Term::int(0)),
            FactKind::Precondition,
            range,
            Explain::Text {
                template: format!("division by zero: `{}` is 0", self.describe(rhs)),
                terms: vec![],
            },
        );
    }

    pub(super) fn shape_assertion(
        &mut self,
        value: &Value,
        subject: String,
        pattern: &[ast::Expr],
        range: TextRange,
    ) {
        let Value::Tensor(shape) = value else { return };
        let claimed = format!(
            "[{}]",
            pattern.iter().map(describe).collect::<Vec<_>>().join(", ")
        );
        let mut parts = vec![Formula::eq(&shape.rank(), &Term::int(pattern.len() as i64))];
        for (i, dim) in pattern.iter().enumerate() {
            if matches!(dim.kind, ExprKind::UnknownDim) {
                continue;
            }
            let expected = self.int(dim);
            if let Some(actual) = shape.dim(i as i64) {
                parts.push(Formula::eq(&actual, &expected));
            }
        }
        self.require_claim(
            parts,
            range,
            Explain::Shape {
                subject,
                actual: shape.clone(),
                claimed,
                claim: ShapeClaim::Asserted,
            },
        );
    }

    // ----------------------------------------------------------------- calls
}

impl Frame<'_, '_> {
    /// Whether `a op b` orders a number that may hold a float
    /// ([`crate::shapes::analysis::Analysis::fractional_vars`]).
    fn orders_a_fraction(&self, op: CompareOp, a: &Value, b: &Value) -> bool {
        if !matches!(
            op,
            CompareOp::Lt | CompareOp::Le | CompareOp::Gt | CompareOp::Ge
        ) {
            return false;
        }
        let fractional = self.analysis.fractional_vars.borrow();
        if fractional.is_empty() {
            return false;
        }
        let mentions_one = |value: &Value| {
            let Value::Int(term) = value else {
                return false;
            };
            let mut found = false;
            term.visit_atoms(&mut |atom| {
                found |= matches!(atom, Term::Var(v) if fractional.contains(v));
            });
            found
        };
        mentions_one(a) || mentions_one(b)
    }
}

impl Frame<'_, '_> {
    /// The items of `x` then `y` (`x + y` of two lists or tuples); `None`,
    /// with the limit noted, past [`MAX_CONTAINER_ITEMS`].
    fn joined_items(&mut self, x: &[Value], y: &[Value]) -> Option<Vec<Value>> {
        let size = |items: &[Value]| -> usize {
            items
                .iter()
                .map(|item| size_of(item, MAX_CONTAINER_ITEMS))
                .sum()
        };
        if size(x) + size(y) > MAX_CONTAINER_ITEMS {
            self.analysis.hit(LimitKind::ContainerSize);
            return None;
        }
        // Copying is work: a step an item.
        self.step((x.len() + y.len()) as u64);
        Some(x.iter().chain(y).cloned().collect())
    }
}

/// `items * k` (or `k * items`) of a list or tuple: the items `k` times
/// over, for a known `k` (none for `k <= 0`); unknown past
/// [`MAX_CONTAINER_ITEMS`].
fn repeated(a: &Value, b: &Value, items: &[Value], k: &Term) -> Value {
    let Some(k) = k.as_const() else {
        return Value::Unknown;
    };
    let times = usize::try_from(k.max(0)).unwrap_or(0);
    let each: usize = items
        .iter()
        .map(|item| size_of(item, MAX_CONTAINER_ITEMS))
        .sum();
    if each.saturating_mul(times) > MAX_CONTAINER_ITEMS {
        return Value::Unknown;
    }
    let repeated: Vec<Value> = (0..times).flat_map(|_| items.iter().cloned()).collect();
    match (a, b) {
        (Value::Tuple(_), _) | (_, Value::Tuple(_)) => Value::Tuple(repeated),
        _ => Value::List(repeated),
    }
}

/// How many values `value` holds (itself and its items, nested), counted
/// up to about `limit`.
fn size_of(value: &Value, limit: usize) -> usize {
    match value {
        Value::List(items) | Value::Tuple(items) => {
            let mut total = 1;
            for item in items {
                total += size_of(item, limit);
                if total > limit {
                    break;
                }
            }
            total
        }
        _ => 1,
    }
}
