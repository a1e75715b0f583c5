//! Built-in shape rules of prelude operations whose rule the contract
//! language cannot state: PyTorch's broadcasting, `matmul`, `reshape` with
//! `-1`, convolution and pooling arithmetic, reductions with `dim` and
//! `keepdim`, joins of lists, and the layers. Each rule states the
//! operation's requirements as preconditions and returns the result's shape.
//! Everything else is a contract in `prelude.tensor`.

use tensorfit_base::TextRange;
use tensorfit_solver::{Formula, Term};

use super::exec::Frame;
use super::fact::{Explain, FactKind};
use super::value::{Layer, Shape, Value};
use crate::registry::{self, Family};

/// A call's arguments by parameter name, with the source text of each.
pub struct Args {
    items: Vec<(String, Value, String)>,
}

impl Args {
    pub fn new(items: Vec<(String, Value, String)>) -> Args {
        Args { items }
    }

    /// The argument bound to parameter `name`; `None` (as not given) when
    /// the operation has no such parameter, so its default applies.
    pub fn get(&self, name: &str) -> &Value {
        self.items
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, v, _)| v)
            .unwrap_or(&Value::None)
    }

    pub fn items(&self) -> &[(String, Value, String)] {
        &self.items
    }

    pub fn text(&self, name: &str) -> String {
        self.items
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, _, t)| t.clone())
            .unwrap_or_else(|| name.to_owned())
    }

    fn int(&self, name: &str) -> Option<Term> {
        self.get(name).as_int().cloned()
    }

    fn shape(&self, name: &str) -> Option<Shape> {
        match self.get(name) {
            Value::Tensor(shape) => Some(shape.clone()),
            _ => None,
        }
    }

    pub fn into_pairs(self) -> Vec<(String, Value)> {
        self.items.into_iter().map(|(n, v, _)| (n, v)).collect()
    }

    pub fn into_triples(self) -> Vec<(String, Value, String)> {
        self.items
    }
}

/// Requires `a == b`, explained as `{what}: {left} = a but {right} = b`.
pub(super) fn require_equal(
    frame: &mut Frame<'_, '_>,
    a: &Term,
    b: &Term,
    what: &str,
    left: String,
    right: String,
    range: TextRange,
) {
    frame.require(
        Formula::eq(a, b),
        FactKind::Precondition,
        range,
        Explain::Equal {
            what: what.to_owned(),
            left: (left, a.clone()),
            right: (right, b.clone()),
        },
    );
}

pub(super) fn require(
    frame: &mut Frame<'_, '_>,
    formula: Formula,
    range: TextRange,
    template: String,
    terms: Vec<Term>,
) {
    frame.require(
        formula,
        FactKind::Precondition,
        range,
        Explain::Text { template, terms },
    );
}

/// Normalises a dimension argument (negative counts from the end).
fn axis(
    frame: &mut Frame<'_, '_>,
    dim: &Term,
    rank: usize,
    op: &str,
    range: TextRange,
) -> Option<usize> {
    let d = dim.as_const()?;
    let rank_i = rank as i64;
    if d < -rank_i.max(1) || d >= rank_i.max(1) {
        require(
            frame,
            Formula::truth(false),
            range,
            format!("dimension {d} is out of range for `{op}` on a tensor of rank {rank}"),
            vec![],
        );
        return None;
    }
    // A scalar takes dimensions -1 and 0 as PyTorch does, but has no
    // dimension to index: the callers index the dimensions with the axis,
    // so a scalar's result is left unknown (never wrong, never a panic).
    if rank == 0 {
        return None;
    }
    Some(if d < 0 {
        (d + rank_i) as usize
    } else {
        d as usize
    })
}

pub(super) fn dims_of(frame: &Frame<'_, '_>, shape: &Shape) -> Option<Vec<Term>> {
    frame.refine_shape(shape).dims().map(<[Term]>::to_vec)
}

fn product(dims: &[Term]) -> Term {
    dims.iter().fold(Term::int(1), |p, d| Term::mul(&p, d))
}

/// Requires `shape` to have one of `ranks`.
fn require_rank(
    frame: &mut Frame<'_, '_>,
    shape: &Shape,
    ranks: &[i64],
    op: &str,
    text: &str,
    range: TextRange,
) {
    let rank = shape.rank();
    let allowed: Vec<String> = ranks.iter().map(i64::to_string).collect();
    require(
        frame,
        Formula::or(
            ranks
                .iter()
                .map(|r| Formula::eq(&rank, &Term::int(*r)))
                .collect::<Vec<_>>(),
        ),
        range,
        format!(
            "`{op}` expects an input of rank {}, but `{text}` has rank {{}}",
            allowed.join(" or ")
        ),
        vec![rank.clone()],
    );
}

/// Requires the channel dimension (at `index`) to be `in_channels`; false
/// when the input has no such dimension.
fn require_channels(
    frame: &mut Frame<'_, '_>,
    input: &Shape,
    index: i64,
    in_channels: &Term,
    op: &str,
    text: &str,
    range: TextRange,
) -> bool {
    let Some(channels) = input.dim(index) else {
        return false;
    };
    let what = format!("`{op}` gets the wrong number of input channels");
    require_equal(
        frame,
        &channels,
        in_channels,
        &what,
        format!("{text}.shape[{index}]"),
        "in_channels".to_owned(),
        range,
    );
    true
}

/// `prefix ++ dims`, or an unknown shape when that cannot be stated.
fn append(frame: &Frame<'_, '_>, prefix: &Shape, dims: Vec<Term>) -> Shape {
    prefix
        .concat(&Shape::known(dims))
        .unwrap_or_else(|| Shape::opaque(frame.analysis.vars.fresh()))
}

/// PyTorch broadcasting of two shapes (aligned from the right).
pub fn broadcast(
    frame: &mut Frame<'_, '_>,
    a: &Shape,
    b: &Shape,
    texts: (&str, &str),
    range: TextRange,
) -> Shape {
    let (Some(x), Some(y)) = (dims_of(frame, a), dims_of(frame, b)) else {
        if dims_of(frame, a).is_some_and(|d| d.is_empty()) {
            return b.clone();
        }
        if dims_of(frame, b).is_some_and(|d| d.is_empty()) {
            return a.clone();
        }
        return if a == b {
            a.clone()
        } else {
            Shape::opaque(frame.analysis.vars.fresh())
        };
    };
    let n = x.len().max(y.len());
    let mut result = Vec::with_capacity(n);
    for i in 0..n {
        let p = (i + x.len()).checked_sub(n).map(|k| x[k].clone());
        let q = (i + y.len()).checked_sub(n).map(|k| y[k].clone());
        let dim = match (p, q) {
            (Some(p), None) => p,
            (None, Some(q)) => q,
            (Some(p), Some(q)) => {
                let one = Term::int(1);
                if p == q || q == one {
                    p
                } else if p == one {
                    q
                } else {
                    let position = i as i64 - n as i64;
                    frame.require(
                        Formula::or([Formula::eq(&p, &q), Formula::eq(&p, &one), Formula::eq(&q, &one)]),
                        FactKind::Precondition,
                        range,
                        Explain::Text {
                            template: format!(
                                "cannot broadcast `{}` with `{}`: dimension {position} is {{}} in one and {{}} in the other",
                                texts.0, texts.1
                            ),
                            terms: vec![p.clone(), q.clone()],
                        },
                    );
                    Term::ite(&Formula::eq(&p, &one), &q, &p)
                }
            }
            (None, None) => Term::int(1),
        };
        result.push(dim);
    }
    Shape::known(result)
}

/// Dimensions from a size argument: `zeros(2, 3)`, `zeros([2, 3])`.
fn size_dims(
    frame: &mut Frame<'_, '_>,
    value: &Value,
    op: &str,
    range: TextRange,
) -> Option<Vec<Term>> {
    let dims = value.as_dims()?;
    let dims = frame.refine_shape(&dims).dims()?.to_vec();
    for (i, d) in dims.iter().enumerate() {
        require(
            frame,
            Formula::ge(d, &Term::int(1)),
            range,
            format!("`{op}` needs positive sizes, but size {i} is {{}}"),
            vec![d.clone()],
        );
    }
    Some(dims)
}

/// A pair argument (`3` or `(3, 5)`) for the two spatial dimensions.
fn pair(value: &Value, default: i64, count: usize) -> Option<Vec<Term>> {
    match value {
        Value::Int(t) => Some(vec![t.clone(); count]),
        Value::Tuple(items) | Value::List(items) if items.len() == count => {
            items.iter().map(|v| v.as_int().cloned()).collect()
        }
        Value::None => Some(vec![Term::int(default); count]),
        // Unknown (a missing argument, a value not modelled) is not the
        // default: guessing it would show wrong shapes and report clashes
        // that exist only because of the guess.
        _ => None,
    }
}

/// The built-in rule of a prelude function, if it has one.
pub fn apply(
    frame: &mut Frame<'_, '_>,
    name: &str,
    args: &Args,
    range: TextRange,
) -> Option<Value> {
    let tensor = |shape: Option<Shape>| Some(shape.map(Value::Tensor).unwrap_or(Value::Unknown));
    match name {
        "zeros" | "ones" | "randn" | "rand" | "empty" => {
            tensor(size_dims(frame, args.get("size"), name, range).map(Shape::known))
        }
        "full" => tensor(size_dims(frame, args.get("size"), name, range).map(Shape::known)),
        "eye" => {
            let n = args.int("n")?;
            let m = args.int("m").unwrap_or_else(|| n.clone());
            Some(Value::Tensor(Shape::known(vec![n, m])))
        }
        "arange" => {
            let (start, end) = match args.int("end") {
                Some(end) => (args.int("start")?, end),
                None => (Term::int(0), args.int("start")?),
            };
            let step = args.int("step").unwrap_or(Term::int(1));
            let length = Term::div(
                &Term::add(&Term::sub(&end, &start), &Term::sub(&step, &Term::int(1))),
                &step,
            );
            require(
                frame,
                Formula::ge(&length, &Term::int(1)),
                range,
                "`arange` would be empty: {} elements".to_owned(),
                vec![length.clone()],
            );
            Some(Value::Tensor(Shape::known(vec![length])))
        }
        "add" | "sub" | "mul" | "div" | "maximum" | "minimum" | "pow" | "eq" | "ne" | "lt"
        | "le" | "gt" | "ge" | "masked_fill" => {
            let other = match name {
                "pow" => "exponent",
                "masked_fill" => "mask",
                _ => "other",
            };
            let (a, b) = (
                args.get("input").tensor_shape()?,
                args.get(other).tensor_shape()?,
            );
            Some(Value::Tensor(broadcast(
                frame,
                &a,
                &b,
                (&args.text("input"), &args.text(other)),
                range,
            )))
        }
        "where" => {
            let c = args.get("condition").tensor_shape()?;
            let a = args.get("input").tensor_shape()?;
            let b = args.get("other").tensor_shape()?;
            let ab = broadcast(
                frame,
                &a,
                &b,
                (&args.text("input"), &args.text("other")),
                range,
            );
            Some(Value::Tensor(broadcast(
                frame,
                &c,
                &ab,
                (&args.text("condition"), "the values"),
                range,
            )))
        }
        "matmul" => Some(matmul(frame, args, range)),
        "max" | "min" if matches!(args.get("dim"), Value::Tensor(_)) => {
            let (a, b) = (args.shape("input")?, args.shape("dim")?);
            Some(Value::Tensor(broadcast(
                frame,
                &a,
                &b,
                (&args.text("input"), &args.text("dim")),
                range,
            )))
        }
        "sum" | "mean" | "max" | "min" | "prod" | "argmax" | "norm" => {
            reduce(frame, name, args, range)
        }
        "reshape" | "view" => reshape(frame, name, args, range),
        "flatten" => flatten(frame, args, range),
        "squeeze" => squeeze(frame, args, range),
        "unsqueeze" => {
            let dims = dims_of(frame, &args.shape("input")?)?;
            let d = args.int("dim")?.as_const()?;
            let rank = dims.len() as i64 + 1;
            if d < -rank || d >= rank {
                require(
                    frame,
                    Formula::truth(false),
                    range,
                    format!(
                        "`unsqueeze` dimension {d} is out of range for {} dimensions",
                        dims.len()
                    ),
                    vec![],
                );
                return Some(Value::Unknown);
            }
            let at = if d < 0 { d + rank } else { d } as usize;
            let mut out = dims;
            out.insert(at, Term::int(1));
            Some(Value::Tensor(Shape::known(out)))
        }
        "transpose" => {
            let shape = args.shape("input")?;
            let (a, b) = (args.int("dim0")?, args.int("dim1")?);
            let Some(dims) = dims_of(frame, &shape) else {
                return Some(Value::Tensor(Shape::opaque(frame.analysis.vars.fresh())));
            };
            let (i, j) = (
                axis(frame, &a, dims.len(), name, range)?,
                axis(frame, &b, dims.len(), name, range)?,
            );
            let mut out = dims;
            out.swap(i, j);
            Some(Value::Tensor(Shape::known(out)))
        }
        "t" => {
            let dims = dims_of(frame, &args.shape("input")?)?;
            require(
                frame,
                Formula::le(&Term::int(dims.len() as i64), &Term::int(2)),
                range,
                format!(
                    "`t` expects at most 2 dimensions, but `{}` has {}",
                    args.text("input"),
                    dims.len()
                ),
                vec![],
            );
            Some(Value::Tensor(Shape::known(
                dims.into_iter().rev().collect(),
            )))
        }
        "permute" => {
            let dims = dims_of(frame, &args.shape("input")?)?;
            let order = args.get("dims").as_dims()?;
            let order: Vec<i64> = order
                .dims()?
                .iter()
                .map(Term::as_const)
                .collect::<Option<_>>()?;
            let mut seen = vec![false; dims.len()];
            let mut out = Vec::new();
            if order.len() != dims.len() {
                require(
                    frame,
                    Formula::truth(false),
                    range,
                    format!(
                        "`permute` needs {} dimensions for `{}`, but {} were given",
                        dims.len(),
                        args.text("input"),
                        order.len()
                    ),
                    vec![],
                );
                return Some(Value::Unknown);
            }
            for d in order {
                let i = axis(frame, &Term::int(d), dims.len(), name, range)?;
                if std::mem::replace(&mut seen[i], true) {
                    require(
                        frame,
                        Formula::truth(false),
                        range,
                        format!("`permute` repeats dimension {i}"),
                        vec![],
                    );
                    return Some(Value::Unknown);
                }
                out.push(dims[i].clone());
            }
            Some(Value::Tensor(Shape::known(out)))
        }
        "expand" | "broadcast_to" => {
            let key = if name == "expand" { "size" } else { "shape" };
            let input = dims_of(frame, &args.shape("input")?)?;
            let target = args.get(key).as_dims()?.dims()?.to_vec();
            let offset = target.len().checked_sub(input.len())?;
            let mut out = target.clone();
            for (i, d) in input.iter().enumerate() {
                let t = &target[i + offset];
                if t.as_const() == Some(-1) {
                    out[i + offset] = d.clone();
                } else {
                    require(
                        frame,
                        Formula::or([Formula::eq(d, t), Formula::eq(d, &Term::int(1))]),
                        range,
                        format!("`{name}` cannot grow dimension {i} of size {{}} to {{}}"),
                        vec![d.clone(), t.clone()],
                    );
                }
            }
            Some(Value::Tensor(Shape::known(out)))
        }
        "cat" | "stack" => join(frame, name, args, range),
        "narrow" => {
            let dims = dims_of(frame, &args.shape("input")?)?;
            let i = axis(frame, &args.int("dim")?, dims.len(), name, range)?;
            let (start, length) = (args.int("start")?, args.int("length")?);
            require(
                frame,
                Formula::le(&Term::add(&start, &length), &dims[i]),
                range,
                "`narrow` reads past the end: start + length = {} but the dimension is {}"
                    .to_owned(),
                vec![Term::add(&start, &length), dims[i].clone()],
            );
            let mut out = dims;
            out[i] = length;
            Some(Value::Tensor(Shape::known(out)))
        }
        "size" => {
            let shape = args.shape("input")?;
            match args.get("dim") {
                Value::Int(d) => {
                    let d = d.as_const()?;
                    require(
                        frame,
                        shape.index_in_range(d),
                        range,
                        format!(
                            "`size({d})` is out of range for `{}` of rank {{}}",
                            args.text("input")
                        ),
                        vec![shape.rank()],
                    );
                    Some(Value::Int(
                        shape.dim(d).unwrap_or_else(|| frame.fresh_int()),
                    ))
                }
                _ => Some(Value::Shape(shape)),
            }
        }
        "dim" => Some(Value::Int(args.shape("input")?.rank())),
        "numel" => {
            let shape = args.shape("input")?;
            Some(Value::Int(match dims_of(frame, &shape) {
                Some(dims) => product(&dims),
                None => frame.fresh_dim(range),
            }))
        }
        "linear" => {
            let input = args.shape("input")?;
            let weight = dims_of(frame, &args.shape("weight")?)?;
            let [out_features, in_features] = weight.as_slice() else {
                return Some(Value::Unknown);
            };
            Some(Value::Tensor(linear(
                frame,
                &input,
                &args.text("input"),
                in_features,
                out_features,
                "linear",
                range,
            )))
        }
        "conv1d" | "conv2d" => {
            let spatial = if name == "conv1d" { 1 } else { 2 };
            let weight = dims_of(frame, &args.shape("weight")?)?;
            if weight.len() != spatial + 2 {
                return Some(Value::Unknown);
            }
            let groups = args.int("groups").unwrap_or(Term::int(1));
            let conv = Conv {
                op: name,
                spatial,
                in_channels: Term::mul(&weight[1], &groups),
                out_channels: weight[0].clone(),
                kernel: weight[2..].to_vec(),
                stride: pair(args.get("stride"), 1, spatial)?,
                padding: padding(args.get("padding"), spatial)?,
                dilation: pair(args.get("dilation"), 1, spatial)?,
            };
            Some(conv.apply(frame, &args.shape("input")?, &args.text("input"), range))
        }
        "max_pool2d" | "avg_pool2d" => {
            let kernel = pair(args.get("kernel_size"), 1, 2)?;
            let stride = match args.get("stride") {
                Value::None | Value::Unknown => kernel.clone(),
                other => pair(other, 1, 2)?,
            };
            let pool = Pool {
                op: name,
                kernel,
                stride,
                padding: pair(args.get("padding"), 0, 2)?,
                dilation: pair(args.get("dilation"), 1, 2)?,
                ceil_mode: matches!(args.get("ceil_mode"), Value::Bool(Formula::Const(true))),
            };
            Some(pool.apply(frame, &args.shape("input")?, &args.text("input"), range))
        }
        "adaptive_avg_pool2d" => Some(adaptive_pool(
            frame,
            &args.shape("input")?,
            &args.text("input"),
            args.get("output_size"),
            range,
        )),
        "outer" => {
            let (a, b) = (args.shape("input")?, args.shape("vec2")?);
            Some(Value::Tensor(
                frame
                    .refine_shape(&a)
                    .concat(&frame.refine_shape(&b))
                    .unwrap_or_else(|| Shape::opaque(frame.analysis.vars.fresh())),
            ))
        }
        "conv_transpose2d" => {
            let weight = dims_of(frame, &args.shape("weight")?)?;
            let [cin, cout_per_group, kh, kw] = weight.as_slice() else {
                return Some(Value::Unknown);
            };
            let groups = args.int("groups").unwrap_or(Term::int(1));
            let transposed = Transposed {
                op: name,
                in_channels: cin.clone(),
                out_channels: Term::mul(cout_per_group, &groups),
                kernel: vec![kh.clone(), kw.clone()],
                stride: pair(args.get("stride"), 1, 2)?,
                padding: pair(args.get("padding"), 0, 2)?,
                output_padding: pair(args.get("output_padding"), 0, 2)?,
                dilation: pair(args.get("dilation"), 1, 2)?,
            };
            Some(transposed.apply(frame, &args.shape("input")?, &args.text("input"), range))
        }
        "batch_norm" => {
            let input = frame.refine_shape(&args.shape("input")?);
            let text = args.text("input");
            require_rank(frame, &input, &[2, 3, 4, 5], name, &text, range);
            if let (Some(channels), Some(stats)) = (
                input.dim(1),
                args.shape("running_mean").and_then(|s| s.dim(0)),
            ) {
                require_equal(
                    frame,
                    &channels,
                    &stats,
                    "`batch_norm` gets the wrong number of channels",
                    format!("{text}.shape[1]"),
                    "running_mean.shape[0]".to_owned(),
                    range,
                );
            }
            Some(Value::Tensor(input))
        }
        "layer_norm" => {
            let input = frame.refine_shape(&args.shape("input")?);
            layer_norm(
                frame,
                &input,
                &args.text("input"),
                args.get("normalized_shape"),
                range,
            );
            Some(Value::Tensor(input))
        }
        "embedding" => {
            let input = frame.refine_shape(&args.shape("input")?);
            let weight = dims_of(frame, &args.shape("weight")?)?;
            let [_, dim] = weight.as_slice() else {
                return Some(Value::Unknown);
            };
            Some(Value::Tensor(append(frame, &input, vec![dim.clone()])))
        }
        "split" | "chunk" => split(frame, name, args, range),
        "einsum" => Some(Value::Unknown),
        DEFERRED_LAYER => apply_deferred_layer(frame, args, range),
        _ if registry::operation(name).is_some_and(|op| op.family == Family::Algebra) => {
            super::algebra::apply(frame, name, args, range)
        }
        // The join of an `if` whose branches give differently built shapes.
        "select" => {
            let (Value::Bool(c), a, b) =
                (args.get("condition"), args.get("input"), args.get("other"))
            else {
                return Some(Value::Unknown);
            };
            Some(match c.as_const() {
                Some(true) => a.clone(),
                Some(false) => b.clone(),
                None => Value::Tensor(Shape::opaque(frame.analysis.vars.fresh())),
            })
        }
        _ => None,
    }
}

fn linear(
    frame: &mut Frame<'_, '_>,
    input: &Shape,
    text: &str,
    in_features: &Term,
    out_features: &Term,
    op: &str,
    range: TextRange,
) -> Shape {
    let input = frame.refine_shape(input);
    require(
        frame,
        Formula::ge(&input.rank(), &Term::int(1)),
        range,
        format!("`{op}` needs an input with at least one dimension, but `{text}` has rank {{}}"),
        vec![input.rank()],
    );
    if let Some(last) = input.dim(-1) {
        require_equal(
            frame,
            &last,
            in_features,
            &format!("`{op}` gets the wrong number of input features"),
            format!("{text}.shape[-1]"),
            "in_features".to_owned(),
            range,
        );
    }
    input
        .slice(0, 1)
        .concat(&Shape::known(vec![out_features.clone()]))
        .unwrap_or_else(|| Shape::opaque(frame.analysis.vars.fresh()))
}

fn padding(value: &Value, spatial: usize) -> Option<Vec<Term>> {
    match value {
        Value::Str(_) => None,
        other => pair(other, 0, spatial),
    }
}

/// `(size + 2·padding - dilation·(kernel - 1) - 1) / stride + 1`, rounded
/// down (or up with `ceil_mode`).
fn window_output(
    size: &Term,
    kernel: &Term,
    stride: &Term,
    padding: &Term,
    dilation: &Term,
    ceil: bool,
) -> Term {
    let span = Term::sub(
        &Term::sub(
            &Term::add(size, &Term::mul(&Term::int(2), padding)),
            &Term::mul(dilation, &Term::sub(kernel, &Term::int(1))),
        ),
        &Term::int(1),
    );
    if ceil {
        let up = Term::add(
            &Term::div(&Term::add(&span, &Term::sub(stride, &Term::int(1))), stride),
            &Term::int(1),
        );
        // PyTorch drops a last window that would start in the right padding.
        let starts_in_padding = Formula::ge(
            &Term::mul(&Term::sub(&up, &Term::int(1)), stride),
            &Term::add(size, padding),
        );
        Term::ite(&starts_in_padding, &Term::sub(&up, &Term::int(1)), &up)
    } else {
        Term::add(&Term::div(&span, stride), &Term::int(1))
    }
}

struct Conv<'s> {
    op: &'s str,
    spatial: usize,
    in_channels: Term,
    out_channels: Term,
    kernel: Vec<Term>,
    stride: Vec<Term>,
    padding: Vec<Term>,
    dilation: Vec<Term>,
}

impl Conv<'_> {
    fn apply(
        &self,
        frame: &mut Frame<'_, '_>,
        input: &Shape,
        text: &str,
        range: TextRange,
    ) -> Value {
        let input = frame.refine_shape(input);
        let low = self.spatial as i64 + 1;
        require_rank(frame, &input, &[low, low + 1], self.op, text, range);
        if input
            .rank()
            .as_const()
            .is_some_and(|r| r != low && r != low + 1)
        {
            return Value::Unknown;
        }
        let channel_index = -(self.spatial as i64) - 1;
        if !require_channels(
            frame,
            &input,
            channel_index,
            &self.in_channels,
            self.op,
            text,
            range,
        ) {
            return Value::Unknown;
        }
        let mut out = vec![self.out_channels.clone()];
        for k in 0..self.spatial {
            let position = k as i64 - self.spatial as i64;
            let Some(size) = input.dim(position) else {
                return Value::Unknown;
            };
            let o = window_output(
                &size,
                &self.kernel[k],
                &self.stride[k],
                &self.padding[k],
                &self.dilation[k],
                false,
            );
            require(
                frame,
                Formula::ge(&o, &Term::int(1)),
                range,
                format!("`{}` has no output: `{text}` is too small along dimension {position} ({{}}) for the kernel", self.op),
                vec![size.clone()],
            );
            out.push(o);
        }
        let batch = input.slice(0, self.spatial + 1);
        Value::Tensor(append(frame, &batch, out))
    }
}

struct Pool<'s> {
    op: &'s str,
    kernel: Vec<Term>,
    stride: Vec<Term>,
    padding: Vec<Term>,
    dilation: Vec<Term>,
    ceil_mode: bool,
}

impl Pool<'_> {
    fn apply(
        &self,
        frame: &mut Frame<'_, '_>,
        input: &Shape,
        text: &str,
        range: TextRange,
    ) -> Value {
        let input = frame.refine_shape(input);
        require_rank(frame, &input, &[3, 4], self.op, text, range);
        let mut out = Vec::new();
        for k in 0..2 {
            let position = k as i64 - 2;
            let Some(size) = input.dim(position) else {
                return Value::Unknown;
            };
            require(
                frame,
                Formula::le(&Term::mul(&Term::int(2), &self.padding[k]), &self.kernel[k]),
                range,
                format!(
                    "`{}`: padding {{}} is more than half the kernel size {{}}",
                    self.op
                ),
                vec![self.padding[k].clone(), self.kernel[k].clone()],
            );
            let o = window_output(
                &size,
                &self.kernel[k],
                &self.stride[k],
                &self.padding[k],
                &self.dilation[k],
                self.ceil_mode,
            );
            require(
                frame,
                Formula::ge(&o, &Term::int(1)),
                range,
                format!("`{}` has no output: `{text}` is too small along dimension {position} ({{}}) for the kernel", self.op),
                vec![size.clone()],
            );
            out.push(o);
        }
        let batch = input.slice(0, 2);
        Value::Tensor(append(frame, &batch, out))
    }
}

fn adaptive_pool(
    frame: &mut Frame<'_, '_>,
    input: &Shape,
    text: &str,
    output_size: &Value,
    range: TextRange,
) -> Value {
    let input = frame.refine_shape(input);
    require_rank(frame, &input, &[3, 4], "adaptive_avg_pool2d", text, range);
    let sizes: Vec<Term> = match output_size {
        Value::Int(t) => vec![t.clone(), t.clone()],
        Value::Tuple(items) | Value::List(items) if items.len() == 2 => items
            .iter()
            .enumerate()
            .map(|(k, v)| match v {
                Value::Int(t) => Some(t.clone()),
                Value::None => input.dim(k as i64 - 2),
                _ => None,
            })
            .collect::<Option<_>>()
            .unwrap_or_default(),
        _ => return Value::Unknown,
    };
    if sizes.len() != 2 {
        return Value::Unknown;
    }
    let batch = input.slice(0, 2);
    Value::Tensor(append(frame, &batch, sizes))
}

fn matmul(frame: &mut Frame<'_, '_>, args: &Args, range: TextRange) -> Value {
    let (Some(a), Some(b)) = (
        args.get("input").tensor_shape(),
        args.get("other").tensor_shape(),
    ) else {
        return Value::Unknown;
    };
    let (ta, tb) = (args.text("input"), args.text("other"));
    let (Some(x), Some(y)) = (dims_of(frame, &a), dims_of(frame, &b)) else {
        return Value::Tensor(Shape::opaque(frame.analysis.vars.fresh()));
    };
    if x.is_empty() || y.is_empty() {
        require(frame, Formula::truth(false), range, format!("`matmul` needs tensors with at least one dimension, but `{ta}` has {} and `{tb}` has {}", x.len(), y.len()), vec![]);
        return Value::Unknown;
    }
    let inner_a = x[x.len() - 1].clone();
    let inner_b = if y.len() == 1 {
        y[0].clone()
    } else {
        y[y.len() - 2].clone()
    };
    require_equal(
        frame,
        &inner_a,
        &inner_b,
        "shape mismatch in matrix multiplication",
        format!("{ta}.shape[-1]"),
        format!("{tb}.shape[{}]", if y.len() == 1 { "0" } else { "-2" }),
        range,
    );
    let out = match (x.len(), y.len()) {
        (1, 1) => vec![],
        (2, 1) => vec![x[0].clone()],
        (1, 2) => vec![y[1].clone()],
        (2, 2) => vec![x[0].clone(), y[1].clone()],
        _ => {
            let batch_a = if x.len() > 2 {
                Shape::known(x[..x.len() - 2].to_vec())
            } else {
                Shape::scalar()
            };
            let batch_b = if y.len() > 2 {
                Shape::known(y[..y.len() - 2].to_vec())
            } else {
                Shape::scalar()
            };
            let batch = broadcast(frame, &batch_a, &batch_b, (&ta, &tb), range);
            let mut out = batch.dims().map(<[Term]>::to_vec).unwrap_or_default();
            if x.len() >= 2 {
                out.push(x[x.len() - 2].clone());
            }
            if y.len() >= 2 {
                out.push(y[y.len() - 1].clone());
            }
            out
        }
    };
    Value::Tensor(Shape::known(out))
}

fn reduce(frame: &mut Frame<'_, '_>, name: &str, args: &Args, range: TextRange) -> Option<Value> {
    let shape = args.shape("input")?;
    let keepdim = matches!(args.get("keepdim"), Value::Bool(Formula::Const(true)));
    let axes: Vec<Term> = match args.get("dim") {
        Value::None => return Some(Value::Tensor(Shape::scalar())),
        Value::Int(d) => vec![d.clone()],
        Value::List(items) | Value::Tuple(items) => items
            .iter()
            .map(|v| v.as_int().cloned())
            .collect::<Option<_>>()?,
        _ => return Some(Value::Unknown),
    };
    let dims = dims_of(frame, &shape)?;
    let mut removed = Vec::new();
    for d in &axes {
        removed.push(axis(frame, d, dims.len(), name, range)?);
    }
    let out = dims
        .into_iter()
        .enumerate()
        .filter_map(|(i, d)| match (removed.contains(&i), keepdim) {
            (false, _) => Some(d),
            (true, true) => Some(Term::int(1)),
            (true, false) => None,
        })
        .collect();
    Some(Value::Tensor(Shape::known(out)))
}

fn reshape(frame: &mut Frame<'_, '_>, name: &str, args: &Args, range: TextRange) -> Option<Value> {
    let input = frame.refine_shape(&args.shape("input")?);
    let target = args.get("shape").as_dims()?;
    let target = target.dims()?.to_vec();
    let numel = match input.dims() {
        Some(dims) => product(dims),
        None => {
            // The element count of a tensor of unknown rank cannot be
            // stated; the operation is checked again at each call, where
            // the rank is known. Its result does not depend on the rank.
            frame.defer(name, args.items().to_vec(), range);
            frame.fresh_dim(range)
        }
    };
    let holes: Vec<usize> = target
        .iter()
        .enumerate()
        .filter(|(_, d)| d.as_const() == Some(-1))
        .map(|(i, _)| i)
        .collect();
    let text = args.text("input");
    // Every size but the inferred one is a real size: positive (a symbolic
    // size that were -1 would be a second inferred dimension).
    for (i, size) in target.iter().enumerate() {
        if holes.contains(&i) {
            continue;
        }
        require(
            frame,
            Formula::ge(size, &Term::int(1)),
            range,
            format!("`{name}`: size {{}} in position {i} is not a positive size"),
            vec![size.clone()],
        );
    }
    // Symbolic sizes are shown with the values the failure forces on them.
    let shown: Vec<String> = target
        .iter()
        .map(|t| {
            t.as_const()
                .map(|c| c.to_string())
                .unwrap_or_else(|| "{}".into())
        })
        .collect();
    let symbolic = |at: Option<usize>| -> Vec<Term> {
        target
            .iter()
            .enumerate()
            .filter(|(i, t)| Some(*i) != at && t.as_const().is_none())
            .map(|(_, t)| t.clone())
            .collect()
    };
    match holes.as_slice() {
        [] => {
            let total = product(&target);
            require(
                frame,
                Formula::eq(&numel, &total),
                range,
                format!(
                    "cannot `{name}` `{text}` with {{}} elements into [{}] ({{}} elements)",
                    shown.join(", ")
                ),
                [vec![numel.clone()], symbolic(None), vec![total.clone()]].concat(),
            );
            Some(Value::Tensor(Shape::known(target)))
        }
        [at] => {
            let known: Vec<Term> = target
                .iter()
                .enumerate()
                .filter(|(i, _)| i != at)
                .map(|(_, d)| d.clone())
                .collect();
            let rest = product(&known);
            require(
                frame,
                Formula::eq(&Term::rem(&numel, &rest), &Term::int(0)),
                range,
                format!("cannot `{name}` `{text}` with {{}} elements into [{}]: {{}} does not divide it", shown.join(", ")),
                [vec![numel.clone()], symbolic(Some(*at)), vec![rest.clone()]].concat(),
            );
            let mut out = target;
            out[*at] = Term::div(&numel, &rest);
            Some(Value::Tensor(Shape::known(out)))
        }
        _ => {
            require(
                frame,
                Formula::truth(false),
                range,
                format!(
                    "`{name}` can infer only one dimension, but -1 appears {} times",
                    holes.len()
                ),
                vec![],
            );
            Some(Value::Unknown)
        }
    }
}

fn flatten(frame: &mut Frame<'_, '_>, args: &Args, range: TextRange) -> Option<Value> {
    let dims = dims_of(frame, &args.shape("input")?)?;
    if dims.is_empty() {
        return Some(Value::Tensor(Shape::known(vec![Term::int(1)])));
    }
    let start = axis(
        frame,
        &args.int("start_dim").unwrap_or(Term::int(0)),
        dims.len(),
        "flatten",
        range,
    )?;
    let end = axis(
        frame,
        &args.int("end_dim").unwrap_or(Term::int(-1)),
        dims.len(),
        "flatten",
        range,
    )?;
    if start > end {
        require(
            frame,
            Formula::truth(false),
            range,
            format!("`flatten`: start_dim {start} comes after end_dim {end}"),
            vec![],
        );
        return Some(Value::Unknown);
    }
    let mut out = dims[..start].to_vec();
    out.push(product(&dims[start..=end]));
    out.extend(dims[end + 1..].iter().cloned());
    Some(Value::Tensor(Shape::known(out)))
}

fn squeeze(frame: &mut Frame<'_, '_>, args: &Args, range: TextRange) -> Option<Value> {
    let dims = dims_of(frame, &args.shape("input")?)?;
    match args.get("dim") {
        Value::Int(d) => {
            let i = axis(frame, d, dims.len(), "squeeze", range)?;
            let mut out = dims;
            match out[i].as_const() {
                Some(1) => {
                    out.remove(i);
                }
                Some(_) => {}
                None => return Some(Value::Tensor(Shape::opaque(frame.analysis.vars.fresh()))),
            }
            Some(Value::Tensor(Shape::known(out)))
        }
        _ => {
            if dims.iter().any(|d| d.as_const().is_none()) {
                return Some(Value::Tensor(Shape::opaque(frame.analysis.vars.fresh())));
            }
            Some(Value::Tensor(Shape::known(
                dims.into_iter()
                    .filter(|d| d.as_const() != Some(1))
                    .collect(),
            )))
        }
    }
}

fn join(frame: &mut Frame<'_, '_>, name: &str, args: &Args, range: TextRange) -> Option<Value> {
    let (Value::List(items) | Value::Tuple(items)) = args.get("tensors") else {
        return Some(Value::Unknown);
    };
    let shapes: Vec<Vec<Term>> = items
        .iter()
        .map(|v| v.tensor_shape().and_then(|s| dims_of(frame, &s)))
        .collect::<Option<_>>()?;
    let first = shapes.first()?.clone();
    if name == "cat" {
        if let Some(k) = shapes.iter().position(Vec::is_empty) {
            require(
                frame,
                Formula::truth(false),
                range,
                format!("`cat`: tensor {k} has no dimensions; a zero-dimensional tensor cannot be concatenated"),
                vec![],
            );
            return Some(Value::Unknown);
        }
    }
    let rank = first.len() + usize::from(name == "stack");
    let d = axis(
        frame,
        &args.int("dim").unwrap_or(Term::int(0)),
        rank,
        name,
        range,
    )?;
    for (k, shape) in shapes.iter().enumerate().skip(1) {
        if shape.len() != first.len() {
            require(
                frame,
                Formula::truth(false),
                range,
                format!(
                    "`{name}`: tensor {k} has {} dimensions but tensor 0 has {}",
                    shape.len(),
                    first.len()
                ),
                vec![],
            );
            return Some(Value::Unknown);
        }
        for (i, (a, b)) in first.iter().zip(shape).enumerate() {
            if name == "cat" && i == d {
                continue;
            }
            require_equal(
                frame,
                b,
                a,
                &format!("`{name}` needs equal sizes in dimension {i}"),
                format!("tensor {k}"),
                "tensor 0".to_owned(),
                range,
            );
        }
    }
    let mut out = first;
    if name == "cat" {
        out[d] = shapes
            .iter()
            .fold(Term::int(0), |sum, s| Term::add(&sum, &s[d]));
    } else {
        out.insert(d, Term::int(shapes.len() as i64));
    }
    Some(Value::Tensor(Shape::known(out)))
}

/// Trailing dimensions of `input` must be `normalized_shape`.
fn layer_norm(
    frame: &mut Frame<'_, '_>,
    input: &Shape,
    text: &str,
    normalized_shape: &Value,
    range: TextRange,
) {
    let Some(normalized) = normalized_shape
        .as_dims()
        .and_then(|s| s.dims().map(<[Term]>::to_vec))
    else {
        return;
    };
    let n = normalized.len();
    require(
        frame,
        Formula::ge(&input.rank(), &Term::int(n as i64)),
        range,
        format!("layer normalisation over {n} dimensions needs `{text}` of rank at least {n}, but it has rank {{}}"),
        vec![input.rank()],
    );
    for (k, expected) in normalized.iter().enumerate() {
        let position = k as i64 - n as i64;
        if let Some(actual) = input.dim(position) {
            require_equal(
                frame,
                &actual,
                expected,
                "`LayerNorm` gets the wrong trailing shape",
                format!("{text}.shape[{position}]"),
                format!("normalized_shape[{k}]"),
                range,
            );
        }
    }
}

/// `split(t, size, dim)` and `chunk(t, chunks, dim)`: a tuple of tensors,
/// when the split dimension is known.
fn split(frame: &mut Frame<'_, '_>, name: &str, args: &Args, range: TextRange) -> Option<Value> {
    let key = if name == "split" { "tensor" } else { "input" };
    let dims = dims_of(frame, &args.shape(key)?)?;
    let d = axis(
        frame,
        &args.int("dim").unwrap_or(Term::int(0)),
        dims.len(),
        name,
        range,
    )?;
    let total = dims[d].clone();
    let known = total.as_const();
    // The sizes of the parts: by arithmetic when the dimension is known;
    // when it is symbolic, only where it is a known multiple of the part
    // size (nanoGPT's `split(n_embd)` of a `3·n_embd` projection).
    let sizes: Vec<Term> = match (
        name,
        args.get(if name == "split" {
            "split_size_or_sections"
        } else {
            "chunks"
        }),
    ) {
        ("split", Value::Int(size)) => match (known, size.as_const()) {
            (Some(total), Some(size)) if size > 0 => (0..total)
                .step_by(size as usize)
                .map(|start| Term::int(size.min(total - start)))
                .collect(),
            _ => match total.multiple_of(size) {
                Some(parts) if parts > 0 => vec![size.clone(); parts as usize],
                _ => return Some(Value::Unknown),
            },
        },
        ("split", Value::List(sections) | Value::Tuple(sections)) => {
            let sections: Vec<Term> = sections
                .iter()
                .map(|v| v.as_int().cloned())
                .collect::<Option<_>>()?;
            let sum = sections.iter().fold(Term::int(0), |a, b| Term::add(&a, b));
            require_equal(
                frame,
                &sum,
                &dims[d],
                "`split` sections must add up to the dimension",
                "their sum".to_owned(),
                format!("dimension {d}"),
                range,
            );
            sections
        }
        ("chunk", Value::Int(chunks)) => {
            let chunks = chunks.as_const().filter(|c| *c > 0)?;
            match known {
                Some(total) => {
                    let size = (total + chunks - 1) / chunks;
                    (0..total)
                        .step_by(size.max(1) as usize)
                        .map(|start| Term::int(size.min(total - start)))
                        .collect()
                }
                None => {
                    // Equal parts when `chunks` divides every coefficient.
                    let part = Term::div(&total, &Term::int(chunks));
                    if Term::mul(&part, &Term::int(chunks)) != total {
                        return Some(Value::Unknown);
                    }
                    vec![part; chunks as usize]
                }
            }
        }
        _ => return Some(Value::Unknown),
    };
    let parts = sizes
        .into_iter()
        .map(|size| {
            let mut out = dims.clone();
            out[d] = size;
            Value::Tensor(Shape::known(out))
        })
        .collect();
    Some(Value::Tuple(parts))
}

/// A transposed convolution: each output size is
/// `(size - 1)·stride - 2·padding + dilation·(kernel - 1) + output_padding + 1`.
struct Transposed<'s> {
    op: &'s str,
    in_channels: Term,
    out_channels: Term,
    kernel: Vec<Term>,
    stride: Vec<Term>,
    padding: Vec<Term>,
    output_padding: Vec<Term>,
    dilation: Vec<Term>,
}

impl Transposed<'_> {
    fn apply(
        &self,
        frame: &mut Frame<'_, '_>,
        input: &Shape,
        text: &str,
        range: TextRange,
    ) -> Value {
        let input = frame.refine_shape(input);
        require_rank(frame, &input, &[3, 4], self.op, text, range);
        if !require_channels(frame, &input, -3, &self.in_channels, self.op, text, range) {
            return Value::Unknown;
        }
        let mut out = vec![self.out_channels.clone()];
        for k in 0..2 {
            let Some(size) = input.dim(k as i64 - 2) else {
                return Value::Unknown;
            };
            let grown = Term::mul(&Term::sub(&size, &Term::int(1)), &self.stride[k]);
            let o = Term::add(
                &Term::add(
                    &Term::sub(&grown, &Term::mul(&Term::int(2), &self.padding[k])),
                    &Term::mul(
                        &self.dilation[k],
                        &Term::sub(&self.kernel[k], &Term::int(1)),
                    ),
                ),
                &Term::add(&self.output_padding[k], &Term::int(1)),
            );
            require(
                frame,
                Formula::ge(&o, &Term::int(1)),
                range,
                format!(
                    "`{}` has no output along dimension {} ({{}})",
                    self.op,
                    k as i64 - 2
                ),
                vec![o.clone()],
            );
            out.push(o);
        }
        Value::Tensor(append(frame, &input.slice(0, 3), out))
    }
}

/// `MultiheadAttention(query, key, value)`: `(output, weights)`.
fn attention(
    frame: &mut Frame<'_, '_>,
    layer: &Layer,
    args: &[(Value, String)],
    range: TextRange,
) -> Value {
    let embed = layer.arg("embed_dim").and_then(Value::as_int).cloned();
    let heads = layer.arg("num_heads").and_then(Value::as_int).cloned();
    let batch_first = matches!(
        layer.arg("batch_first"),
        Some(Value::Bool(Formula::Const(true)))
    );
    let (Some(embed), Some(heads)) = (embed, heads) else {
        return Value::Unknown;
    };
    require(
        frame,
        Formula::eq(&Term::rem(&embed, &heads), &Term::int(0)),
        range,
        "`MultiheadAttention`: embed_dim ({}) is not divisible by num_heads ({})".to_owned(),
        vec![embed.clone(), heads.clone()],
    );
    let shapes: Vec<Vec<Term>> = args
        .iter()
        .take(3)
        .filter_map(|(v, _)| v.tensor_shape().and_then(|s| dims_of(frame, &s)))
        .collect();
    let [query, key, value] = shapes.as_slice() else {
        return Value::Unknown;
    };
    let texts: Vec<&str> = args.iter().map(|(_, t)| t.as_str()).collect();
    for (shape, text) in [(query, texts[0]), (key, texts[1]), (value, texts[2])] {
        if shape.len() != 2 && shape.len() != 3 {
            require(
                frame,
                Formula::truth(false),
                range,
                format!(
                    "`MultiheadAttention` expects rank 2 or 3, but `{text}` has rank {}",
                    shape.len()
                ),
                vec![],
            );
            return Value::Unknown;
        }
    }
    let kdim = layer
        .arg("kdim")
        .and_then(Value::as_int)
        .cloned()
        .unwrap_or_else(|| embed.clone());
    let vdim = layer
        .arg("vdim")
        .and_then(Value::as_int)
        .cloned()
        .unwrap_or_else(|| embed.clone());
    let last = |s: &Vec<Term>| s[s.len() - 1].clone();
    require_equal(
        frame,
        &last(query),
        &embed,
        "`MultiheadAttention` gets the wrong query width",
        format!("{}.shape[-1]", texts[0]),
        "embed_dim".to_owned(),
        range,
    );
    require_equal(
        frame,
        &last(key),
        &kdim,
        "`MultiheadAttention` gets the wrong key width",
        format!("{}.shape[-1]", texts[1]),
        "kdim".to_owned(),
        range,
    );
    require_equal(
        frame,
        &last(value),
        &vdim,
        "`MultiheadAttention` gets the wrong value width",
        format!("{}.shape[-1]", texts[2]),
        "vdim".to_owned(),
        range,
    );
    // Sequence and batch positions: (L, N) or, with batch_first, (N, L).
    let (seq, batch) = if query.len() == 2 {
        (0, None)
    } else if batch_first {
        (1, Some(0))
    } else {
        (0, Some(1))
    };
    require_equal(
        frame,
        &key[seq],
        &value[seq],
        "`MultiheadAttention`: key and value lengths differ",
        format!("{}.shape[{seq}]", texts[1]),
        format!("{}.shape[{seq}]", texts[2]),
        range,
    );
    if let Some(b) = batch {
        require_equal(
            frame,
            &key[b],
            &query[b],
            "`MultiheadAttention`: batch sizes differ",
            format!("{}.shape[{b}]", texts[1]),
            format!("{}.shape[{b}]", texts[0]),
            range,
        );
    }
    let output = Value::Tensor(Shape::known(query.clone()));
    let weights = match batch {
        Some(b) => vec![query[b].clone(), query[seq].clone(), key[seq].clone()],
        None => vec![query[seq].clone(), key[seq].clone()],
    };
    Value::Tuple(vec![output, Value::Tensor(Shape::known(weights))])
}

/// The operation name under which a layer call is deferred.
pub const DEFERRED_LAYER: &str = "<layer call>";

/// Keeps a layer call on a tensor of unknown rank for each call of the
/// function being summarised, where the rank is known. Attention's weights
/// are not kept: only its output (the first of the pair) is.
fn defer_layer(
    frame: &mut Frame<'_, '_>,
    layer: &Layer,
    inputs: Vec<(String, Value, String)>,
    range: TextRange,
) -> Value {
    let mut bound = vec![(
        "layer".to_owned(),
        Value::Layer(std::sync::Arc::new(layer.clone())),
        String::new(),
    )];
    bound.extend(inputs);
    let output = frame.defer(DEFERRED_LAYER, bound, range);
    if layer.kind == "MultiheadAttention" {
        Value::Tuple(vec![output, Value::Unknown])
    } else {
        output
    }
}

/// Applies a deferred layer call (see [`defer_layer`]) once its inputs'
/// ranks are known.
fn apply_deferred_layer(frame: &mut Frame<'_, '_>, args: &Args, range: TextRange) -> Option<Value> {
    let Value::Layer(layer) = args.get("layer") else {
        return None;
    };
    let layer = layer.clone();
    let inputs: Vec<(Value, String)> = args
        .items()
        .iter()
        .filter(|(name, _, _)| name != "layer")
        .map(|(_, value, text)| (value.clone(), text.clone()))
        .collect();
    Some(match call_layer(frame, &layer, inputs, range) {
        Value::Tuple(mut items) if !items.is_empty() => items.swap_remove(0),
        other => other,
    })
}

/// Calling a prelude layer.
pub fn call_layer(
    frame: &mut Frame<'_, '_>,
    layer: &Layer,
    args: Vec<(Value, String)>,
    range: TextRange,
) -> Value {
    let Some((input, text)) = args.first().cloned() else {
        return Value::Unknown;
    };
    if registry::needs_known_ranks(&layer.kind, false) {
        let bound: Vec<(String, Value, String)> = args
            .iter()
            .enumerate()
            .map(|(k, (value, text))| (format!("input{k}"), value.clone(), text.clone()))
            .collect();
        if frame.has_opaque_tensor(&bound) {
            return defer_layer(frame, layer, bound, range);
        }
    }
    // A parameter the layer does not have is not given: its default applies.
    let arg = |name: &str| layer.arg(name).cloned().unwrap_or(Value::None);
    match layer.kind.as_str() {
        "ReLU" | "ReLU6" | "LeakyReLU" | "SiLU" | "GELU" | "Sigmoid" | "Tanh" | "Dropout"
        | "Identity" | "Softmax" => input,
        "Sequential" => {
            let layers = match arg("layers") {
                Value::List(items) | Value::Tuple(items) => items,
                _ => return Value::Unknown,
            };
            layers.iter().fold(input, |value, layer| {
                frame.apply_to(layer, value, &text, range)
            })
        }
        "Linear" => {
            let (Some(shape), Value::Int(i), Value::Int(o)) = (
                input.tensor_shape(),
                arg("in_features"),
                arg("out_features"),
            ) else {
                return Value::Unknown;
            };
            Value::Tensor(linear(frame, &shape, &text, &i, &o, "Linear", range))
        }
        "Conv1d" | "Conv2d" => {
            let spatial = if layer.kind == "Conv1d" { 1 } else { 2 };
            let (Value::Int(cin), Value::Int(cout)) = (arg("in_channels"), arg("out_channels"))
            else {
                return Value::Unknown;
            };
            let Some(shape) = input.tensor_shape() else {
                return Value::Unknown;
            };
            let Some(kernel) = pair(&arg("kernel_size"), 1, spatial) else {
                return Value::Unknown;
            };
            let (Some(stride), Some(dilation)) = (
                pair(&arg("stride"), 1, spatial),
                pair(&arg("dilation"), 1, spatial),
            ) else {
                return Value::Unknown;
            };
            let padding = match arg("padding") {
                Value::Str(mode) if mode == "valid" => vec![Term::int(0); spatial],
                // "same": the output keeps the input's size (stride 1).
                Value::Str(_) => kernel
                    .iter()
                    .zip(&dilation)
                    .map(|(k, d)| {
                        Term::div(&Term::mul(d, &Term::sub(k, &Term::int(1))), &Term::int(2))
                    })
                    .collect(),
                other => match pair(&other, 0, spatial) {
                    Some(p) => p,
                    None => return Value::Unknown,
                },
            };
            let groups = arg("groups").as_int().cloned().unwrap_or(Term::int(1));
            for (what, channels) in [("in_channels", &cin), ("out_channels", &cout)] {
                require(
                    frame,
                    Formula::eq(&Term::rem(channels, &groups), &Term::int(0)),
                    range,
                    format!(
                        "`{}`: {what} ({{}}) is not divisible by groups ({{}})",
                        layer.kind
                    ),
                    vec![channels.clone(), groups.clone()],
                );
            }
            let conv = Conv {
                op: &layer.kind,
                spatial,
                in_channels: cin,
                out_channels: cout,
                kernel,
                stride,
                padding,
                dilation,
            };
            conv.apply(frame, &shape, &text, range)
        }
        "MaxPool2d" | "AvgPool2d" => {
            let Some(shape) = input.tensor_shape() else {
                return Value::Unknown;
            };
            let Some(kernel) = pair(&arg("kernel_size"), 1, 2) else {
                return Value::Unknown;
            };
            let stride = match arg("stride") {
                Value::None | Value::Unknown => kernel.clone(),
                other => match pair(&other, 1, 2) {
                    Some(s) => s,
                    None => return Value::Unknown,
                },
            };
            let (Some(padding), Some(dilation)) =
                (pair(&arg("padding"), 0, 2), pair(&arg("dilation"), 1, 2))
            else {
                return Value::Unknown;
            };
            let ceil_mode = matches!(arg("ceil_mode"), Value::Bool(Formula::Const(true)));
            Pool {
                op: &layer.kind,
                kernel,
                stride,
                padding,
                dilation,
                ceil_mode,
            }
            .apply(frame, &shape, &text, range)
        }
        "AdaptiveAvgPool2d" => {
            let Some(shape) = input.tensor_shape() else {
                return Value::Unknown;
            };
            adaptive_pool(frame, &shape, &text, &arg("output_size"), range)
        }
        "BatchNorm1d" | "BatchNorm2d" => {
            let Some(shape) = input.tensor_shape() else {
                return Value::Unknown;
            };
            let shape = frame.refine_shape(&shape);
            let ranks: &[i64] = if layer.kind == "BatchNorm1d" {
                &[2, 3]
            } else {
                &[4]
            };
            require_rank(frame, &shape, ranks, &layer.kind, &text, range);
            if let (Value::Int(features), Some(channels)) = (arg("num_features"), shape.dim(1)) {
                require_equal(
                    frame,
                    &channels,
                    &features,
                    &format!("`{}` gets the wrong number of channels", layer.kind),
                    format!("{text}.shape[1]"),
                    "num_features".to_owned(),
                    range,
                );
            }
            Value::Tensor(shape)
        }
        "MultiheadAttention" => attention(frame, layer, &args, range),
        "ConvTranspose2d" => {
            let (Value::Int(cin), Value::Int(cout)) = (arg("in_channels"), arg("out_channels"))
            else {
                return Value::Unknown;
            };
            let Some(shape) = input.tensor_shape() else {
                return Value::Unknown;
            };
            let parts = (
                pair(&arg("kernel_size"), 1, 2),
                pair(&arg("stride"), 1, 2),
                pair(&arg("padding"), 0, 2),
                pair(&arg("output_padding"), 0, 2),
                pair(&arg("dilation"), 1, 2),
            );
            let (Some(kernel), Some(stride), Some(padding), Some(output_padding), Some(dilation)) =
                parts
            else {
                return Value::Unknown;
            };
            Transposed {
                op: "ConvTranspose2d",
                in_channels: cin,
                out_channels: cout,
                kernel,
                stride,
                padding,
                output_padding,
                dilation,
            }
            .apply(frame, &shape, &text, range)
        }
        "LayerNorm" => {
            let Some(shape) = input.tensor_shape() else {
                return Value::Unknown;
            };
            let shape = frame.refine_shape(&shape);
            layer_norm(frame, &shape, &text, &arg("normalized_shape"), range);
            Value::Tensor(shape)
        }
        "Flatten" => {
            let start = arg("start_dim");
            let end = arg("end_dim");
            let args = Args::new(vec![
                ("input".into(), input, text),
                (
                    "start_dim".into(),
                    if matches!(start, Value::Unknown) {
                        Value::Int(Term::int(1))
                    } else {
                        start
                    },
                    String::new(),
                ),
                (
                    "end_dim".into(),
                    if matches!(end, Value::Unknown) {
                        Value::Int(Term::int(-1))
                    } else {
                        end
                    },
                    String::new(),
                ),
            ]);
            flatten(frame, &args, range).unwrap_or(Value::Unknown)
        }
        "Embedding" => {
            let (Some(shape), Value::Int(dim)) = (input.tensor_shape(), arg("embedding_dim"))
            else {
                return Value::Unknown;
            };
            Value::Tensor(
                frame
                    .refine_shape(&shape)
                    .concat(&Shape::known(vec![dim]))
                    .unwrap_or_else(|| Shape::opaque(frame.analysis.vars.fresh())),
            )
        }
        _ => Value::Unknown,
    }
}
