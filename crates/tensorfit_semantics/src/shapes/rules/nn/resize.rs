//! Resizing: `pad` (PyTorch's `F.pad`) and `interpolate` (`F.interpolate`,
//! the `Upsample` layer).

use tensorfit_base::TextRange;
use tensorfit_solver::{Formula, Term};

use super::super::{append, dims_of, leading, refuse, require, Args, RuleContext, Shape, Value};

/// `pad(input, pad, mode, value)`: `pad` lists (before, after) pairs from
/// the last dimension backwards; each padded dimension grows by its pair
/// (shrinks, for negative padding) and must stay positive. `reflect`
/// padding must be smaller than the dimension it reflects.
pub(in super::super) fn pad(
    frame: &mut dyn RuleContext,
    args: &Args,
    range: TextRange,
) -> Option<Value> {
    let dims = dims_of(frame, &args.shape("input")?)?;
    let amounts = args.get("pad").as_dims()?.dims()?.to_vec();
    let text = args.text("input");
    if amounts.len() % 2 != 0 || amounts.len() / 2 > dims.len() {
        let why = if amounts.len() % 2 != 0 {
            format!(
                "`pad` takes pairs of amounts, but {} were given",
                amounts.len()
            )
        } else {
            format!(
                "`pad` pads {} dimensions, but `{text}` has {}",
                amounts.len() / 2,
                dims.len()
            )
        };
        refuse(frame, range, why);
        return Some(Value::Unknown);
    }
    let mode = match args.get("mode") {
        Value::Str(m) => Some(m.as_str()),
        _ => None,
    };
    let pairs = amounts.len() / 2;
    if mode.is_some_and(|m| m != "constant")
        && !((1..=3).contains(&pairs) && (pairs + 1..=pairs + 2).contains(&dims.len()))
    {
        refuse(frame, range, format!(
                "`pad`: {} padding of {pairs} dimensions takes an input of rank {} or {}, but `{text}` has rank {}",
                mode.unwrap_or_default(),
                pairs + 1,
                pairs + 2,
                dims.len()
            ));
        return Some(Value::Unknown);
    }
    let reflect = mode == Some("reflect");
    let mut out = dims.clone();
    for (k, pair) in amounts.chunks(2).enumerate() {
        let at = dims.len() - 1 - k;
        let (before, after) = (&pair[0], &pair[1]);
        if reflect {
            for side in [before, after] {
                require(
                    frame,
                    Formula::lt(side, &dims[at]),
                    range,
                    format!(
                        "`pad`: reflect padding {{}} must be smaller than `{text}`.shape[{at}] = {{}}"
                    ),
                    vec![side.clone(), dims[at].clone()],
                );
            }
        }
        let size = Term::add(&Term::add(&dims[at], before), after);
        require(
            frame,
            Formula::ge(&size, &Term::int(1)),
            range,
            format!("`pad` leaves `{text}`.shape[{at}] with {{}} elements"),
            vec![size.clone()],
        );
        out[at] = size;
    }
    Some(Value::Tensor(Shape::known(out)))
}

/// `interpolate(input, size, scale_factor)`: the dimensions after the
/// batch and the channels become `size`, or each times `scale_factor`
/// (rounded down). Exactly one of the two is given; the input has rank 3,
/// 4 or 5.
pub(in super::super) fn interpolate(
    frame: &mut dyn RuleContext,
    op: &str,
    args: &Args,
    range: TextRange,
) -> Option<Value> {
    let input = frame.refine_shape(&args.shape("input")?);
    let text = args.text("input");
    let dims = input.dims()?.to_vec();
    if !(3..=5).contains(&dims.len()) {
        refuse(frame, range, format!(
                "`{op}` resizes inputs of rank 3, 4 or 5 (batch, channels, sizes), but `{text}` has rank {}",
                dims.len()
            ));
        return Some(Value::Unknown);
    }
    let spatial = dims.len() - 2;
    let needs = match args.get("mode") {
        Value::Str(m) if m == "linear" => Some(3),
        Value::Str(m) if m == "bilinear" || m == "bicubic" => Some(4),
        Value::Str(m) if m == "trilinear" => Some(5),
        _ => None,
    };
    if let Some(needs) = needs.filter(|n| *n != dims.len()) {
        refuse(
            frame,
            range,
            format!(
                "`{op}`: this mode resizes inputs of rank {needs}, but `{text}` has rank {}",
                dims.len()
            ),
        );
        return Some(Value::Unknown);
    }
    let (size, scale) = (args.get("size"), args.get("scale_factor"));
    let given = |v: &Value| !matches!(v, Value::None);
    if given(size) == given(scale) {
        let why = if given(size) {
            format!("`{op}` takes `size` or `scale_factor`, not both")
        } else {
            format!("`{op}` needs `size` or `scale_factor`")
        };
        refuse(frame, range, why);
        return Some(Value::Unknown);
    }
    let sizes: Vec<Term> = if given(size) {
        match size {
            Value::Int(n) => vec![n.clone(); spatial],
            other => {
                let sizes = other.as_dims()?.dims()?.to_vec();
                if sizes.len() != spatial {
                    refuse(
                        frame,
                        range,
                        format!(
                            "`{op}`: `{text}` has {spatial} sizes to resize, but `size` gives {}",
                            sizes.len()
                        ),
                    );
                    return Some(Value::Unknown);
                }
                sizes
            }
        }
    } else {
        let factors: Vec<Option<Term>> = match scale {
            Value::Int(f) => vec![Some(f.clone()); spatial],
            Value::List(items) | Value::Tuple(items) if items.len() == spatial => {
                items.iter().map(|v| v.as_int().cloned()).collect()
            }
            // A float factor's value is not followed: sizes unknown.
            _ => vec![None; spatial],
        };
        (0..spatial)
            .map(|k| match &factors[k] {
                Some(f) => Term::mul(&dims[2 + k], f),
                None => frame.fresh_dim(range),
            })
            .collect()
    };
    for (k, s) in sizes.iter().enumerate() {
        require(
            frame,
            Formula::ge(s, &Term::int(1)),
            range,
            format!("`{op}` gives size {k} of the output {{}} elements"),
            vec![s.clone()],
        );
    }
    // The batch and the channels, then the new sizes.
    let batch = leading(frame, &input, spatial);
    Some(Value::Tensor(append(frame, &batch, sizes)))
}
