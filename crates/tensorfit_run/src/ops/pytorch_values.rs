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
    let (shape, repeated) = run(
        "repeat",
        vec![("input", x()), ("repeats", ints(&[2, 1, 2]))],
    )
    .unwrap();
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
        error("repeat", vec![("input", x()), ("repeats", ints(&[2]))])
            .contains("can not be smaller")
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

fn tensor(shape: &[usize], data: Vec<f32>) -> Value {
    Value::tensor(ArrayD::from_shape_vec(IxDyn(shape), data).unwrap())
}

fn text(s: &str) -> Value {
    Value::Str(Rc::from(s))
}

#[test]
fn padding_follows_pytorch() {
    // x = torch.arange(6.).reshape(1, 2, 3)
    let x = || tensor(&[1, 2, 3], (0..6).map(|i| i as f32).collect());
    // F.pad(x, (1, 1), mode='reflect')
    assert_eq!(
        values(
            "pad",
            vec![
                ("input", x()),
                ("pad", ints(&[1, 1])),
                ("mode", text("reflect"))
            ]
        ),
        [1., 0., 1., 2., 1., 4., 3., 4., 5., 4.]
    );
    // mode='replicate', mode='circular'
    assert_eq!(
        values(
            "pad",
            vec![
                ("input", x()),
                ("pad", ints(&[1, 1])),
                ("mode", text("replicate"))
            ]
        ),
        [0., 0., 1., 2., 2., 3., 3., 4., 5., 5.]
    );
    assert_eq!(
        values(
            "pad",
            vec![
                ("input", x()),
                ("pad", ints(&[1, 1])),
                ("mode", text("circular"))
            ]
        ),
        [2., 0., 1., 2., 0., 5., 3., 4., 5., 3.]
    );
    // F.pad(x, (-1, 0)): cropped.
    assert_eq!(
        values("pad", vec![("input", x()), ("pad", ints(&[-1, 0]))]),
        [1., 2., 4., 5.]
    );
    // F.pad(x, (1, 2, 1, 0), value=9): shape [1, 3, 6].
    let (shape, padded) = run(
        "pad",
        vec![
            ("input", x()),
            ("pad", ints(&[1, 2, 1, 0])),
            ("value", Value::Float(9.0)),
        ],
    )
    .unwrap();
    assert_eq!(shape, [1, 3, 6]);
    assert_eq!(padded[..7], [9., 9., 9., 9., 9., 9., 9.]);
    // F.pad(torch.zeros(3), (1, 1), mode='reflect') raises.
    let line = tensor(&[3], vec![0.; 3]);
    assert!(error(
        "pad",
        vec![
            ("input", line),
            ("pad", ints(&[1, 1])),
            ("mode", text("reflect"))
        ]
    )
    .contains("rank 2 or 3"));
}

#[test]
fn interpolation_follows_pytorch() {
    // y = torch.arange(4.).reshape(1, 1, 4)
    let y = || tensor(&[1, 1, 4], vec![0., 1., 2., 3.]);
    let resize = |extra: Vec<(&str, Value)>| {
        let mut args = vec![("input", y())];
        args.extend(extra);
        values("interpolate", args)
    };
    // scale_factor=2; size=6 (nearest)
    assert_eq!(
        resize(vec![("scale_factor", Value::Int(2))]),
        [0., 0., 1., 1., 2., 2., 3., 3.]
    );
    assert_eq!(
        resize(vec![("size", Value::Int(6))]),
        [0., 0., 1., 2., 2., 3.]
    );
    // mode='linear', without and with align_corners; scale_factor=1.5
    let linear = [0., 0.5, 1.1667, 1.8333, 2.5, 3.];
    assert_eq!(
        resize(vec![("size", Value::Int(6)), ("mode", text("linear"))]),
        linear
    );
    assert_eq!(
        resize(vec![
            ("size", Value::Int(6)),
            ("mode", text("linear")),
            ("align_corners", Value::Bool(true))
        ]),
        [0., 0.6, 1.2, 1.8, 2.4, 3.]
    );
    assert_eq!(
        resize(vec![
            ("scale_factor", Value::Float(1.5)),
            ("mode", text("linear"))
        ]),
        linear
    );
    // mode='area', mode='nearest-exact'
    assert_eq!(
        resize(vec![("size", Value::Int(3)), ("mode", text("area"))]),
        [0.5, 1.5, 2.5]
    );
    assert_eq!(
        resize(vec![
            ("size", Value::Int(6)),
            ("mode", text("nearest-exact"))
        ]),
        [0., 1., 1., 2., 3., 3.]
    );
    // x4 = torch.arange(6.).reshape(1, 1, 2, 3), size=(3, 4): bilinear, bicubic
    let x4 = || tensor(&[1, 1, 2, 3], (0..6).map(|i| i as f32).collect());
    assert_eq!(
        values(
            "interpolate",
            vec![
                ("input", x4()),
                ("size", ints(&[3, 4])),
                ("mode", text("bilinear"))
            ]
        ),
        [0., 0.625, 1.375, 2., 1.5, 2.125, 2.875, 3.5, 3., 3.625, 4.375, 5.]
    );
    assert_eq!(
        values(
            "interpolate",
            vec![
                ("input", x4()),
                ("size", ints(&[3, 4])),
                ("mode", text("bicubic"))
            ]
        ),
        [
            -0.3322, 0.2694, 1.2098, 1.8114, 1.4282, 2.0298, 2.9702, 3.5718, 3.1886, 3.7902,
            4.7306, 5.3322
        ]
    );
    // torch.zeros(1, 1, 5) with scale_factor 0.5 and 1.7: sizes 2 and 8.
    for (factor, size) in [(0.5, 2), (1.7, 8)] {
        let (shape, _) = run(
            "interpolate",
            vec![
                ("input", tensor(&[1, 1, 5], vec![0.; 5])),
                ("scale_factor", Value::Float(factor)),
            ],
        )
        .unwrap();
        assert_eq!(shape, [1, 1, size]);
    }
    assert!(error(
        "interpolate",
        vec![
            ("input", x4()),
            ("size", ints(&[3, 3])),
            ("mode", text("linear"))
        ]
    )
    .contains("needs a 3-D input"));
}

#[test]
fn pixel_shuffle_follows_pytorch() {
    // F.pixel_shuffle(torch.arange(8.).reshape(1, 4, 1, 2), 2)
    let t = tensor(&[1, 4, 1, 2], (0..8).map(|i| i as f32).collect());
    let (shape, shuffled) = run(
        "pixel_shuffle",
        vec![("input", t), ("upscale_factor", Value::Int(2))],
    )
    .unwrap();
    assert_eq!(shape, [1, 1, 2, 4]);
    assert_eq!(shuffled, [0., 2., 1., 3., 4., 6., 5., 7.]);
}

#[test]
fn group_and_instance_normalisation_follow_pytorch() {
    // x = torch.tensor([[[1., 2.], [3., 5.], [0., 4.], [2., 2.]]])
    let x = || tensor(&[1, 4, 2], vec![1., 2., 3., 5., 0., 4., 2., 2.]);
    // F.group_norm(x, 2) (the second group is ±√2, printed as ±1.4142)
    let root_two = (std::f32::consts::SQRT_2 * 10_000.0).round() / 10_000.0;
    assert_eq!(
        values(
            "group_norm",
            vec![
                ("input", x()),
                ("num_groups", Value::Int(2)),
                ("eps", Value::Float(1e-5))
            ]
        ),
        [-1.1832, -0.5071, 0.169, 1.5213, -root_two, root_two, 0., 0.]
    );
    // nn.InstanceNorm1d(4)(x)
    let x = x();
    let normalised =
        super::nn::norms::instance_norm(&x.as_tensor().unwrap(), "InstanceNorm1d", 4, false, 1e-5)
            .unwrap();
    let rounded: Vec<f32> = normalised
        .iter()
        .map(|v| (v * 10_000.0).round() / 10_000.0)
        .collect();
    assert_eq!(rounded, [-1., 1., -1., 1., -1., 1., 0., 0.]);
}

#[test]
fn products_follow_pytorch() {
    // torch.tensordot(arange(24.).reshape(2, 3, 4), arange(12.).reshape(4, 3), dims=([1, 2], [1, 0]))
    let a = || tensor(&[2, 3, 4], (0..24).map(|i| i as f32).collect());
    let b = tensor(&[4, 3], (0..12).map(|i| i as f32).collect());
    let dims = Value::List(Rc::new(vec![ints(&[1, 2]), ints(&[1, 0])]));
    assert_eq!(
        values("tensordot", vec![("a", a()), ("b", b), ("dims", dims)]),
        [440., 1232.]
    );
    // dims=0: the tensor product.
    let (shape, _) = run(
        "tensordot",
        vec![
            ("a", tensor(&[2], vec![0., 1.])),
            ("b", tensor(&[3], vec![0., 1., 2.])),
            ("dims", Value::Int(0)),
        ],
    )
    .unwrap();
    assert_eq!(shape, [2, 3]);
    // torch.baddbmm(ones(3), arange(4.).reshape(1, 2, 2), ones(1, 2, 3), beta=2, alpha=0.5)
    assert_eq!(
        values(
            "baddbmm",
            vec![
                ("input", tensor(&[3], vec![1.; 3])),
                ("batch1", tensor(&[1, 2, 2], vec![0., 1., 2., 3.])),
                ("batch2", tensor(&[1, 2, 3], vec![1.; 6])),
                ("beta", Value::Float(2.0)),
                ("alpha", Value::Float(0.5)),
            ]
        ),
        [2.5, 2.5, 2.5, 4.5, 4.5, 4.5]
    );
    // softmax(q @ k.transpose(-1, -2) / sqrt(2)) @ v
    let q = tensor(&[1, 3, 2], vec![1., 0., 0., 1., 1., 1.]);
    let k = tensor(&[1, 2, 2], vec![1., 0., 0., 1.]);
    let v = tensor(&[1, 2, 2], vec![1., 2., 3., 4.]);
    assert_eq!(
        values(
            "scaled_dot_product_attention",
            vec![
                ("query", q),
                ("key", k),
                ("value", v),
                ("is_causal", Value::Bool(false))
            ]
        ),
        [1.6605, 2.6605, 2.3395, 3.3395, 2., 3.]
    );
}

#[test]
fn conv3d_follows_pytorch() {
    // x = (arange(2*3*4*5*5.).reshape(2, 3, 4, 5, 5) % 7 - 3) * 0.1
    // w = (arange(4*3*3*2*3.).reshape(4, 3, 3, 2, 3) % 5 - 2) * 0.1
    // F.conv3d(x, w, tensor([0.1, -0.2, 0.3, 0.]), stride=(1, 2, 1), padding=(1, 0, 1))
    let x = tensor(
        &[2, 3, 4, 5, 5],
        (0..600).map(|i| ((i % 7) as f32 - 3.0) * 0.1).collect(),
    );
    let w = tensor(
        &[4, 3, 3, 2, 3],
        (0..216).map(|i| ((i % 5) as f32 - 2.0) * 0.1).collect(),
    );
    let b = tensor(&[4], vec![0.1, -0.2, 0.3, 0.0]);
    let (shape, out) = run(
        "conv3d",
        vec![
            ("input", x),
            ("weight", w),
            ("bias", b),
            ("stride", ints(&[1, 2, 1])),
            ("padding", ints(&[1, 0, 1])),
            ("dilation", Value::Int(1)),
            ("groups", Value::Int(1)),
        ],
    )
    .unwrap();
    assert_eq!(shape, [2, 4, 4, 2, 5]);
    let first: Vec<f32> = out[..5]
        .iter()
        .map(|v| (v * 10_000.0).round() / 10_000.0)
        .collect();
    assert_eq!(first, [-0.02, 0.13, 0.34, -0.08, -0.1]);
    let total: f32 = out.iter().sum();
    assert!((total - 17.42).abs() < 1e-2, "{total}");
}

#[test]
fn max_with_a_dim_gives_values_and_positions() {
    // torch.max(torch.tensor([[1., 3., 2.], [0., 5., 4.]]), 1)
    let scores = matrix(&[&[1., 3., 2.], &[0., 5., 4.]]);
    let pair = parts("max", vec![("input", scores), ("dim", Value::Int(1))]);
    assert_eq!(pair, [vec![3., 5.], vec![1., 1.]]);
    let scores = matrix(&[&[1., 3., 2.], &[0., 5., 4.]]);
    let pair = parts("min", vec![("input", scores), ("dim", Value::Int(0))]);
    assert_eq!(pair, [vec![0., 3., 2.], vec![1., 0., 0.]]);
}
