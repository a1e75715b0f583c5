//! Recurrent layers: `LSTM` and `GRU` over a sequence, with their hidden
//! states, as PyTorch shapes them.

use tensorfit_base::TextRange;
use tensorfit_solver::Term;

use super::{dims_of, refuse, require_equal, Layer, RuleContext, Shape, Value};

/// `LSTM(input)`: `(output, (h_n, c_n))`; `GRU(input)`: `(output, h_n)`.
///
/// The input is `[L, N, input_size]` (`[N, L, input_size]` with
/// `batch_first`) or unbatched `[L, input_size]`. With `D` directions (2
/// when `bidirectional`) and `H` the hidden size (`proj_size` for an
/// LSTM's outputs when it is set), the output is `[L, N, D·H]` and each
/// state `[D·num_layers, N, H]` (the cell state's size is `hidden_size`).
/// A given initial state (`hx`) must have the states' shapes.
pub(super) fn recurrent(
    frame: &mut dyn RuleContext,
    layer: &Layer,
    args: &[(Value, String)],
    range: TextRange,
) -> Value {
    let kind = layer.kind.as_str();
    let int = |name: &str, default: i64| match layer.arg(name) {
        Some(Value::Int(t)) => Some(t.clone()),
        None | Some(Value::None) => Some(Term::int(default)),
        _ => None,
    };
    let flag = |name: &str| match layer.arg(name) {
        Some(Value::Bool(b)) => b.as_const(),
        None | Some(Value::None) => Some(false),
        _ => None,
    };
    let (Some(input_size), Some(hidden), Some(layers), Some(projection)) = (
        int("input_size", 0),
        int("hidden_size", 0),
        int("num_layers", 1),
        int("proj_size", 0),
    ) else {
        return Value::Unknown;
    };
    let (Some(batch_first), Some(bidirectional)) = (flag("batch_first"), flag("bidirectional"))
    else {
        return Value::Unknown;
    };
    let Some((input, text)) = args.first() else {
        return Value::Unknown;
    };
    let Some(dims) = input.tensor_shape().and_then(|s| dims_of(frame, &s)) else {
        return Value::Unknown;
    };
    if dims.len() != 2 && dims.len() != 3 {
        refuse(
            frame,
            range,
            format!(
                "`{kind}` expects an input of rank 2 (unbatched) or 3, but `{text}` has rank {}",
                dims.len()
            ),
        );
        return Value::Unknown;
    }
    require_equal(
        frame,
        &dims[dims.len() - 1],
        &input_size,
        &format!("`{kind}` gets the wrong number of input features"),
        format!("{text}.shape[-1]"),
        "input_size".to_owned(),
        range,
    );
    let directions = Term::int(if bidirectional { 2 } else { 1 });
    let out_size = match projection.as_const() {
        Some(0) => hidden.clone(),
        Some(_) => projection.clone(),
        None => return Value::Unknown,
    };
    let states = Term::mul(&directions, &layers);
    let features = Term::mul(&directions, &out_size);
    let (output, state, cell) = match dims.as_slice() {
        [length, _] => (
            vec![length.clone(), features],
            vec![states.clone(), out_size.clone()],
            vec![states, hidden.clone()],
        ),
        [first, second, _] => {
            let (length, batch) = if batch_first {
                (second, first)
            } else {
                (first, second)
            };
            let output = if batch_first {
                vec![batch.clone(), length.clone(), features]
            } else {
                vec![length.clone(), batch.clone(), features]
            };
            (
                output,
                vec![states.clone(), batch.clone(), out_size.clone()],
                vec![states, batch.clone(), hidden.clone()],
            )
        }
        _ => return Value::Unknown,
    };
    let is_lstm = kind == "LSTM";
    if let Some((hx, hx_text)) = args.get(1).filter(|(v, _)| !matches!(v, Value::None)) {
        let given: Vec<(Value, String, &[Term], &str)> = match (is_lstm, hx) {
            (true, Value::Tuple(parts) | Value::List(parts)) if parts.len() == 2 => vec![
                (parts[0].clone(), format!("{hx_text}[0]"), &state[..], "h_0"),
                (parts[1].clone(), format!("{hx_text}[1]"), &cell[..], "c_0"),
            ],
            (false, value) => vec![(value.clone(), hx_text.clone(), &state[..], "h_0")],
            _ => vec![],
        };
        for (value, text, expected, name) in given {
            check_state(frame, kind, &value, &text, expected, name, range);
        }
    }
    let output = Value::Tensor(Shape::known(output));
    let state = Value::Tensor(Shape::known(state));
    if is_lstm {
        let cell = Value::Tensor(Shape::known(cell));
        Value::Tuple(vec![output, Value::Tuple(vec![state, cell])])
    } else {
        Value::Tuple(vec![output, state])
    }
}

/// An initial state must have the shape of the state it starts.
fn check_state(
    frame: &mut dyn RuleContext,
    kind: &str,
    value: &Value,
    text: &str,
    expected: &[Term],
    name: &str,
    range: TextRange,
) {
    let Some(dims) = value.tensor_shape().and_then(|s| dims_of(frame, &s)) else {
        return;
    };
    if dims.len() != expected.len() {
        refuse(frame, range, format!(
                "`{kind}`: the initial state {name} `{text}` has rank {}, but the state has rank {}",
                dims.len(),
                expected.len()
            ));
        return;
    }
    for (k, (d, e)) in dims.iter().zip(expected).enumerate() {
        require_equal(
            frame,
            d,
            e,
            &format!("`{kind}` gets an initial state {name} of the wrong shape"),
            format!("{text}.shape[{k}]"),
            format!("the state's shape[{k}]"),
            range,
        );
    }
}
