//! Calling a `torch.nn` layer: the rule of each layer kind, attention,
//! and layer calls kept for each call while the input's rank is unknown.

use tensorfit_base::TextRange;
use tensorfit_solver::{Formula, Term};

use super::nn::{
    adaptive_pool, group_norm, instance_norm, interpolate, layer_norm, linear, spatial_dims, Conv,
    Pool, Transposed,
};
use super::shape::flatten;
use super::{
    dims_of, pair, refuse, registry, require, require_equal, require_rank, sizes, Args, Layer,
    RuleContext, Shape, Value,
};

/// The rule of `name`, one of this family's operations.
pub(super) fn apply(
    frame: &mut dyn RuleContext,
    name: &str,
    args: &Args,
    range: TextRange,
) -> Option<Value> {
    match name {
        DEFERRED_LAYER => apply_deferred_layer(frame, args, range),
        _ => None,
    }
}

/// What a layer's constructor refuses, as PyTorch's does when the module
/// is made (not when it is called): heads that do not divide the width,
/// groups that do not divide the channels.
pub(super) fn check_construction(
    frame: &mut dyn RuleContext,
    kind: &str,
    args: &Args,
    range: TextRange,
) {
    let divisible: &[(&str, &str)] = match kind {
        "MultiheadAttention" => &[("embed_dim", "num_heads")],
        "GroupNorm" => &[("num_channels", "num_groups")],
        "Conv1d" | "Conv2d" | "Conv3d" | "ConvTranspose1d" | "ConvTranspose2d" => {
            &[("in_channels", "groups"), ("out_channels", "groups")]
        }
        _ => return,
    };
    for (whole_name, part_name) in divisible {
        let (Value::Int(whole), Value::Int(part)) = (args.get(whole_name), args.get(part_name))
        else {
            continue;
        };
        require(
            frame,
            Formula::and([
                Formula::ge(part, &Term::int(1)),
                Formula::eq(&Term::rem(whole, part), &Term::int(0)),
            ]),
            range,
            format!("`{kind}`: {whole_name} ({{}}) is not divisible by {part_name} ({{}})"),
            vec![whole.clone(), part.clone()],
        );
    }
}

/// `MultiheadAttention(query, key, value)`: `(output, weights)`.
fn attention(
    frame: &mut dyn RuleContext,
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
    // That the heads divide the width is checked at construction.
    let (Some(embed), Some(_)) = (embed, heads) else {
        return Value::Unknown;
    };
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
            refuse(
                frame,
                range,
                format!(
                    "`MultiheadAttention` expects rank 2 or 3, but `{text}` has rank {}",
                    shape.len()
                ),
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
/// function being summarised, where the rank is known.
///
/// A deferred result is a tensor, so a layer that returns a tuple (an
/// `LSTM`'s `(output, (h_n, c_n))`) is deferred once per tensor of the
/// tuple, each with the `part` (a path into the tuple) it stands for; the
/// summary keeps the tuple's structure, so unpacking and `r[0]` mean what
/// they mean at a call. Attention's weights are not kept: only its output
/// (the first of the pair) is.
fn defer_layer(
    frame: &mut dyn RuleContext,
    layer: &Layer,
    callee: &str,
    inputs: Vec<(String, Value, String)>,
    range: TextRange,
) -> Value {
    let mut defer_part = |path: &[i64]| {
        let mut bound = vec![
            (
                "layer".to_owned(),
                Value::Layer(std::sync::Arc::new(layer.clone())),
                callee.to_owned(),
            ),
            (
                DEFERRED_PART.to_owned(),
                Value::List(path.iter().map(|k| Value::Int(Term::int(*k))).collect()),
                String::new(),
            ),
        ];
        bound.extend(inputs.iter().cloned());
        frame.defer(DEFERRED_LAYER, bound, range)
    };
    match layer.kind.as_str() {
        "MultiheadAttention" => Value::Tuple(vec![defer_part(&[0]), Value::Unknown]),
        "LSTM" => Value::Tuple(vec![
            defer_part(&[0]),
            Value::Tuple(vec![defer_part(&[1, 0]), defer_part(&[1, 1])]),
        ]),
        "GRU" => Value::Tuple(vec![defer_part(&[0]), defer_part(&[1])]),
        _ => defer_part(&[]),
    }
}

/// The argument of a deferred layer call that says which tensor of the
/// layer's result it stands for (see [`defer_layer`]).
const DEFERRED_PART: &str = "part";

/// Applies a deferred layer call (see [`defer_layer`]) once its inputs'
/// ranks are known.
fn apply_deferred_layer(
    frame: &mut dyn RuleContext,
    args: &Args,
    range: TextRange,
) -> Option<Value> {
    let Value::Layer(layer) = args.get("layer") else {
        return None;
    };
    let layer = layer.clone();
    let callee = args
        .items()
        .iter()
        .find(|(name, _, _)| name == "layer")
        .map(|(_, _, text)| text.clone())
        .unwrap_or_default();
    let path: Vec<usize> = match args.get(DEFERRED_PART) {
        Value::List(steps) => steps
            .iter()
            .map(|step| match step {
                Value::Int(k) => k.as_const().and_then(|k| usize::try_from(k).ok()),
                _ => None,
            })
            .collect::<Option<_>>()?,
        _ => Vec::new(),
    };
    let inputs: Vec<(Value, String)> = args
        .items()
        .iter()
        .filter(|(name, _, _)| name != "layer" && name != DEFERRED_PART)
        .map(|(_, value, text)| (value.clone(), text.clone()))
        .collect();
    // Through the wrapper, so that its messages name the layer as the
    // program's language spells it.
    let result = super::call_layer(frame, &layer, &callee, inputs, range);
    Some(path.iter().fold(result, |value, &k| match value {
        Value::Tuple(mut items) if k < items.len() => items.swap_remove(k),
        _ => Value::Unknown,
    }))
}

/// Calling a prelude layer.
pub(super) fn call_layer(
    frame: &mut dyn RuleContext,
    layer: &Layer,
    callee: &str,
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
            return defer_layer(frame, layer, callee, bound, range);
        }
    }
    // A parameter the layer does not have is not given: its default applies.
    let arg = |name: &str| layer.arg(name).cloned().unwrap_or(Value::None);
    match layer.kind.as_str() {
        "ReLU" | "ReLU6" | "Hardswish" | "Hardsigmoid" | "LeakyReLU" | "SiLU" | "GELU"
        | "Sigmoid" | "Tanh" | "Dropout" | "Identity" | "Softmax" => input,
        "Sequential" => {
            let Some(layers) = layer.sequential_layers() else {
                return Value::Unknown;
            };
            // Layer k's input is `seq[:k](x)`: named so, a clash inside
            // says which layer's output it is about.
            let mut value = input;
            for (k, layer) in layers.iter().enumerate() {
                let input_text = match k {
                    0 => text.clone(),
                    _ => format!("{callee}[:{k}]({text})"),
                };
                value = frame.apply_to(layer, &format!("{callee}[{k}]"), value, &input_text, range);
            }
            value
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
        "Conv1d" | "Conv2d" | "Conv3d" => {
            let spatial = spatial_dims(&layer.kind);
            let (Value::Int(cin), Value::Int(cout)) = (arg("in_channels"), arg("out_channels"))
            else {
                return Value::Unknown;
            };
            let Some(shape) = input.tensor_shape() else {
                return Value::Unknown;
            };
            let kind = layer.kind.as_str();
            let mut size = |what: &str, default: i64| {
                sizes(frame, &arg(what), default, spatial, (kind, what), range)
            };
            let (Some(kernel), Some(stride), Some(dilation)) = (
                size("kernel_size", 1),
                size("stride", 1),
                size("dilation", 1),
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
            // `in_channels % groups` is the constructor's (`check_construction`).
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
        "MaxPool1d" | "AvgPool1d" | "MaxPool2d" | "AvgPool2d" => {
            let Some(shape) = input.tensor_shape() else {
                return Value::Unknown;
            };
            let args = Args::new(
                layer
                    .args
                    .iter()
                    .map(|(name, value)| (name.clone(), value.clone(), name.clone()))
                    .collect(),
            );
            match Pool::from_args(&layer.kind, &args) {
                Some(pool) => pool.apply(frame, &shape, &text, range),
                None => Value::Unknown,
            }
        }
        "AdaptiveAvgPool1d" | "AdaptiveAvgPool2d" => {
            let Some(shape) = input.tensor_shape() else {
                return Value::Unknown;
            };
            adaptive_pool(
                frame,
                &layer.kind,
                &shape,
                &text,
                &arg("output_size"),
                range,
            )
        }
        "Upsample" => {
            let mut bound = vec![("input".to_owned(), input, text)];
            bound.extend(
                layer
                    .args
                    .iter()
                    .map(|(name, value)| (name.clone(), value.clone(), name.clone())),
            );
            interpolate(frame, "Upsample", &Args::new(bound), range).unwrap_or(Value::Unknown)
        }
        "GroupNorm" => {
            let Some(shape) = input.tensor_shape() else {
                return Value::Unknown;
            };
            // The groups were checked against `num_channels` when the
            // layer was made; the input must have that many channels.
            let channels = arg("num_channels");
            group_norm(
                frame,
                "GroupNorm",
                &shape,
                &text,
                None,
                channels.as_int().map(|c| (c, "num_channels")),
                range,
            )
        }
        "InstanceNorm1d" | "InstanceNorm2d" => {
            let Some(shape) = input.tensor_shape() else {
                return Value::Unknown;
            };
            let affine = matches!(arg("affine"), Value::Bool(Formula::Const(true)));
            instance_norm(
                frame,
                &layer.kind,
                &shape,
                &text,
                arg("num_features").as_int(),
                affine,
                range,
            )
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
            if !require_rank(frame, &shape, ranks, &layer.kind, &text, range) {
                return Value::Unknown;
            }
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
        "LSTM" | "GRU" => super::recurrent::recurrent(frame, layer, &args, range),
        "ConvTranspose2d" => {
            let (Value::Int(cin), Value::Int(cout)) = (arg("in_channels"), arg("out_channels"))
            else {
                return Value::Unknown;
            };
            let Some(shape) = input.tensor_shape() else {
                return Value::Unknown;
            };
            let kind = layer.kind.as_str();
            let mut size = |what: &str, default: i64| {
                sizes(frame, &arg(what), default, 2, (kind, what), range)
            };
            let parts = (
                size("kernel_size", 1),
                size("stride", 1),
                size("padding", 0),
                size("output_padding", 0),
                size("dilation", 1),
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
                    .unwrap_or_else(|| frame.fresh_shape()),
            )
        }
        _ => Value::Unknown,
    }
}
