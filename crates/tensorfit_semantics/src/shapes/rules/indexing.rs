//! Indexing, repeating and sorting: `gather`, `index_select`, `repeat`,
//! `tile`, `repeat_interleave`, `unbind`, `topk`, `sort`.

use tensorfit_base::TextRange;
use tensorfit_solver::{Formula, Term};

use super::{axis, dims_of, product, refuse, require, Args, RuleContext, Shape, Value};

/// More parts than this are not listed one by one (`unbind` of a
/// dimension of a million): the result is left unknown.
const MAX_PARTS: i64 = 1024;

/// The rule of `name`, one of this family's operations.
pub(super) fn apply(
    frame: &mut dyn RuleContext,
    name: &str,
    args: &Args,
    range: TextRange,
) -> Option<Value> {
    match name {
        "repeat" => repeat(frame, args, range, "repeats"),
        "tile" => repeat(frame, args, range, "dims"),
        "repeat_interleave" => repeat_interleave(frame, args, range),
        "unbind" => unbind(frame, args, range),
        "gather" => gather(frame, args, range),
        "index_select" => index_select(frame, args, range),
        "topk" => top_k(frame, args, range),
        "sort" => {
            let shape = args.shape("input")?;
            let dims = dims_of(frame, &shape)?;
            let dim = args.int("dim").unwrap_or(Term::int(-1));
            let _ = axis(frame, &dim, dims.len(), name, range);
            Some(Value::Tuple(vec![
                Value::Tensor(shape.clone()),
                Value::Tensor(shape),
            ]))
        }
        _ => None,
    }
}

/// `repeat(x, repeats)` and `tile(x, dims)`: each dimension times its
/// count, the shorter of the two padded with leading ones. `repeat` needs
/// a count for every dimension of the input.
fn repeat(frame: &mut dyn RuleContext, args: &Args, range: TextRange, key: &str) -> Option<Value> {
    let dims = dims_of(frame, &args.shape("input")?)?;
    let counts = args.get(key).as_dims()?.dims()?.to_vec();
    let op = if key == "repeats" { "repeat" } else { "tile" };
    if op == "repeat" && counts.len() < dims.len() {
        refuse(
            frame,
            range,
            format!(
                "`repeat` needs a count for each of the {} dimensions of `{}`, but {} were given",
                dims.len(),
                args.text("input"),
                counts.len()
            ),
        );
        return Some(Value::Unknown);
    }
    for (i, count) in counts.iter().enumerate() {
        require(
            frame,
            Formula::ge(count, &Term::int(0)),
            range,
            format!("`{op}` counts cannot be negative, but count {i} is {{}}"),
            vec![count.clone()],
        );
    }
    let rank = dims.len().max(counts.len());
    let pad = |items: &[Term]| {
        let mut padded = vec![Term::int(1); rank - items.len()];
        padded.extend_from_slice(items);
        padded
    };
    let out = pad(&dims)
        .iter()
        .zip(pad(&counts))
        .map(|(d, c)| Term::mul(d, &c))
        .collect();
    Some(Value::Tensor(Shape::known(out)))
}

/// `repeat_interleave(x, repeats, dim)`: `dim` (or the flattened input)
/// times `repeats`. A tensor of repeats gives a shape that depends on its
/// values: unknown.
fn repeat_interleave(frame: &mut dyn RuleContext, args: &Args, range: TextRange) -> Option<Value> {
    let dims = dims_of(frame, &args.shape("input")?)?;
    let Value::Int(repeats) = args.get("repeats") else {
        return Some(Value::Unknown);
    };
    require(
        frame,
        Formula::ge(repeats, &Term::int(0)),
        range,
        "`repeat_interleave` repeats cannot be negative, but they are {}".to_owned(),
        vec![repeats.clone()],
    );
    let out = match args.get("dim") {
        Value::None => vec![Term::mul(&product(&dims), repeats)],
        Value::Int(dim) => {
            let d = axis(frame, dim, dims.len(), "repeat_interleave", range)?;
            let mut out = dims;
            out[d] = Term::mul(&out[d], repeats);
            out
        }
        _ => return Some(Value::Unknown),
    };
    Some(Value::Tensor(Shape::known(out)))
}

/// `unbind(x, dim)`: a tuple of the slices along `dim`, when its size is
/// known.
fn unbind(frame: &mut dyn RuleContext, args: &Args, range: TextRange) -> Option<Value> {
    let dims = dims_of(frame, &args.shape("input")?)?;
    let dim = args.int("dim").unwrap_or(Term::int(0));
    let d = axis(frame, &dim, dims.len(), "unbind", range)?;
    let count = dims[d].as_const().filter(|n| (0..=MAX_PARTS).contains(n))?;
    let mut part = dims;
    part.remove(d);
    Some(Value::Tuple(
        (0..count)
            .map(|_| Value::Tensor(Shape::known(part.clone())))
            .collect(),
    ))
}

/// `gather(x, dim, index)`: the index's shape; the index has the input's
/// rank and is no larger than the input outside `dim`.
fn gather(frame: &mut dyn RuleContext, args: &Args, range: TextRange) -> Option<Value> {
    let input = dims_of(frame, &args.shape("input")?)?;
    let index_shape = args.shape("index")?;
    let index = dims_of(frame, &index_shape)?;
    let (input_text, index_text) = (args.text("input"), args.text("index"));
    if index.len() != input.len() {
        refuse(frame, range, format!(
                "`gather` needs an index of the input's rank: `{index_text}` has rank {} but `{input_text}` has rank {}",
                index.len(),
                input.len()
            ));
        return Some(Value::Unknown);
    }
    let d = axis(frame, &args.int("dim")?, input.len(), "gather", range)?;
    for (i, (n, m)) in index.iter().zip(&input).enumerate() {
        if i != d {
            require(
                frame,
                Formula::le(n, m),
                range,
                format!(
                    "`gather`: `{index_text}`.shape[{i}] = {{}} is larger than `{input_text}`.shape[{i}] = {{}}"
                ),
                vec![n.clone(), m.clone()],
            );
        }
    }
    Some(Value::Tensor(index_shape))
}

/// `index_select(x, dim, index)`: `dim` becomes the number of indices (a
/// vector of them, or one).
fn index_select(frame: &mut dyn RuleContext, args: &Args, range: TextRange) -> Option<Value> {
    let input = dims_of(frame, &args.shape("input")?)?;
    let index = dims_of(frame, &args.shape("index")?)?;
    let count = match index.as_slice() {
        [] => Term::int(1),
        [n] => n.clone(),
        _ => {
            refuse(
                frame,
                range,
                format!(
                    "`index_select` needs a vector of indices, but `{}` has rank {}",
                    args.text("index"),
                    index.len()
                ),
            );
            return Some(Value::Unknown);
        }
    };
    let d = axis(frame, &args.int("dim")?, input.len(), "index_select", range)?;
    let mut out = input;
    out[d] = count;
    Some(Value::Tensor(Shape::known(out)))
}

/// `topk(x, k, dim)`: the values and their indices, `dim` cut to `k`
/// (which the dimension must have).
fn top_k(frame: &mut dyn RuleContext, args: &Args, range: TextRange) -> Option<Value> {
    let dims = dims_of(frame, &args.shape("input")?)?;
    let k = args.int("k")?;
    let dim = args.int("dim").unwrap_or(Term::int(-1));
    let d = axis(frame, &dim, dims.len(), "topk", range)?;
    require(
        frame,
        Formula::and([Formula::ge(&k, &Term::int(0)), Formula::le(&k, &dims[d])]),
        range,
        format!(
            "`topk` selects k = {{}} of the {{}} elements along dimension {d} of `{}`",
            args.text("input")
        ),
        vec![k.clone(), dims[d].clone()],
    );
    let mut out = dims;
    out[d] = k;
    let part = Value::Tensor(Shape::known(out));
    Some(Value::Tuple(vec![part.clone(), part]))
}
