//! Tensors whose elements the analysis knows: a short one-dimensional
//! tensor made from known numbers (`torch.arange(depth)`,
//! `torch.tensor([0, 3, 7])`) and what PyTorch computes from it, so that
//! sizes computed with tensor arithmetic are known (RegNet's stage widths:
//! `torch.round(torch.log(torch.arange(d) * w_a + w_0) ...).int().tolist()`).
//!
//! The arithmetic is PyTorch's on the CPU: the result's element type by
//! its promotion rules (an `int64` tensor times a Python float is
//! `float32`), and each operation computed in that type (`float32` values
//! are rounded to `f32` after every operation, as PyTorch stores them).
//!
//! `log`, `exp` and `pow` are not correctly rounded in PyTorch: its
//! kernels (SLEEF's vectorised ones, or the C library's) are within one
//! unit in the last place (ulp) of the exact value. The analysis computes
//! in `f64` and takes either neighbour of its `float32` result to be
//! possible, except where the exact value is a `float32` or next to one
//! ([`settling_margin`]): a tensor carries a bound on how far each of its
//! items may be from PyTorch's. Rounding
//! (`torch.round`, a conversion to an integer type) settles an item only
//! where that bound cannot carry it across the boundary between two
//! results; anywhere else the result is not known. The arithmetic
//! operations (`+ - * /`) are IEEE operations in both, so an exact input
//! gives the same result in both.

use tensorfit_syntax::ast::BinaryOp;

/// A PyTorch kernel that is not correctly rounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kernel {
    Log,
    Exp,
    Pow,
}

/// How close (in ulps of the result) the exact value must be to a
/// `float32` for PyTorch's kernel to be taken to return that `float32`
/// (`pow(2.25, 1.0)` is 2.25): the measured deviations of torch 1.13's
/// `log` and `pow` from the exact value are below 0.15 ulp (its `exp`:
/// about 0.6 ulp, so an `exp` is never taken to be exact).
fn settling_margin(kernel: Kernel) -> Option<f64> {
    match kernel {
        Kernel::Log | Kernel::Pow => Some(0.05),
        Kernel::Exp => None,
    }
}

/// The most elements a tensor may have for the analysis to keep them.
pub const MAX_KNOWN_ELEMENTS: usize = 4096;

/// An element type, in PyTorch's order of promotion within a category.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ElementType {
    Bool,
    Int32,
    Int64,
    Float32,
    Float64,
}

impl ElementType {
    fn category(self) -> u8 {
        match self {
            ElementType::Bool => 0,
            ElementType::Int32 | ElementType::Int64 => 1,
            ElementType::Float32 | ElementType::Float64 => 2,
        }
    }

    fn is_float(self) -> bool {
        self.category() == 2
    }

    /// A value stored in this type: rounded to `f32`, truncated to an
    /// integer; `None` where PyTorch would overflow or the value is no
    /// number.
    fn store(self, x: f64) -> Option<f64> {
        if !x.is_finite() {
            return None;
        }
        match self {
            ElementType::Bool => Some(f64::from(u8::from(x != 0.0))),
            ElementType::Int32 => {
                let t = x.trunc();
                (t >= f64::from(i32::MIN) && t <= f64::from(i32::MAX)).then_some(t)
            }
            // Beyond 2^53 an f64 no longer holds every integer.
            ElementType::Int64 => {
                let t = x.trunc();
                (t.abs() < 9.0e15).then_some(t)
            }
            ElementType::Float32 => {
                let stored = f64::from(x as f32);
                stored.is_finite().then_some(stored)
            }
            ElementType::Float64 => Some(x),
        }
    }

    /// The spacing of stored values near `x`: the rounding error of one
    /// operation in this type.
    fn unit(self, x: f64) -> f64 {
        match self {
            ElementType::Float32 => {
                f64::from(f32::EPSILON) * x.abs().max(f64::from(f32::MIN_POSITIVE))
            }
            ElementType::Float64 => f64::EPSILON * x.abs().max(f64::MIN_POSITIVE),
            _ => 0.0,
        }
    }
}

/// A kernel's result of exact value `exact` (computed in `f64`) stored in
/// `ty`, and how far PyTorch's may be from it, given the inputs' own
/// `carried` error.
fn kernel_result(ty: ElementType, kernel: Kernel, exact: f64, carried: f64) -> Option<(f64, f64)> {
    let value = ty.store(exact)?;
    let settled = carried == 0.0
        && ty == ElementType::Float32
        && settling_margin(kernel).is_some_and(|margin| is_float32_within(exact, margin));
    let own = match settled {
        true => 0.0,
        // Within one ulp: either neighbour.
        false => 2.0 * ty.unit(value),
    };
    Some((value, carried + own))
}

/// Whether `exact` lies within `margin` ulps of the `float32` nearest it.
fn is_float32_within(exact: f64, margin: f64) -> bool {
    let stored = exact as f32;
    if !stored.is_finite() || stored == 0.0 {
        return exact == 0.0;
    }
    let bits = stored.to_bits();
    let ulp = (f64::from(f32::from_bits(bits + 1)) - f64::from(stored)).abs();
    (exact - f64::from(stored)).abs() <= margin * ulp
}

/// Floor division of floats as PyTorch computes it (and Python): from
/// `fmod`, each step rounded to `ty`.
fn floor_divided(ty: ElementType, x: f64, y: f64) -> Option<f64> {
    let rem = x % y;
    let mut quotient = ty.store((x - rem) / y)?;
    if rem != 0.0 && (y < 0.0) != (rem < 0.0) {
        quotient = ty.store(quotient - 1.0)?;
    }
    if quotient == 0.0 {
        return Some(0.0);
    }
    let floor = quotient.floor();
    Some(match quotient - floor > 0.5 {
        true => floor + 1.0,
        false => floor,
    })
}

/// A Python number given to a tensor operation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scalar {
    pub value: f64,
    pub ty: ElementType,
}

impl Scalar {
    pub fn int(value: i64) -> Scalar {
        Scalar {
            value: value as f64,
            ty: ElementType::Int64,
        }
    }

    /// A Python float is a double; PyTorch casts it to the tensor's type.
    pub fn float(value: f64) -> Scalar {
        Scalar {
            value,
            ty: ElementType::Float64,
        }
    }

    pub fn bool(value: bool) -> Scalar {
        Scalar {
            value: f64::from(u8::from(value)),
            ty: ElementType::Bool,
        }
    }
}

/// A one-dimensional tensor with known items.
#[derive(Clone, Debug, PartialEq)]
pub struct Elements {
    pub ty: ElementType,
    pub items: Vec<f64>,
    /// How far any item may be from the one PyTorch computes (0 where
    /// they are equal).
    pub error: f64,
}

/// An operand of an elementwise operation.
#[derive(Clone, Copy, Debug)]
pub enum Operand<'e> {
    Tensor(&'e Elements),
    Scalar(Scalar),
}

impl Operand<'_> {
    fn ty(&self) -> ElementType {
        match self {
            Operand::Tensor(t) => t.ty,
            Operand::Scalar(s) => s.ty,
        }
    }

    fn item(&self, i: usize) -> f64 {
        match self {
            Operand::Tensor(t) => t.items[i],
            Operand::Scalar(s) => s.value,
        }
    }

    fn error(&self) -> f64 {
        match self {
            Operand::Tensor(t) => t.error,
            Operand::Scalar(_) => 0.0,
        }
    }

    fn len(&self) -> Option<usize> {
        match self {
            Operand::Tensor(t) => Some(t.items.len()),
            Operand::Scalar(_) => None,
        }
    }
}

/// The type of `a op b` by PyTorch's promotion: tensors decide within a
/// category, a Python number only where its category is higher (then
/// the default type of that category: `int64`, `float32`).
fn promoted(a: &Operand, b: &Operand) -> ElementType {
    let tensors: Vec<ElementType> = [a, b]
        .iter()
        .filter(|o| matches!(o, Operand::Tensor(_)))
        .map(|o| o.ty())
        .collect();
    let tensor_type = tensors.iter().copied().max_by_key(|t| (t.category(), *t));
    let scalar_type = [a, b]
        .iter()
        .filter(|o| matches!(o, Operand::Scalar(_)))
        .map(|o| o.ty())
        .max_by_key(|t| t.category());
    match (tensor_type, scalar_type) {
        (Some(t), Some(s)) if s.category() > t.category() => match s.category() {
            1 => ElementType::Int64,
            _ => ElementType::Float32,
        },
        (Some(t), _) => t,
        (None, Some(s)) => s,
        (None, None) => ElementType::Float32,
    }
}

impl Elements {
    /// Known items of one type; `None` past [`MAX_KNOWN_ELEMENTS`] or for
    /// an item the type cannot hold.
    pub fn new(ty: ElementType, items: Vec<f64>, error: f64) -> Option<Elements> {
        if items.len() > MAX_KNOWN_ELEMENTS {
            return None;
        }
        let items = items
            .into_iter()
            .map(|x| ty.store(x))
            .collect::<Option<Vec<f64>>>()?;
        Some(Elements { ty, items, error })
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// `torch.arange(start, end, step)` of integers: `int64`.
    pub fn arange(start: i64, end: i64, step: i64) -> Option<Elements> {
        if step == 0 {
            return None;
        }
        let count = (end - start + step - step.signum()) / step;
        let count = usize::try_from(count.max(0)).ok()?;
        if count > MAX_KNOWN_ELEMENTS {
            return None;
        }
        let items = (0..count as i64)
            .map(|i| (start + i * step) as f64)
            .collect();
        Elements::new(ElementType::Int64, items, 0.0)
    }

    /// `torch.tensor([...])` of Python numbers: `int64` for integers (and
    /// booleans mixed with them), `float32` where one is a float, `bool`
    /// where all are.
    pub fn from_scalars(items: &[Scalar]) -> Option<Elements> {
        let ty = match items.iter().map(|s| s.ty.category()).max() {
            Some(2) => ElementType::Float32,
            Some(0) => ElementType::Bool,
            _ => ElementType::Int64,
        };
        Elements::new(ty, items.iter().map(|s| s.value).collect(), 0.0)
    }

    /// `a op b` elementwise, broadcasting a Python number or a
    /// one-element tensor; `None` where PyTorch raises (an integer
    /// division by zero) or the result is not known.
    pub fn binary(op: BinaryOp, a: Operand, b: Operand) -> Option<Elements> {
        let len = match (a.len(), b.len()) {
            (Some(x), Some(y)) if x == y || y == 1 => x,
            (Some(1), Some(y)) => y,
            (Some(x), None) => x,
            (None, Some(y)) => y,
            _ => return None,
        };
        let at = |o: &Operand, i: usize| match o.len() {
            Some(1) => o.item(0),
            _ => o.item(i),
        };
        let mut ty = promoted(&a, &b);
        // True division of integers is a float (`torch.true_divide`).
        if op == BinaryOp::TrueDiv && !ty.is_float() {
            ty = ElementType::Float32;
        }
        if ty == ElementType::Bool {
            return None;
        }
        let (ea, eb) = (a.error(), b.error());
        // `41 / t` is PyTorch's `t.reciprocal() * 41`: two roundings.
        let reciprocal_first = op == BinaryOp::TrueDiv && matches!(a, Operand::Scalar(_));
        let mut items = Vec::with_capacity(len);
        let mut error: f64 = 0.0;
        for i in 0..len {
            // Each operand as the operation's type sees it.
            let (x, y) = (ty.store(at(&a, i))?, ty.store(at(&b, i))?);
            let exact = match op {
                BinaryOp::Add => x + y,
                BinaryOp::Sub => x - y,
                BinaryOp::Mul => x * y,
                BinaryOp::TrueDiv if reciprocal_first => ty.store(1.0 / y)? * x,
                BinaryOp::TrueDiv => x / y,
                BinaryOp::FloorDiv | BinaryOp::Rem if y == 0.0 => return None,
                BinaryOp::FloorDiv if ty.is_float() => floor_divided(ty, x, y)?,
                BinaryOp::FloorDiv => (x / y).floor(),
                // `torch.remainder`: the divisor's sign, as Python's `%`
                // (`fmod` is exact; the correction is one operation).
                BinaryOp::Rem => {
                    let rem = x % y;
                    match rem != 0.0 && (rem < 0.0) != (y < 0.0) {
                        true => ty.store(rem + y)?,
                        false => rem,
                    }
                }
                _ => return None,
            };
            let value = ty.store(exact)?;
            if ea > 0.0 || eb > 0.0 {
                let carried = match op {
                    BinaryOp::Add | BinaryOp::Sub => ea + eb,
                    BinaryOp::Mul => x.abs() * eb + y.abs() * ea + ea * eb,
                    BinaryOp::TrueDiv if y.abs() > eb => (ea + (x / y).abs() * eb) / (y.abs() - eb),
                    // Floor division and remainder of inexact operands.
                    _ => return None,
                };
                // Different inputs may round to different neighbours.
                error = error.max(carried + ty.unit(value));
            }
            items.push(value);
        }
        Some(Elements { ty, items, error })
    }

    /// `torch.log`, `torch.exp`, `torch.sqrt`: a float (`float32` of an
    /// integer tensor), within [`Elements::error`] of PyTorch's.
    pub fn unary(&self, function: Transcendental) -> Option<Elements> {
        let ty = match self.ty.is_float() {
            true => self.ty,
            false => ElementType::Float32,
        };
        let e = self.error;
        let mut items = Vec::with_capacity(self.len());
        let mut error: f64 = 0.0;
        for &x in &self.items {
            // The input converted to the result's type first.
            let x = ty.store(x)?;
            let (value, carried) = match function {
                Transcendental::Log if x > e => (x.ln(), e / (x - e)),
                Transcendental::Exp => (x.exp(), x.exp() * (e.exp() - 1.0)),
                // IEEE square root: correctly rounded in both.
                Transcendental::Sqrt if x - e >= 0.0 => {
                    let carried = match e {
                        0.0 => 0.0,
                        _ if x - e > 0.0 => e / (x - e).sqrt(),
                        _ => return None,
                    };
                    (x.sqrt(), carried)
                }
                _ => return None,
            };
            let (value, item_error) = match function {
                // IEEE square root: correctly rounded in both.
                Transcendental::Sqrt => {
                    let stored = ty.store(value)?;
                    let own = if e == 0.0 { 0.0 } else { ty.unit(stored) };
                    (stored, carried + own)
                }
                Transcendental::Log => kernel_result(ty, Kernel::Log, value, carried)?,
                Transcendental::Exp => kernel_result(ty, Kernel::Exp, value, carried)?,
            };
            error = error.max(item_error);
            items.push(value);
        }
        Some(Elements { ty, items, error })
    }

    /// `torch.pow(base, exponent)` with either a tensor.
    pub fn pow(base: Operand, exponent: Operand) -> Option<Elements> {
        let len = base.len().or(exponent.len())?;
        if base.len().is_some_and(|n| n != len) || exponent.len().is_some_and(|n| n != len) {
            return None;
        }
        let ty = promoted(&base, &exponent);
        if ty == ElementType::Bool {
            return None;
        }
        let (eb, ee) = (base.error(), exponent.error());
        // `t ** 2.5`: PyTorch keeps a Python exponent as a double, and
        // computes some exponents by other operations (`x * x * x`,
        // `1 / (x * x)`, `1 / sqrt(x)`), each rounded.
        let python_exponent = match exponent {
            Operand::Scalar(s) if ty.is_float() => Some(s.value),
            _ => None,
        };
        let mut items = Vec::with_capacity(len);
        let mut error: f64 = 0.0;
        for i in 0..len {
            let b = ty.store(base.item(i))?;
            let x = match python_exponent {
                Some(x) => x,
                None => ty.store(exponent.item(i))?,
            };
            if !ty.is_float() {
                // An integer power: exact, and PyTorch refuses a negative
                // exponent of an integer.
                if x < 0.0 {
                    return None;
                }
                let value = b.powi(i32::try_from(x as i64).ok()?);
                items.push(ty.store(value)?);
                continue;
            }
            if eb > 0.0 || b <= 0.0 && ee > 0.0 {
                return None;
            }
            let exact = b.powf(x);
            let carried = exact.abs() * ((b.abs().ln().abs() * ee).exp() - 1.0);
            let (value, item_error) = match python_exponent {
                // One IEEE operation: `x * x`, `sqrt(x)`, `1 / x`.
                Some(p) if p == 2.0 || p == 0.5 || p == -1.0 => (ty.store(exact)?, 0.0),
                // Two roundings: either neighbour of the exact value.
                Some(p) if p == 3.0 || p == -2.0 || p == -0.5 => {
                    let value = ty.store(exact)?;
                    (value, 2.0 * ty.unit(value))
                }
                _ => kernel_result(ty, Kernel::Pow, exact, carried)?,
            };
            error = error.max(item_error);
            items.push(value);
        }
        Some(Elements { ty, items, error })
    }

    /// `torch.round`: to the nearest integer, ties to even; integer
    /// tensors are themselves. `None` where an item's error could carry it
    /// across a tie.
    pub fn round(&self) -> Option<Elements> {
        if !self.ty.is_float() {
            return Some(self.clone());
        }
        let items = self
            .items
            .iter()
            .map(|&x| {
                let distance_to_tie = ((x - x.floor()) - 0.5).abs();
                (self.error == 0.0 || distance_to_tie > self.error).then(|| x.round_ties_even())
            })
            .collect::<Option<Vec<f64>>>()?;
        Some(Elements {
            ty: self.ty,
            items,
            error: 0.0,
        })
    }

    /// `.int()`, `.long()`, `.float()`, ...: the items in another type,
    /// truncated toward zero into an integer type. `None` where an
    /// item's error could carry it across an integer.
    pub fn converted(&self, ty: ElementType) -> Option<Elements> {
        let settled = |x: f64| {
            self.error == 0.0
                || ty.is_float()
                // Truncated to 0 whichever way the error goes.
                || x.abs() + self.error < 1.0
                || (x - x.round()).abs() > self.error
        };
        if !self.items.iter().all(|&x| settled(x)) {
            return None;
        }
        let error = match ty.is_float() {
            true if self.error > 0.0 => {
                self.error + self.items.iter().map(|&x| ty.unit(x)).fold(0.0, f64::max)
            }
            _ => 0.0,
        };
        let mut converted = Elements::new(ty, self.items.clone(), error)?;
        converted.error = error;
        Some(converted)
    }

    /// `torch.diff(t)`: each item minus the one before it.
    pub fn diff(&self) -> Option<Elements> {
        if self.ty == ElementType::Bool {
            return None;
        }
        let items = self.items.windows(2).map(|w| w[1] - w[0]).collect();
        let error = match self.error {
            0.0 => 0.0,
            e => {
                2.0 * e
                    + self
                        .items
                        .iter()
                        .map(|&x| self.ty.unit(x))
                        .fold(0.0, f64::max)
            }
        };
        Elements::new(self.ty, items, error)
    }

    /// Whether an item's value is the one PyTorch holds.
    pub fn is_exact(&self) -> bool {
        self.error == 0.0
    }
}

/// The elementwise functions whose PyTorch kernels are not correctly
/// rounded (and `sqrt`, which is, for the same code).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transcendental {
    Log,
    Exp,
    Sqrt,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tensor(ty: ElementType, items: &[f64]) -> Elements {
        Elements::new(ty, items.to_vec(), 0.0).unwrap()
    }

    // Every expected value below was printed by torch 1.13.

    #[test]
    fn promotion_follows_pytorch() {
        let ints = Elements::arange(0, 3, 1).unwrap();
        // torch.arange(3) * 1.5 -> float32; + 2 stays float32.
        let scaled = Elements::binary(
            BinaryOp::Mul,
            Operand::Tensor(&ints),
            Operand::Scalar(Scalar::float(1.5)),
        )
        .unwrap();
        assert_eq!(scaled.ty, ElementType::Float32);
        assert_eq!(scaled.items, vec![0.0, 1.5, 3.0]);
        // torch.arange(3) + 2 -> int64; torch.arange(3) / 2 -> float32.
        let shifted = Elements::binary(
            BinaryOp::Add,
            Operand::Tensor(&ints),
            Operand::Scalar(Scalar::int(2)),
        )
        .unwrap();
        assert_eq!(shifted.ty, ElementType::Int64);
        let halves = Elements::binary(
            BinaryOp::TrueDiv,
            Operand::Tensor(&ints),
            Operand::Scalar(Scalar::int(2)),
        )
        .unwrap();
        assert_eq!(halves.ty, ElementType::Float32);
        assert_eq!(halves.items, vec![0.0, 0.5, 1.0]);
        // An int32 tensor and an int64 tensor: int64.
        let int32 = ints.converted(ElementType::Int32).unwrap();
        let sum = Elements::binary(
            BinaryOp::Add,
            Operand::Tensor(&int32),
            Operand::Tensor(&ints),
        )
        .unwrap();
        assert_eq!(sum.ty, ElementType::Int64);
    }

    #[test]
    fn float32_items_are_rounded_after_each_operation() {
        // torch.tensor([1.0]) * 0.1 -> 0.10000000149011612 (f32), not 0.1.
        let one = tensor(ElementType::Float32, &[1.0]);
        let tenth = Elements::binary(
            BinaryOp::Mul,
            Operand::Tensor(&one),
            Operand::Scalar(Scalar::float(0.1)),
        )
        .unwrap();
        assert_eq!(tenth.items, vec![0.10000000149011612]);
        // torch.arange(5) * 27.89 + 48: [48, 75.89, 103.78, 131.67, 159.56]
        // in float32.
        let widths = Elements::binary(
            BinaryOp::Add,
            Operand::Tensor(
                &Elements::binary(
                    BinaryOp::Mul,
                    Operand::Tensor(&Elements::arange(0, 5, 1).unwrap()),
                    Operand::Scalar(Scalar::float(27.89)),
                )
                .unwrap(),
            ),
            Operand::Scalar(Scalar::int(48)),
        )
        .unwrap();
        let expected: Vec<f64> = [48.0f32, 75.89, 103.78, 131.67, 159.56]
            .iter()
            .map(|&x| f64::from(x))
            .collect();
        assert_eq!(widths.items, expected);
    }

    #[test]
    fn rounding_settles_only_items_far_from_a_tie() {
        // torch.round(torch.tensor([0.5, 1.5, 2.5, -0.5])) -> [0, 2, 2, -0].
        let ties = tensor(ElementType::Float32, &[0.5, 1.5, 2.5, -0.5]);
        assert_eq!(ties.round().unwrap().items, vec![0.0, 2.0, 2.0, 0.0]);
        // The same items, each possibly a little off: not known.
        let inexact = Elements {
            error: 1e-6,
            ..ties.clone()
        };
        assert_eq!(inexact.round(), None);
        let far = Elements {
            error: 1e-6,
            ..tensor(ElementType::Float32, &[0.2, 1.7])
        };
        assert_eq!(far.round().unwrap().items, vec![0.0, 2.0]);
        assert!(far.round().unwrap().is_exact());
    }

    #[test]
    fn transcendental_results_carry_an_error() {
        let x = tensor(ElementType::Int64, &[1.0, 3.0, 9.0]);
        let log = x.unary(Transcendental::Log).unwrap();
        assert_eq!(log.ty, ElementType::Float32);
        assert_eq!(log.items[0], 0.0);
        assert_eq!(log.items[1], f64::from(3f64.ln() as f32));
        // ln 1 is 0; ln 3 may be either neighbour of the float32 nearest it.
        assert!(log.error > 0.0 && log.error < 1e-6);
        // log(9) / log(3) is 2 within the error (torch: [0., 1., 2.]):
        // round settles it.
        let ratio = Elements::binary(
            BinaryOp::TrueDiv,
            Operand::Tensor(&log),
            Operand::Scalar(Scalar::float(3f64.ln())),
        )
        .unwrap();
        assert_eq!(ratio.round().unwrap().items, vec![0.0, 1.0, 2.0]);
        // ... but truncating it to an integer is not known (it may be
        // 1.9999999).
        assert_eq!(ratio.converted(ElementType::Int32), None);
    }

    #[test]
    fn integer_conversion_truncates_toward_zero() {
        // torch.tensor([2.7, -2.7]).int() -> [2, -2].
        let x = tensor(ElementType::Float32, &[2.7, -2.7]);
        assert_eq!(
            x.converted(ElementType::Int32).unwrap().items,
            vec![2.0, -2.0]
        );
    }

    #[test]
    fn integer_division_by_zero_is_not_known() {
        let x = tensor(ElementType::Int64, &[4.0]);
        let zero = Operand::Scalar(Scalar::int(0));
        assert_eq!(
            Elements::binary(BinaryOp::FloorDiv, Operand::Tensor(&x), zero),
            None
        );
        // True division is a float: inf, which is no size either.
        assert_eq!(
            Elements::binary(BinaryOp::TrueDiv, Operand::Tensor(&x), zero),
            None
        );
    }

    #[test]
    fn pow_of_a_python_float_by_a_tensor_is_float32() {
        // torch.pow(2.5, torch.tensor([0., 1., 2.])) -> [1, 2.5, 6.25].
        let e = tensor(ElementType::Float32, &[0.0, 1.0, 2.0]);
        let p = Elements::pow(Operand::Scalar(Scalar::float(2.5)), Operand::Tensor(&e)).unwrap();
        assert_eq!(p.ty, ElementType::Float32);
        assert_eq!(p.items, vec![1.0, 2.5, 6.25]);
        // Exact values are what any kernel within the bound returns:
        // torch.round(torch.pow(2.25, 1.0) * 80 / 8) is 22 (22.5, a tie).
        assert!(p.is_exact());
        let one = tensor(ElementType::Float32, &[1.0]);
        let tie =
            Elements::pow(Operand::Scalar(Scalar::float(2.25)), Operand::Tensor(&one)).unwrap();
        let scaled = Elements::binary(
            BinaryOp::Mul,
            Operand::Scalar(Scalar::int(80)),
            Operand::Tensor(&tie),
        )
        .unwrap();
        let eighths = Elements::binary(
            BinaryOp::TrueDiv,
            Operand::Tensor(&scaled),
            Operand::Scalar(Scalar::int(8)),
        )
        .unwrap();
        assert_eq!(eighths.round().unwrap().items, vec![22.0]);
    }

    #[test]
    fn only_a_kernel_result_next_to_a_float32_is_taken_as_exact() {
        // 1 + 2^-24 is the midpoint between 1 and the next float32.
        let midpoint = 1.0 + f64::powi(2.0, -24);
        assert!(!is_float32_within(midpoint, 0.05));
        assert!(is_float32_within(1.0, 0.05));
        assert!(!is_float32_within(3f64.ln(), 0.05));
        let (value, error) =
            kernel_result(ElementType::Float32, Kernel::Pow, midpoint, 0.0).unwrap();
        assert_eq!(value, 1.0);
        assert!(error > 0.0);
        // An exp is never taken to be exact (torch's is off by up to
        // about 0.6 ulp): exp(15.611778) rounds up in torch 1.13.
        let (_, error) = kernel_result(ElementType::Float32, Kernel::Exp, 1.0, 0.0).unwrap();
        assert!(error > 0.0);
    }

    #[test]
    fn python_numbers_divided_by_a_tensor_round_twice() {
        // 41 / torch.tensor([41.0]) is 41 * (1 / 41) = 0.99999994 in torch.
        let t = tensor(ElementType::Float32, &[41.0]);
        let q = Elements::binary(
            BinaryOp::TrueDiv,
            Operand::Scalar(Scalar::int(41)),
            Operand::Tensor(&t),
        )
        .unwrap();
        assert_eq!(q.items, vec![f64::from(0.99999994f32)]);
        assert_eq!(q.converted(ElementType::Int32).unwrap().items, vec![0.0]);
    }

    #[test]
    fn float_remainder_and_floor_division_follow_fmod() {
        // torch.tensor([1e20]) % 3 -> 2; torch.tensor([-7.5]) // 2 -> -4.
        let big = tensor(ElementType::Float32, &[1e20]);
        let rem = Elements::binary(
            BinaryOp::Rem,
            Operand::Tensor(&big),
            Operand::Scalar(Scalar::int(3)),
        )
        .unwrap();
        assert_eq!(rem.items, vec![2.0]);
        let neg = tensor(ElementType::Float32, &[-7.5]);
        let q = Elements::binary(
            BinaryOp::FloorDiv,
            Operand::Tensor(&neg),
            Operand::Scalar(Scalar::int(2)),
        )
        .unwrap();
        assert_eq!(q.items, vec![-4.0]);
        let r = Elements::binary(
            BinaryOp::Rem,
            Operand::Tensor(&neg),
            Operand::Scalar(Scalar::int(2)),
        )
        .unwrap();
        assert_eq!(r.items, vec![0.5]);
    }

    #[test]
    fn a_python_exponent_is_a_double() {
        // torch.tensor([8.0]) ** 5.2 is 49667.0 in torch 1.13; with the
        // exponent rounded to float32 first it would be 49666.95. (The
        // exact value, 49667.00045, is too near 49667 for `.int()` to be
        // known.)
        let t = tensor(ElementType::Float32, &[8.0]);
        let p = Elements::pow(Operand::Tensor(&t), Operand::Scalar(Scalar::float(5.2))).unwrap();
        assert_eq!(p.items, vec![49667.0]);
        assert_eq!(p.converted(ElementType::Int32), None);
        // x ** 3 rounds twice: not taken as exact (8 ** 3 is 512).
        let cube = Elements::pow(Operand::Tensor(&t), Operand::Scalar(Scalar::int(3))).unwrap();
        assert_eq!(cube.items, vec![512.0]);
        assert!(!cube.is_exact());
    }

    #[test]
    fn diff_and_arange() {
        let idx = tensor(ElementType::Int64, &[0.0, 1.0, 4.0, 9.0]);
        assert_eq!(idx.diff().unwrap().items, vec![1.0, 3.0, 5.0]);
        assert_eq!(
            Elements::arange(2, 9, 3).unwrap().items,
            vec![2.0, 5.0, 8.0]
        );
        assert_eq!(
            Elements::arange(5, 0, -2).unwrap().items,
            vec![5.0, 3.0, 1.0]
        );
        assert!(Elements::arange(0, 0, 1).unwrap().is_empty());
        assert_eq!(Elements::arange(0, 1 << 40, 1), None);
    }
}
