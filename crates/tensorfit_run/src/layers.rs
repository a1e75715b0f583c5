//! Layer values (`torch.nn` modules): built by their constructors with
//! random weights, applied by calling them. Layers run in evaluation mode
//! (docs/interpreter.md).

use std::rc::Rc;

use ndarray::{s, Array2, ArrayD, Axis, IxDyn};

use crate::error::{Failure, Outcome};
use crate::ops::nn::{self, ConvSpec, PoolSpec};
use crate::ops::{self, elementwise, linalg, reduce, shape, Args, OpContext};
use crate::recurrent::Recurrent;
use crate::value::{dims_text, Tensor, Value};
use tensorfit_semantics::registry;

#[derive(Debug)]
#[allow(clippy::enum_variant_names)] // `LayerNorm` is PyTorch's name.
pub enum Layer {
    Linear {
        weight: Tensor,
        bias: Option<Tensor>,
    },
    Conv {
        spatial: usize,
        weight: Tensor,
        bias: Option<Tensor>,
        spec: ConvSpec,
    },
    ConvTranspose2d {
        weight: Tensor,
        bias: Option<Tensor>,
        spec: ConvSpec,
        output_padding: Vec<i64>,
    },
    Pool(PoolSpec),
    AdaptiveAvgPool {
        kind: &'static str,
        sizes: Vec<Option<i64>>,
    },
    /// A layer whose forward is a functional operation with the layer's
    /// arguments (`Upsample` is `interpolate`, `GroupNorm` `group_norm`).
    Functional {
        kind: &'static str,
        op: &'static str,
        args: Vec<(String, Value)>,
    },
    InstanceNorm {
        kind: &'static str,
        features: usize,
        affine: bool,
        eps: f32,
    },
    BatchNorm {
        expected_ranks: &'static [usize],
        name: &'static str,
        features: usize,
        eps: f32,
    },
    LayerNorm {
        shape: Vec<i64>,
        eps: f32,
    },
    Embedding {
        weight: Tensor,
    },
    MultiheadAttention(Box<Attention>),
    Recurrent(Box<Recurrent>),
    /// ReLU, GELU, Dropout, Softmax, ...: `kind` is the prelude name.
    Activation {
        kind: &'static str,
        parameter: f64,
        dim: Option<i64>,
    },
    Flatten {
        start: i64,
        end: i64,
    },
    Sequential(Vec<Value>),
}

#[derive(Debug)]
pub struct Attention {
    embed_dim: usize,
    heads: usize,
    batch_first: bool,
    q: Tensor,
    k: Tensor,
    v: Tensor,
    out: Tensor,
}

impl Layer {
    pub fn kind_name(&self) -> &'static str {
        match self {
            Layer::Linear { .. } => "Linear",
            Layer::Conv { spatial: 1, .. } => "Conv1d",
            Layer::Conv { spatial: 3, .. } => "Conv3d",
            Layer::Conv { .. } => "Conv2d",
            Layer::ConvTranspose2d { .. } => "ConvTranspose2d",
            Layer::Pool(spec) => match (spec.max, spec.spatial) {
                (true, 1) => "MaxPool1d",
                (true, _) => "MaxPool2d",
                (false, 1) => "AvgPool1d",
                (false, _) => "AvgPool2d",
            },
            Layer::AdaptiveAvgPool { kind, .. }
            | Layer::Functional { kind, .. }
            | Layer::InstanceNorm { kind, .. } => kind,
            Layer::BatchNorm { name, .. } => name,
            Layer::LayerNorm { .. } => "LayerNorm",
            Layer::Embedding { .. } => "Embedding",
            Layer::MultiheadAttention(_) => "MultiheadAttention",
            Layer::Recurrent(r) => r.name(),
            Layer::Activation { kind, .. } => kind,
            Layer::Flatten { .. } => "Flatten",
            Layer::Sequential(_) => "Sequential",
        }
    }

    /// `layer.weight`, `layer.out_features`, ...
    pub fn attribute(&self, name: &str) -> Option<Value> {
        let tensor = |t: &Tensor| Some(Value::tensor(t.clone()));
        match (self, name) {
            (
                Layer::Linear { weight, .. }
                | Layer::Conv { weight, .. }
                | Layer::Embedding { weight },
                "weight",
            ) => tensor(weight),
            (Layer::Linear { bias: Some(b), .. } | Layer::Conv { bias: Some(b), .. }, "bias") => {
                tensor(b)
            }
            (Layer::Linear { weight, .. }, "in_features") => {
                Some(Value::Int(weight.shape()[1] as i64))
            }
            (Layer::Linear { weight, .. }, "out_features") => {
                Some(Value::Int(weight.shape()[0] as i64))
            }
            (Layer::Conv { weight, spec, .. }, "in_channels") => {
                Some(Value::Int(weight.shape()[1] as i64 * spec.groups))
            }
            (Layer::Conv { weight, .. }, "out_channels") => {
                Some(Value::Int(weight.shape()[0] as i64))
            }
            (Layer::Embedding { weight }, "num_embeddings") => {
                Some(Value::Int(weight.shape()[0] as i64))
            }
            (Layer::Embedding { weight }, "embedding_dim") => {
                Some(Value::Int(weight.shape()[1] as i64))
            }
            (Layer::BatchNorm { features, .. }, "num_features") => {
                Some(Value::Int(*features as i64))
            }
            _ => None,
        }
    }
}

/// Weights uniform in ±1/√fan_in, as PyTorch initialises them.
fn uniform(ctx: &mut OpContext, shape: &[usize], fan_in: usize) -> Outcome<Tensor> {
    ctx.check_size(shape)?;
    let bound = 1.0 / (fan_in.max(1) as f32).sqrt();
    let mut t = ArrayD::zeros(IxDyn(shape));
    for x in t.iter_mut() {
        *x = (ctx.rng.uniform() * 2.0 - 1.0) * bound;
    }
    Ok(t)
}

fn positive(op: &str, what: &str, v: i64) -> Outcome<usize> {
    if v < 1 {
        return Err(Failure::shape(format!(
            "`{op}`: `{what}` must be positive, but it is {v}"
        )));
    }
    Ok(v as usize)
}

pub fn construct(ctx: &mut OpContext, name: &str, args: &Args) -> Outcome<Layer> {
    Ok(match name {
        "Linear" => {
            let i = positive(name, "in_features", args.int("in_features")?)?;
            let o = positive(name, "out_features", args.int("out_features")?)?;
            let weight = uniform(ctx, &[o, i], i)?;
            let bias = if args.bool("bias")? {
                Some(uniform(ctx, &[o], i)?)
            } else {
                None
            };
            Layer::Linear { weight, bias }
        }
        "Conv1d" | "Conv2d" | "Conv3d" | "ConvTranspose2d" => {
            let spatial = nn::spatial_of(name);
            let i = positive(name, "in_channels", args.int("in_channels")?)?;
            let o = positive(name, "out_channels", args.int("out_channels")?)?;
            let groups = args.int("groups")?;
            let g = positive(name, "groups", groups)?;
            if i % g != 0 {
                return Err(Failure::shape(format!(
                    "`{name}`: in_channels ({i}) must be divisible by groups ({g})"
                )));
            }
            if o % g != 0 {
                return Err(Failure::shape(format!(
                    "`{name}`: out_channels ({o}) must be divisible by groups ({g})"
                )));
            }
            let kernel: Vec<usize> = args
                .ints("kernel_size", spatial)?
                .into_iter()
                .map(|k| positive(name, "kernel_size", k))
                .collect::<Outcome<_>>()?;
            let spec = ConvSpec::from_args(args, spatial)?;
            // A transposed convolution's weight is [in, out / groups, k...].
            let transposed = name == "ConvTranspose2d";
            let (rows, per_group) = if transposed { (i, o / g) } else { (o, i / g) };
            let mut shape = vec![rows, per_group];
            shape.extend(&kernel);
            let fan_in = per_group * kernel.iter().product::<usize>();
            let weight = uniform(ctx, &shape, fan_in)?;
            let bias = if args.bool("bias")? {
                Some(uniform(ctx, &[o], fan_in)?)
            } else {
                None
            };
            if transposed {
                Layer::ConvTranspose2d {
                    weight,
                    bias,
                    spec,
                    output_padding: args.ints("output_padding", 2)?,
                }
            } else {
                Layer::Conv {
                    spatial,
                    weight,
                    bias,
                    spec,
                }
            }
        }
        "MaxPool1d" | "AvgPool1d" | "MaxPool2d" | "AvgPool2d" => Layer::Pool(PoolSpec::from_args(
            args,
            name.starts_with("Max"),
            nn::spatial_of(name),
        )?),
        "AdaptiveAvgPool1d" | "AdaptiveAvgPool2d" => Layer::AdaptiveAvgPool {
            kind: static_name(name),
            sizes: nn::output_sizes(args.get("output_size"), nn::spatial_of(name))?,
        },
        "Upsample" => Layer::Functional {
            kind: "Upsample",
            op: "interpolate",
            args: [
                "size",
                "scale_factor",
                "mode",
                "align_corners",
                "recompute_scale_factor",
            ]
            .iter()
            .map(|p| (p.to_string(), args.get(p).clone()))
            .collect(),
        },
        "GroupNorm" => {
            let groups = positive(name, "num_groups", args.int("num_groups")?)?;
            let channels = positive(name, "num_channels", args.int("num_channels")?)?;
            if channels % groups != 0 {
                return Err(Failure::shape(format!(
                    "`GroupNorm`: num_channels ({channels}) must be divisible by num_groups ({groups})"
                )));
            }
            // The affine weight and bias as PyTorch initialises them.
            let affine = args.bool("affine")?;
            let parameter = |value: f32| {
                if affine {
                    Value::tensor(Tensor::from_elem(IxDyn(&[channels]), value))
                } else {
                    Value::None
                }
            };
            Layer::Functional {
                kind: "GroupNorm",
                op: "group_norm",
                args: vec![
                    ("num_groups".to_owned(), Value::Int(groups as i64)),
                    ("weight".to_owned(), parameter(1.0)),
                    ("bias".to_owned(), parameter(0.0)),
                    ("eps".to_owned(), Value::Float(args.float("eps")?)),
                ],
            }
        }
        "InstanceNorm1d" | "InstanceNorm2d" => Layer::InstanceNorm {
            kind: static_name(name),
            features: positive(name, "num_features", args.int("num_features")?)?,
            affine: args.bool("affine")?,
            eps: args.float("eps")? as f32,
        },
        "BatchNorm1d" | "BatchNorm2d" => Layer::BatchNorm {
            expected_ranks: if name == "BatchNorm1d" { &[2, 3] } else { &[4] },
            name: if name == "BatchNorm1d" {
                "BatchNorm1d"
            } else {
                "BatchNorm2d"
            },
            features: positive(name, "num_features", args.int("num_features")?)?,
            eps: args.float("eps")? as f32,
        },
        "LayerNorm" => Layer::LayerNorm {
            shape: args.dims("normalized_shape")?,
            eps: args.float("eps")? as f32,
        },
        "Embedding" => {
            let n = positive(name, "num_embeddings", args.int("num_embeddings")?)?;
            let d = positive(name, "embedding_dim", args.int("embedding_dim")?)?;
            ctx.check_size(&[n, d])?;
            let weight = crate::ops::creation::random(ctx, &[n as i64, d as i64], true)?;
            Layer::Embedding { weight }
        }
        "MultiheadAttention" => {
            let e = positive(name, "embed_dim", args.int("embed_dim")?)?;
            let heads = positive(name, "num_heads", args.int("num_heads")?)?;
            if e % heads != 0 {
                return Err(Failure::shape(format!("`MultiheadAttention`: embed_dim ({e}) must be divisible by num_heads ({heads})")));
            }
            let kdim = args
                .opt_int("kdim")?
                .map_or(Ok(e), |k| positive(name, "kdim", k))?;
            let vdim = args
                .opt_int("vdim")?
                .map_or(Ok(e), |v| positive(name, "vdim", v))?;
            Layer::MultiheadAttention(Box::new(Attention {
                embed_dim: e,
                heads,
                batch_first: args.bool("batch_first")?,
                q: uniform(ctx, &[e, e], e)?,
                k: uniform(ctx, &[e, kdim], kdim)?,
                v: uniform(ctx, &[e, vdim], vdim)?,
                out: uniform(ctx, &[e, e], e)?,
            }))
        }
        "LSTM" | "GRU" => {
            let lstm = name == "LSTM";
            let hidden = positive(name, "hidden_size", args.int("hidden_size")?)?;
            let projection = if lstm { args.int("proj_size")? } else { 0 };
            if projection < 0 || projection as usize >= hidden && projection != 0 {
                return Err(Failure::shape(format!(
                    "`LSTM`: proj_size ({projection}) has to be a positive integer smaller than hidden_size ({hidden})"
                )));
            }
            let spec = Recurrent {
                lstm,
                input_size: positive(name, "input_size", args.int("input_size")?)?,
                hidden,
                out_size: if projection > 0 {
                    projection as usize
                } else {
                    hidden
                },
                layers: positive(name, "num_layers", args.int("num_layers")?)?,
                bidirectional: args.bool("bidirectional")?,
                batch_first: args.bool("batch_first")?,
                cells: Vec::new(),
            };
            Layer::Recurrent(Box::new(spec.with_random_weights(ctx)))
        }
        "Dropout" | "ReLU" | "ReLU6" | "Hardswish" | "Hardsigmoid" | "SiLU" | "Sigmoid"
        | "Tanh" | "Identity" | "GELU" => Layer::Activation {
            kind: static_name(name),
            parameter: 0.0,
            dim: None,
        },
        "LeakyReLU" => Layer::Activation {
            kind: "LeakyReLU",
            parameter: args.float("negative_slope")?,
            dim: None,
        },
        "Softmax" => Layer::Activation {
            kind: "Softmax",
            parameter: 0.0,
            dim: args.opt_int("dim")?,
        },
        "Flatten" => Layer::Flatten {
            start: args.int("start_dim")?,
            end: args.int("end_dim")?,
        },
        "Sequential" => {
            let stages = match args.get("layers") {
                Value::List(items) | Value::Tuple(items) => items.to_vec(),
                Value::Shape(s) if s.is_empty() => Vec::new(),
                other => vec![other.clone()],
            };
            if let Some(bad) = stages
                .iter()
                .find(|v| !matches!(v, Value::Layer(_) | Value::Instance(_)))
            {
                return Err(Failure::shape(format!(
                    "`Sequential` takes layers, but got {}",
                    bad.describe()
                )));
            }
            Layer::Sequential(stages)
        }
        _ => {
            return Err(Failure::unimplemented(format!(
                "the interpreter has no implementation of the layer `{name}`"
            )))
        }
    })
}

/// The registry's own name of layer `name` (every layer is registered).
fn static_name(name: &str) -> &'static str {
    registry::operation(name).map_or("Identity", |op| op.name)
}

fn one_input(layer: &Layer, inputs: &[Value]) -> Outcome<Rc<Tensor>> {
    match inputs {
        [one] => one.as_tensor().ok_or_else(|| {
            Failure::shape(format!(
                "a {} layer takes a tensor, not {}",
                layer.kind_name(),
                one.describe()
            ))
        }),
        _ => Err(Failure::program(format!(
            "a {} layer takes one input, but {} were given",
            layer.kind_name(),
            inputs.len()
        ))),
    }
}

pub fn apply(
    ctx: &mut OpContext,
    layer: &Layer,
    inputs: &[Value],
    named: &[(String, Value)],
) -> Outcome<Value> {
    if let Layer::MultiheadAttention(attention) = layer {
        return attend(ctx, attention, inputs, named);
    }
    if let Layer::Recurrent(recurrent) = layer {
        let input = inputs.first().and_then(Value::as_tensor).ok_or_else(|| {
            Failure::shape(format!("`{}` needs a tensor input", recurrent.name()))
        })?;
        let hx = inputs
            .get(1)
            .or_else(|| named.iter().find(|(n, _)| n == "hx").map(|(_, v)| v));
        return recurrent.apply(ctx, &input, hx);
    }
    let x = one_input(layer, inputs)?;
    let t = match layer {
        Layer::Linear { weight, bias } => nn::linear(ctx, &x, weight, bias.as_ref())?,
        Layer::Conv {
            weight, bias, spec, ..
        } => nn::conv(ctx, &x, weight, bias.as_ref(), spec, layer.kind_name())?,
        Layer::ConvTranspose2d {
            weight,
            bias,
            spec,
            output_padding,
        } => nn::conv_transpose2d(ctx, &x, weight, bias.as_ref(), spec, output_padding)?,
        Layer::Pool(spec) => nn::pool2d(ctx, &x, spec, layer.kind_name())?,
        Layer::AdaptiveAvgPool { kind, sizes } => nn::adaptive_avg_pool2d(&x, sizes, kind)?,
        Layer::Functional { op, args, .. } => {
            let mut bound = vec![("input".to_owned(), Value::Tensor(x.clone()))];
            bound.extend(args.iter().cloned());
            return ops::call(ctx, op, &Args::new(op, bound));
        }
        Layer::InstanceNorm {
            kind,
            features,
            affine,
            eps,
        } => nn::norms::instance_norm(&x, kind, *features, *affine, *eps)?,
        Layer::BatchNorm {
            expected_ranks,
            name,
            features,
            eps,
        } => {
            if !expected_ranks.contains(&x.ndim()) {
                return Err(Failure::shape(format!(
                    "`{name}` expects a {} input, but got one of shape {}",
                    if expected_ranks.len() == 1 {
                        "4-D".to_owned()
                    } else {
                        "2-D or 3-D".to_owned()
                    },
                    dims_text(&shape::as_i64(x.shape()))
                )));
            }
            if x.shape()[1] != *features {
                return Err(Failure::shape(format!(
                    "`{name}({features})` got an input with {} channels (shape {})",
                    x.shape()[1],
                    dims_text(&shape::as_i64(x.shape()))
                )));
            }
            nn::batch_norm(&x, None, None, None, None, false, *eps)?
        }
        Layer::LayerNorm { shape, eps } => nn::layer_norm(&x, shape, None, None, *eps)?,
        Layer::Embedding { weight } => nn::embedding(ctx, &x, weight)?,
        Layer::Activation {
            kind,
            parameter,
            dim,
        } => match *kind {
            "ReLU" => x.mapv(|v| v.max(0.0)),
            "ReLU6" => x.mapv(|v| v.clamp(0.0, 6.0)),
            "Hardswish" => x.mapv(elementwise::hardswish),
            "Hardsigmoid" => x.mapv(elementwise::hardsigmoid),
            "LeakyReLU" => {
                let slope = *parameter as f32;
                x.mapv(|v| if v >= 0.0 { v } else { v * slope })
            }
            "SiLU" => x.mapv(|v| v * elementwise::sigmoid(v)),
            "Sigmoid" => x.mapv(elementwise::sigmoid),
            "Tanh" => x.mapv(f32::tanh),
            "GELU" => x.mapv(|v| elementwise::gelu(v, false)),
            "Softmax" => {
                // PyTorch's implicit dim: 0 for ranks 0, 1 and 3, else 1.
                let d = dim.unwrap_or(if matches!(x.ndim(), 0 | 1 | 3) { 0 } else { 1 });
                reduce::softmax(&x, d, false)?
            }
            _ => (*x).clone(),
        },
        Layer::Flatten { start, end } => {
            let args = Args::new(
                "flatten",
                vec![
                    ("input".to_owned(), Value::Tensor(x.clone())),
                    ("start_dim".to_owned(), Value::Int(*start)),
                    ("end_dim".to_owned(), Value::Int(*end)),
                ],
            );
            return shape::call(ctx, "flatten", &args).map(|v| v.unwrap_or(Value::None));
        }
        Layer::Sequential(_) | Layer::MultiheadAttention(_) | Layer::Recurrent(_) => {
            unreachable!("applied by the caller")
        }
    };
    Ok(Value::tensor(t))
}

/// `MultiheadAttention(query, key, value)`: `(output, weights)`, the
/// weights averaged over heads.
fn attend(
    ctx: &mut OpContext,
    a: &Attention,
    inputs: &[Value],
    named: &[(String, Value)],
) -> Outcome<Value> {
    let get = |i: usize, name: &str| -> Option<Value> {
        inputs.get(i).cloned().or_else(|| {
            named
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
        })
    };
    let tensor = |v: Option<Value>, name: &str| -> Outcome<Rc<Tensor>> {
        v.and_then(|v| v.as_tensor())
            .ok_or_else(|| Failure::shape(format!("`MultiheadAttention` needs a tensor `{name}`")))
    };
    let (query, key, value) = (
        tensor(get(0, "query"), "query")?,
        tensor(get(1, "key"), "key")?,
        tensor(get(2, "value"), "value")?,
    );
    let mask = get(5, "attn_mask").and_then(|v| v.as_tensor());
    let rank = query.ndim();
    if !(rank == 2 || rank == 3) {
        return Err(Failure::shape(format!(
            "`MultiheadAttention` expects rank 2 or 3, but the query has rank {rank}"
        )));
    }
    if key.ndim() != rank || value.ndim() != rank {
        return Err(Failure::shape(
            "`MultiheadAttention`: query, key and value must have the same rank",
        ));
    }
    // As (batch, length, features).
    let as_blf = |t: &Tensor| -> Tensor {
        let mut t = t.clone();
        if rank == 2 {
            t = t.insert_axis(Axis(0));
        } else if !a.batch_first {
            t.swap_axes(0, 1);
        }
        t.as_standard_layout().to_owned()
    };
    let (q, k, v) = (as_blf(&query), as_blf(&key), as_blf(&value));
    let e = a.embed_dim;
    for (t, w, what) in [(&q, &a.q, "query"), (&k, &a.k, "key"), (&v, &a.v, "value")] {
        if t.shape()[2] != w.shape()[1] {
            return Err(Failure::shape(format!(
                "`MultiheadAttention` gets the wrong {what} width: expected {}, got {}",
                w.shape()[1],
                t.shape()[2]
            )));
        }
    }
    if k.shape()[1] != v.shape()[1] {
        return Err(Failure::shape(
            "`MultiheadAttention`: key and value lengths differ",
        ));
    }
    if q.shape()[0] != k.shape()[0] || k.shape()[0] != v.shape()[0] {
        return Err(Failure::shape("`MultiheadAttention`: batch sizes differ"));
    }
    let (batch, lq, lk) = (q.shape()[0], q.shape()[1], k.shape()[1]);
    ctx.check_size(&[batch, a.heads, lq, lk])?;
    let project = |t: &Tensor, w: &Tensor| -> Outcome<Tensor> {
        linalg::matmul(ctx, t, &w.t().to_owned().into_dyn())
    };
    let (qp, kp, vp) = (project(&q, &a.q)?, project(&k, &a.k)?, project(&v, &a.v)?);
    let d = e / a.heads;
    let scale = 1.0 / (d as f32).sqrt();
    let mut out = ArrayD::<f32>::zeros(IxDyn(&[batch, lq, e]));
    let mut weights = ArrayD::<f32>::zeros(IxDyn(&[batch, lq, lk]));
    for b in 0..batch {
        for h in 0..a.heads {
            let qh: Array2<f32> = qp.slice(s![b, .., h * d..(h + 1) * d]).to_owned();
            let kh: Array2<f32> = kp.slice(s![b, .., h * d..(h + 1) * d]).to_owned();
            let vh: Array2<f32> = vp.slice(s![b, .., h * d..(h + 1) * d]).to_owned();
            let mut scores = qh.dot(&kh.t()) * scale;
            if let Some(mask) = &mask {
                let m = mask.broadcast(IxDyn(&[lq, lk])).ok_or_else(|| {
                    Failure::shape(
                        "`MultiheadAttention`: attn_mask does not fit the attention's shape",
                    )
                })?;
                for ((i, j), s) in scores.indexed_iter_mut() {
                    *s += m[[i, j].as_slice()];
                }
            }
            for mut row in scores.rows_mut() {
                let max = row.fold(f32::NEG_INFINITY, |m, x| m.max(*x));
                let sum: f32 = row.iter().map(|x| (x - max).exp()).sum();
                row.mapv_inplace(|x| (x - max).exp() / sum);
            }
            let context = scores.dot(&vh);
            out.slice_mut(s![b, .., h * d..(h + 1) * d])
                .assign(&context);
            let mut w = weights.slice_mut(s![b, .., ..]);
            w.zip_mut_with(&scores, |acc, x| *acc += x / a.heads as f32);
        }
    }
    let mut output = linalg::matmul(ctx, &out, &a.out.t().to_owned().into_dyn())?;
    if rank == 2 {
        output = output.index_axis_move(Axis(0), 0);
        weights = weights.index_axis_move(Axis(0), 0);
    } else if !a.batch_first {
        output.swap_axes(0, 1);
        output = output.as_standard_layout().to_owned();
    }
    Ok(Value::Tuple(Rc::new(vec![
        Value::tensor(output),
        Value::tensor(weights),
    ])))
}
