//! `torch.nn.functional`: `linear`, convolutions (and transposed ones),
//! pooling, adaptive pooling, `batch_norm`, `layer_norm`, `embedding`:
//! PyTorch's arithmetic of output sizes and its checks of channels;
//! resizing (`resize.rs`) and group normalisation (`norms.rs`).

mod norms;
mod resize;

pub(super) use norms::{group_norm, instance_norm};
pub(super) use resize::interpolate;

use tensorfit_base::TextRange;
use tensorfit_solver::{Formula, Term};

use super::{
    append, dims_of, leading, pair, require, require_channels, require_equal, require_positive,
    require_rank, require_rank_at_least, sizes, Args, RuleContext, Shape, Value,
};

/// The rule of `name`, one of this family's operations.
pub(super) fn apply(
    frame: &mut dyn RuleContext,
    name: &str,
    args: &Args,
    range: TextRange,
) -> Option<Value> {
    match name {
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
        "conv1d" | "conv2d" | "conv3d" => {
            let spatial = spatial_dims(name);
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
                stride: sizes(
                    frame,
                    args.get("stride"),
                    1,
                    spatial,
                    (name, "stride"),
                    range,
                )?,
                padding: padding(args.get("padding"), spatial)?,
                dilation: sizes(
                    frame,
                    args.get("dilation"),
                    1,
                    spatial,
                    (name, "dilation"),
                    range,
                )?,
            };
            Some(conv.apply(frame, &args.shape("input")?, &args.text("input"), range))
        }
        "max_pool1d" | "avg_pool1d" | "max_pool2d" | "avg_pool2d" => {
            let pool = Pool::from_args(name, args)?;
            Some(pool.apply(frame, &args.shape("input")?, &args.text("input"), range))
        }
        "adaptive_avg_pool1d" | "adaptive_avg_pool2d" => Some(adaptive_pool(
            frame,
            name,
            &args.shape("input")?,
            &args.text("input"),
            args.get("output_size"),
            range,
        )),
        "pad" => resize::pad(frame, args, range),
        "interpolate" => interpolate(frame, name, args, range),
        "group_norm" => {
            let weight = args.shape("weight").and_then(|w| w.dim(0));
            Some(group_norm(
                frame,
                name,
                &args.shape("input")?,
                &args.text("input"),
                args.int("num_groups").as_ref(),
                weight.as_ref().map(|w| (w, "weight.shape[0]")),
                range,
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
            if !require_rank(frame, &input, &[2, 3, 4, 5], name, &text, range) {
                return Some(Value::Unknown);
            }
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
        _ => None,
    }
}

pub(super) fn linear(
    frame: &mut dyn RuleContext,
    input: &Shape,
    text: &str,
    in_features: &Term,
    out_features: &Term,
    op: &str,
    range: TextRange,
) -> Shape {
    let input = frame.refine_shape(input);
    require_rank_at_least(
        frame,
        &input,
        1,
        range,
        format!("`{op}` needs an input with at least one dimension, but `{text}` has rank {{}}"),
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
    leading(frame, &input, 1)
        .concat(&Shape::known(vec![out_features.clone()]))
        .unwrap_or_else(|| frame.fresh_shape())
}

/// How many dimensions an operation named `..1d`, `..2d` or `..3d` works
/// over.
pub(super) fn spatial_dims(name: &str) -> usize {
    if name.ends_with("1d") {
        1
    } else if name.ends_with("3d") {
        3
    } else {
        2
    }
}

/// The ranks of an input over `spatial` dimensions: unbatched (channels
/// first) or batched.
pub(super) fn spatial_ranks(spatial: usize) -> [i64; 2] {
    [spatial as i64 + 1, spatial as i64 + 2]
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

/// A sliding window's kernel sizes, strides and dilations must all be
/// positive (PyTorch refuses the others when the operation runs); `false`
/// when one is a constant that is not, so the output sizes are unknown.
fn window_is_positive(
    frame: &mut dyn RuleContext,
    op: &str,
    [kernel, stride, dilation]: [&[Term]; 3],
    range: TextRange,
) -> bool {
    require_positive(frame, kernel, (op, "kernel size"), range)
        && require_positive(frame, stride, (op, "stride"), range)
        && require_positive(frame, dilation, (op, "dilation"), range)
}

pub(super) struct Conv<'s> {
    pub(super) op: &'s str,
    pub(super) spatial: usize,
    pub(super) in_channels: Term,
    pub(super) out_channels: Term,
    pub(super) kernel: Vec<Term>,
    pub(super) stride: Vec<Term>,
    pub(super) padding: Vec<Term>,
    pub(super) dilation: Vec<Term>,
}

impl Conv<'_> {
    pub(super) fn apply(
        &self,
        frame: &mut dyn RuleContext,
        input: &Shape,
        text: &str,
        range: TextRange,
    ) -> Value {
        let input = frame.refine_shape(input);
        if !window_is_positive(
            frame,
            self.op,
            [&self.kernel, &self.stride, &self.dilation],
            range,
        ) {
            return Value::Unknown;
        }
        let ranks = spatial_ranks(self.spatial);
        if !require_rank(frame, &input, &ranks, self.op, text, range) {
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
        let batch = leading(frame, &input, self.spatial + 1);
        Value::Tensor(append(frame, &batch, out))
    }
}

pub(super) struct Pool<'s> {
    pub(super) op: &'s str,
    /// How many dimensions it pools over (the last ones): 1 or 2.
    pub(super) spatial: usize,
    pub(super) kernel: Vec<Term>,
    pub(super) stride: Vec<Term>,
    pub(super) padding: Vec<Term>,
    pub(super) dilation: Vec<Term>,
    pub(super) ceil_mode: bool,
}

impl<'s> Pool<'s> {
    /// The pool of a functional call or of a layer (`op` its name, which
    /// ends in the number of dimensions it pools over); `None` when a
    /// parameter's value is not known.
    pub(super) fn from_args(op: &'s str, args: &Args) -> Option<Pool<'s>> {
        let spatial = spatial_dims(op);
        let kernel = pair(args.get("kernel_size"), 1, spatial)?;
        let stride = match args.get("stride") {
            Value::None | Value::Unknown => kernel.clone(),
            other => pair(other, 1, spatial)?,
        };
        Some(Pool {
            op,
            spatial,
            kernel,
            stride,
            padding: pair(args.get("padding"), 0, spatial)?,
            dilation: pair(args.get("dilation"), 1, spatial)?,
            ceil_mode: matches!(args.get("ceil_mode"), Value::Bool(Formula::Const(true))),
        })
    }

    pub(super) fn apply(
        &self,
        frame: &mut dyn RuleContext,
        input: &Shape,
        text: &str,
        range: TextRange,
    ) -> Value {
        let input = frame.refine_shape(input);
        if !window_is_positive(
            frame,
            self.op,
            [&self.kernel, &self.stride, &self.dilation],
            range,
        ) {
            return Value::Unknown;
        }
        if !require_rank(
            frame,
            &input,
            &spatial_ranks(self.spatial),
            self.op,
            text,
            range,
        ) {
            return Value::Unknown;
        }
        let mut out = Vec::new();
        for k in 0..self.spatial {
            let position = k as i64 - self.spatial as i64;
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
        let batch = leading(frame, &input, self.spatial);
        Value::Tensor(append(frame, &batch, out))
    }
}

/// Adaptive average pooling over the last one (`op` ends in `1d`) or two
/// dimensions: they become `output_size` (`None` keeps the input's).
pub(super) fn adaptive_pool(
    frame: &mut dyn RuleContext,
    op: &str,
    input: &Shape,
    text: &str,
    output_size: &Value,
    range: TextRange,
) -> Value {
    let spatial = spatial_dims(op);
    let input = frame.refine_shape(input);
    if !require_rank(frame, &input, &spatial_ranks(spatial), op, text, range) {
        return Value::Unknown;
    }
    let sizes: Vec<Term> = match output_size {
        Value::Int(t) => vec![t.clone(); spatial],
        Value::Tuple(items) | Value::List(items) if items.len() == spatial => items
            .iter()
            .enumerate()
            .map(|(k, v)| match v {
                Value::Int(t) => Some(t.clone()),
                Value::None => input.dim(k as i64 - spatial as i64),
                _ => None,
            })
            .collect::<Option<_>>()
            .unwrap_or_default(),
        _ => return Value::Unknown,
    };
    if sizes.len() != spatial {
        return Value::Unknown;
    }
    let batch = leading(frame, &input, spatial);
    Value::Tensor(append(frame, &batch, sizes))
}

/// Trailing dimensions of `input` must be `normalized_shape`.
pub(super) fn layer_norm(
    frame: &mut dyn RuleContext,
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
    require_rank_at_least(
        frame,
        input,
        n as i64,
        range,
        format!("layer normalisation over {n} dimensions needs `{text}` of rank at least {n}, but it has rank {{}}"),
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

/// A transposed convolution: each output size is
/// `(size - 1)·stride - 2·padding + dilation·(kernel - 1) + output_padding + 1`.
pub(super) struct Transposed<'s> {
    pub(super) op: &'s str,
    pub(super) in_channels: Term,
    pub(super) out_channels: Term,
    pub(super) kernel: Vec<Term>,
    pub(super) stride: Vec<Term>,
    pub(super) padding: Vec<Term>,
    pub(super) output_padding: Vec<Term>,
    pub(super) dilation: Vec<Term>,
}

impl Transposed<'_> {
    pub(super) fn apply(
        &self,
        frame: &mut dyn RuleContext,
        input: &Shape,
        text: &str,
        range: TextRange,
    ) -> Value {
        let input = frame.refine_shape(input);
        if !window_is_positive(
            frame,
            self.op,
            [&self.kernel, &self.stride, &self.dilation],
            range,
        ) {
            return Value::Unknown;
        }
        for k in 0..2 {
            let (pad, stride, dilation) =
                (&self.output_padding[k], &self.stride[k], &self.dilation[k]);
            require(
                frame,
                Formula::or([Formula::lt(pad, stride), Formula::lt(pad, dilation)]),
                range,
                format!(
                    "`{}`: output padding must be smaller than either stride or dilation, but output_padding = {{}}, stride = {{}}, dilation = {{}}",
                    self.op
                ),
                vec![pad.clone(), stride.clone(), dilation.clone()],
            );
        }
        if !require_rank(frame, &input, &[3, 4], self.op, text, range) {
            return Value::Unknown;
        }
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
        let batch = leading(frame, &input, 3);
        Value::Tensor(append(frame, &batch, out))
    }
}
