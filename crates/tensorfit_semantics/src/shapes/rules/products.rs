//! Products beyond `matmul` (the linear-algebra family): `tensordot`,
//! `baddbmm` and `scaled_dot_product_attention`.

use tensorfit_base::TextRange;
use tensorfit_solver::{Formula, Term};

use super::{
    axis, broadcast, dims_of, refuse, require, require_equal, Args, RuleContext, Shape, Value,
};

/// `tensordot(a, b, dims)`: the last `dims` dimensions of `a` against the
/// first of `b` (or the two lists of positions given), each pair equal;
/// the rest of `a`'s then the rest of `b`'s. `dims: 0` is the tensor
/// product of the model language.
pub(super) fn tensordot(
    frame: &mut dyn RuleContext,
    args: &Args,
    range: TextRange,
) -> Option<Value> {
    let a = dims_of(frame, &args.shape("a")?)?;
    let b = dims_of(frame, &args.shape("b")?)?;
    let (ta, tb) = (args.text("a"), args.text("b"));
    let (axes_a, axes_b): (Vec<usize>, Vec<usize>) = match args.get("dims") {
        Value::Int(n) => {
            let n = n.as_const()?;
            if n < 0 || n as usize > a.len() || n as usize > b.len() {
                refuse(
                    frame,
                    range,
                    format!(
                        "`tensordot` contracts {n} dimensions, but `{ta}` has {} and `{tb}` has {}",
                        a.len(),
                        b.len()
                    ),
                );
                return Some(Value::Unknown);
            }
            let n = n as usize;
            ((a.len() - n..a.len()).collect(), (0..n).collect())
        }
        Value::List(pair) | Value::Tuple(pair) if pair.len() == 2 => {
            let positions = |frame: &mut dyn RuleContext, v: &Value, rank: usize| {
                let list: Vec<Term> = match v {
                    Value::Int(d) => vec![d.clone()],
                    other => other.as_dims()?.dims()?.to_vec(),
                };
                list.iter()
                    .map(|d| axis(frame, d, rank, "tensordot", range))
                    .collect::<Option<Vec<usize>>>()
            };
            let (x, y) = (
                positions(frame, &pair[0], a.len())?,
                positions(frame, &pair[1], b.len())?,
            );
            if x.len() != y.len() {
                refuse(frame, range, format!(
                        "`tensordot`: both lists of dimensions need the same length, but they have {} and {}",
                        x.len(),
                        y.len()
                    ));
                return Some(Value::Unknown);
            }
            (x, y)
        }
        _ => return Some(Value::Unknown),
    };
    for (i, j) in axes_a.iter().zip(&axes_b) {
        require_equal(
            frame,
            &a[*i],
            &b[*j],
            "`tensordot` contracts dimensions of different sizes",
            format!("{ta}.shape[{i}]"),
            format!("{tb}.shape[{j}]"),
            range,
        );
    }
    let free = |dims: &[Term], contracted: &[usize]| {
        dims.iter()
            .enumerate()
            .filter(|(k, _)| !contracted.contains(k))
            .map(|(_, d)| d.clone())
            .collect::<Vec<_>>()
    };
    let mut out = free(&a, &axes_a);
    out.extend(free(&b, &axes_b));
    Some(Value::Tensor(Shape::known(out)))
}

/// `baddbmm(input, batch1, batch2)`: `bmm(batch1, batch2)` (`[b, n, m]`
/// times `[b, m, p]`) plus `input`, which must broadcast to `[b, n, p]`
/// without growing it.
pub(super) fn baddbmm(frame: &mut dyn RuleContext, args: &Args, range: TextRange) -> Option<Value> {
    let x = dims_of(frame, &args.shape("batch1")?)?;
    let y = dims_of(frame, &args.shape("batch2")?)?;
    let (tx, ty) = (args.text("batch1"), args.text("batch2"));
    if x.len() != 3 || y.len() != 3 {
        refuse(
            frame,
            range,
            format!(
                "`baddbmm` multiplies 3-D batches, but `{tx}` has rank {} and `{ty}` has rank {}",
                x.len(),
                y.len()
            ),
        );
        return Some(Value::Unknown);
    }
    require_equal(
        frame,
        &x[0],
        &y[0],
        "`baddbmm` gets batches of different sizes",
        format!("{tx}.shape[0]"),
        format!("{ty}.shape[0]"),
        range,
    );
    require_equal(
        frame,
        &x[2],
        &y[1],
        "shape mismatch in matrix multiplication",
        format!("{tx}.shape[2]"),
        format!("{ty}.shape[1]"),
        range,
    );
    let out = vec![x[0].clone(), x[1].clone(), y[2].clone()];
    let input = dims_of(frame, &args.shape("input")?)?;
    let text = args.text("input");
    if input.len() > 3 {
        refuse(
            frame,
            range,
            format!(
                "`baddbmm` adds `{text}` of rank {} to a result of rank 3",
                input.len()
            ),
        );
        return Some(Value::Unknown);
    }
    for (k, d) in input.iter().enumerate() {
        let at = 3 - input.len() + k;
        require(
            frame,
            Formula::or([Formula::eq(d, &out[at]), Formula::eq(d, &Term::int(1))]),
            range,
            format!(
                "`baddbmm`: `{text}`.shape[{k}] = {{}} does not broadcast to the product's {{}}"
            ),
            vec![d.clone(), out[at].clone()],
        );
    }
    Some(Value::Tensor(Shape::known(out)))
}

/// `scaled_dot_product_attention(query, key, value)`: `[.., L, E]`,
/// `[.., S, E]` and `[.., S, Ev]` give `[.., L, Ev]`, the batch
/// dimensions broadcast; a mask broadcasts with the scores `[.., L, S]`.
pub(super) fn attention(
    frame: &mut dyn RuleContext,
    args: &Args,
    range: TextRange,
) -> Option<Value> {
    let q = dims_of(frame, &args.shape("query")?)?;
    let k = dims_of(frame, &args.shape("key")?)?;
    let v = dims_of(frame, &args.shape("value")?)?;
    let (tq, tk, tv) = (args.text("query"), args.text("key"), args.text("value"));
    if q.len() < 2 || k.len() < 2 || v.len() < 2 {
        refuse(frame, range, format!("`scaled_dot_product_attention` needs query, key and value of rank at least 2, but they have ranks {}, {} and {}", q.len(), k.len(), v.len()));
        return Some(Value::Unknown);
    }
    let last = |d: &[Term], from_end: usize| d[d.len() - from_end].clone();
    require_equal(
        frame,
        &last(&q, 1),
        &last(&k, 1),
        "query and key have different embedding sizes",
        format!("{tq}.shape[-1]"),
        format!("{tk}.shape[-1]"),
        range,
    );
    require_equal(
        frame,
        &last(&k, 2),
        &last(&v, 2),
        "key and value have different lengths",
        format!("{tk}.shape[-2]"),
        format!("{tv}.shape[-2]"),
        range,
    );
    let batch = |d: &[Term]| Shape::known(d[..d.len() - 2].to_vec());
    let qk = broadcast(frame, &batch(&q), &batch(&k), (&tq, &tk), range);
    let batch = broadcast(frame, &qk, &batch(&v), (&tq, &tv), range);
    if let Some(mask) = args.shape("attn_mask") {
        let scores = batch.concat(&Shape::known(vec![last(&q, 2), last(&k, 2)]))?;
        // The scores are `query @ key.transpose(-2, -1)`, named so.
        let scores_text = format!("{tq} @ {tk}.transpose(-2, -1)");
        broadcast(
            frame,
            &mask,
            &scores,
            (&args.text("attn_mask"), &scores_text),
            range,
        );
    }
    let out = batch.concat(&Shape::known(vec![last(&q, 2), last(&v, 1)]))?;
    Some(Value::Tensor(out))
}
