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

fn matrix(rows: &[&[f32]]) -> Value {
    let data: Vec<f32> = rows.iter().flat_map(|r| r.iter().copied()).collect();
    Value::tensor(ArrayD::from_shape_vec(IxDyn(&[rows.len(), rows[0].len()]), data).unwrap())
}

fn parts(op: &str, args: Vec<(&str, Value)>) -> Vec<Vec<f32>> {
    let mut ctx = OpContext::new(0, 1 << 20);
    let args = Args::new(
        op,
        args.into_iter().map(|(n, v)| (n.to_owned(), v)).collect(),
    );
    let Value::Tuple(items) = call(&mut ctx, op, &args).expect("runs") else {
        panic!("a tuple")
    };
    items
        .iter()
        .map(|v| v.as_tensor().unwrap().iter().copied().collect())
        .collect()
}

#[test]
fn repeating_follows_pytorch() {
    // x.repeat(2, 1, 2): shape [2, 2, 6]; its first half.
    let (shape, repeated) =
        run("repeat", vec![("input", x()), ("sizes", ints(&[2, 1, 2]))]).unwrap();
    assert_eq!(shape, [2, 2, 6]);
    assert_eq!(
        repeated[..12],
        [0., 1., 2., 0., 1., 2., 3., 4., 5., 3., 4., 5.]
    );
    // torch.tile(x, (2,))
    let (shape, tiled) = run("tile", vec![("input", x()), ("dims", ints(&[2]))]).unwrap();
    assert_eq!(shape, [2, 6]);
    assert_eq!(tiled, [0., 1., 2., 0., 1., 2., 3., 4., 5., 3., 4., 5.]);
    assert!(
        error("repeat", vec![("input", x()), ("sizes", ints(&[2]))]).contains("can not be smaller")
    );
    // x.repeat_interleave(2), x.repeat_interleave(2, dim=0)
    assert_eq!(
        values(
            "repeat_interleave",
            vec![("input", x()), ("repeats", Value::Int(2))]
        ),
        [0., 0., 1., 1., 2., 2., 3., 3., 4., 4., 5., 5.]
    );
    assert_eq!(
        values(
            "repeat_interleave",
            vec![
                ("input", x()),
                ("repeats", Value::Int(2)),
                ("dim", Value::Int(0))
            ]
        ),
        [0., 1., 2., 0., 1., 2., 3., 4., 5., 3., 4., 5.]
    );
}

#[test]
fn gathering_and_selecting_follow_pytorch() {
    // torch.gather(x, 1, tensor([[0, 0], [1, 0]]))
    let index = matrix(&[&[0., 0.], &[1., 0.]]);
    assert_eq!(
        values(
            "gather",
            vec![("input", x()), ("dim", Value::Int(1)), ("index", index)]
        ),
        [0., 0., 4., 3.]
    );
    let out_of_bounds = matrix(&[&[3.]]);
    assert!(error(
        "gather",
        vec![
            ("input", x()),
            ("dim", Value::Int(1)),
            ("index", out_of_bounds)
        ]
    )
    .contains("out of bounds"));
    // torch.index_select(x, 1, tensor([2, 0]))
    let index = Value::tensor(ArrayD::from_shape_vec(IxDyn(&[2]), vec![2., 0.]).unwrap());
    assert_eq!(
        values(
            "index_select",
            vec![("input", x()), ("dim", Value::Int(1)), ("index", index)]
        ),
        [2., 0., 5., 3.]
    );
    // x.unbind(1): three columns.
    let columns = parts("unbind", vec![("input", x()), ("dim", Value::Int(1))]);
    assert_eq!(columns, [vec![0., 3.], vec![1., 4.], vec![2., 5.]]);
}

#[test]
fn sorting_follows_pytorch() {
    let scores = || matrix(&[&[1., 3., 2.], &[0., 5., 4.]]);
    // torch.topk(scores, 2)
    let top = parts(
        "topk",
        vec![
            ("input", scores()),
            ("k", Value::Int(2)),
            ("dim", Value::Int(-1)),
            ("largest", Value::Bool(true)),
        ],
    );
    assert_eq!(top, [vec![3., 2., 5., 4.], vec![1., 2., 1., 2.]]);
    // torch.sort(scores, dim=0, descending=True)
    let sorted = parts(
        "sort",
        vec![
            ("input", scores()),
            ("dim", Value::Int(0)),
            ("descending", Value::Bool(true)),
        ],
    );
    assert_eq!(
        sorted,
        [vec![1., 5., 4., 0., 3., 2.], vec![0., 1., 1., 1., 0., 0.]]
    );
    // torch.topk(tensor([1., 3., 2.]), 2, largest=False)
    let row = Value::tensor(ArrayD::from_shape_vec(IxDyn(&[3]), vec![1., 3., 2.]).unwrap());
    let smallest = parts(
        "topk",
        vec![
            ("input", row),
            ("k", Value::Int(2)),
            ("dim", Value::Int(-1)),
            ("largest", Value::Bool(false)),
        ],
    );
    assert_eq!(smallest, [vec![1., 2.], vec![0., 2.]]);
    assert!(error(
        "topk",
        vec![
            ("input", x()),
            ("k", Value::Int(4)),
            ("dim", Value::Int(-1))
        ]
    )
    .contains("out of range"));
}
