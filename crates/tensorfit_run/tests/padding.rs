//! The padding theorem of Rink's report on the model language (section
//! 4), as a property of the interpreter: evaluating a tensor-algebra
//! expression on inputs whose dimensions are padded with zeros to a
//! multiple of M gives, on the unpadded region, the unpadded result.
//!
//! The expressions are the model language's operations (and PyTorch's
//! forms of them) for which the theorem holds: products, contractions,
//! sums, transposition, diagonals, projections and element-wise operations
//! that keep zero at zero.

use std::path::Path;

use ndarray::{ArrayD, Axis, IxDyn, Slice};
use tensorfit_run::{Program, Rng, RunOptions, Value};

/// Each takes `A: [n, k]` and `B: [k, m]`.
const EXPRESSIONS: &[&str] = &[
    "A @ B",
    "matmul(A, B)",
    "contract(outer(A, B), 1, 2)",
    "reduce_sum(diag(outer(A, B), 1, 2), 1)",
    "outer(A, B)",
    "transpose(A, 0, 1)",
    "reduce_sum(A, 0)",
    "reduce_sum(outer(A, B), 3)",
    "A * A + A",
    "relu(A) - A",
    "project(A, 0, 0)",
    "expand_dim(B, 1, 3)",
    "einsum(\"ij,jk->ik\", A, B)",
    "sum(A @ B, dim: 1)",
    "(A @ B) * 2.0",
    "t(A) @ A",
];

fn random_tensor(rng: &mut Rng, shape: &[usize]) -> ArrayD<f32> {
    ArrayD::from_shape_fn(IxDyn(shape), |_| rng.normal())
}

/// `t` zero-filled to dimensions rounded up to a multiple of `m`.
fn pad(t: &ArrayD<f32>, m: usize) -> ArrayD<f32> {
    let shape: Vec<usize> = t.shape().iter().map(|d| d.div_ceil(m) * m).collect();
    let mut out = ArrayD::zeros(IxDyn(&shape));
    let mut region = out.view_mut();
    for (axis, d) in t.shape().iter().enumerate() {
        region.slice_axis_inplace(Axis(axis), Slice::from(0..*d));
    }
    region.assign(t);
    out
}

fn evaluate(expression: &str, a: ArrayD<f32>, b: ArrayD<f32>) -> ArrayD<f32> {
    let text = format!("fn f(A: Tensor, B: Tensor) -> Tensor {{\n  return {expression}\n}}\n");
    let program =
        Program::from_text(Path::new("padding.tensor"), &text, &|_| None).expect("parses");
    let result = tensorfit_run::call(
        &program,
        "f",
        vec![Value::tensor(a), Value::tensor(b)],
        &RunOptions::default(),
    )
    .unwrap_or_else(|e| panic!("`{expression}` failed: {}", e.message));
    match result {
        Value::Tensor(t) => (*t).clone(),
        other => panic!("`{expression}` gave {other}"),
    }
}

#[test]
fn padding_with_zeros_keeps_the_unpadded_region() {
    let mut rng = Rng::new(8);
    for case in 0..400 {
        let expression = EXPRESSIONS[case % EXPRESSIONS.len()];
        let (n, k, m) = (
            1 + rng.below(5) as usize,
            1 + rng.below(5) as usize,
            1 + rng.below(5) as usize,
        );
        let multiple = 2 + rng.below(3) as usize;
        let a = random_tensor(&mut rng, &[n, k]);
        let b = random_tensor(&mut rng, &[k, m]);
        let plain = evaluate(expression, a.clone(), b.clone());
        let padded = evaluate(expression, pad(&a, multiple), pad(&b, multiple));
        assert_eq!(
            plain.ndim(),
            padded.ndim(),
            "`{expression}`: the rank changed"
        );
        let mut region = padded.view();
        for (axis, d) in plain.shape().iter().enumerate() {
            assert!(
                padded.shape()[axis] >= *d,
                "`{expression}`: padding shrank a dimension"
            );
            region.slice_axis_inplace(Axis(axis), Slice::from(0..*d));
        }
        for (x, y) in plain.iter().zip(region.iter()) {
            assert!(
                (x - y).abs() <= 1e-4 * (1.0 + x.abs()),
                "`{expression}` with A: [{n}, {k}], B: [{k}, {m}] padded to multiples of {multiple}: {x} became {y}"
            );
        }
    }
}

/// The comparison is not vacuous: an operation that does not keep zero
/// at zero (softmax) breaks the property, and the comparison sees it.
#[test]
fn padding_breaks_for_operations_that_move_zero() {
    let mut rng = Rng::new(3);
    let a = random_tensor(&mut rng, &[3, 3]);
    let b = random_tensor(&mut rng, &[3, 3]);
    let plain = evaluate("softmax(A, dim: 1)", a.clone(), b.clone());
    let padded = evaluate("softmax(A, dim: 1)", pad(&a, 4), pad(&b, 4));
    let region = padded.slice(ndarray::s![0..3, 0..3]).to_owned().into_dyn();
    assert!(plain
        .iter()
        .zip(region.iter())
        .any(|(x, y)| (x - y).abs() > 1e-3));
}
