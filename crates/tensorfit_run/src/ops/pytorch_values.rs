//! Values the operations compute, against what PyTorch 1.13 computes for
//! the same call (each expected value was printed by `torch`; the
//! differential test covers shapes, these cover the numbers).

use std::rc::Rc;

use ndarray::{ArrayD, IxDyn};

use super::{call, Args, OpContext};
use crate::value::Value;

/// `torch.arange(6.).reshape(2, 3)`.
fn x() -> Value {
    let data: Vec<f32> = (0..6).map(|i| i as f32).collect();
    Value::tensor(ArrayD::from_shape_vec(IxDyn(&[2, 3]), data).unwrap())
}

fn ints(items: &[i64]) -> Value {
    Value::List(Rc::new(items.iter().map(|i| Value::Int(*i)).collect()))
}

/// The shape and the values of `op(args)`, or the error's message.
fn run(op: &str, args: Vec<(&str, Value)>) -> Result<(Vec<usize>, Vec<f32>), String> {
    let mut ctx = OpContext::new(0, 1 << 20);
    let args = Args::new(
        op,
        args.into_iter().map(|(n, v)| (n.to_owned(), v)).collect(),
    );
    let value = call(&mut ctx, op, &args).map_err(|f| f.message)?;
    let t = value.as_tensor().expect("a tensor");
    Ok((t.shape().to_vec(), t.iter().copied().collect()))
}

fn values(op: &str, args: Vec<(&str, Value)>) -> Vec<f32> {
    let (_, values) = run(op, args).expect("runs");
    values
        .iter()
        .map(|v| (v * 10_000.0).round() / 10_000.0)
        .collect()
}

fn error(op: &str, args: Vec<(&str, Value)>) -> String {
    run(op, args).expect_err("fails")
}

#[test]
fn clamp_lets_max_win_and_needs_a_bound() {
    // torch.clamp(x, min=2, max=1)
    let clamped = values(
        "clamp",
        vec![
            ("input", x()),
            ("min", Value::Float(2.0)),
            ("max", Value::Float(1.0)),
        ],
    );
    assert_eq!(clamped, [1.0; 6]);
    assert!(error("clamp", vec![("input", x())]).contains("at least one of `min` or `max`"));
}

#[test]
fn flip_and_roll_move_elements_as_pytorch_does() {
    // x.flip(0, 1)
    assert_eq!(
        values("flip", vec![("input", x()), ("dims", ints(&[0, 1]))]),
        [5.0, 4.0, 3.0, 2.0, 1.0, 0.0]
    );
    assert!(error("flip", vec![("input", x()), ("dims", ints(&[0, 0]))])
        .contains("appears multiple times"));
    // torch.roll(x, 1): over the flattened elements.
    assert_eq!(
        values("roll", vec![("input", x()), ("shifts", Value::Int(1))]),
        [5.0, 0.0, 1.0, 2.0, 3.0, 4.0]
    );
    // torch.roll(x, (1, -1), dims=(0, 1))
    assert_eq!(
        values(
            "roll",
            vec![
                ("input", x()),
                ("shifts", ints(&[1, -1])),
                ("dims", ints(&[0, 1]))
            ]
        ),
        [4.0, 5.0, 3.0, 1.0, 2.0, 0.0]
    );
    assert!(error("roll", vec![("input", x()), ("shifts", ints(&[1, 2]))]).contains("must align"));
}

#[test]
fn statistics_and_running_sums() {
    // torch.var(x, 1), x.std(dim=1, unbiased=False)
    assert_eq!(
        values("variance", vec![("input", x()), ("dim", Value::Int(1))]),
        [1.0, 1.0]
    );
    assert_eq!(
        values(
            "std",
            vec![
                ("input", x()),
                ("dim", Value::Int(1)),
                ("unbiased", Value::Bool(false))
            ]
        ),
        [0.8165, 0.8165]
    );
    // x.cumsum(-1)
    assert_eq!(
        values("cumsum", vec![("input", x()), ("dim", Value::Int(-1))]),
        [0.0, 1.0, 3.0, 3.0, 7.0, 12.0]
    );
    // torch.tensor(5.).var(): NaN.
    let scalar = Value::tensor(ArrayD::from_elem(IxDyn(&[]), 5.0));
    assert!(values("variance", vec![("input", scalar)])[0].is_nan());
}

#[test]
fn extremes_and_truth() {
    // torch.argmin(torch.tensor([1., 0., 0.])): the first minimum.
    let t = Value::tensor(ArrayD::from_shape_vec(IxDyn(&[3]), vec![1.0, 0.0, 0.0]).unwrap());
    assert_eq!(values("argmin", vec![("input", t)]), [1.0]);
    // x.amax(dim=(0, 1)), x.any(), torch.all(x, dim=0)
    assert_eq!(
        values("amax", vec![("input", x()), ("dim", ints(&[0, 1]))]),
        [5.0]
    );
    assert_eq!(values("any", vec![("input", x())]), [1.0]);
    assert_eq!(
        values("all", vec![("input", x()), ("dim", Value::Int(0))]),
        [0.0, 1.0, 1.0]
    );
}
