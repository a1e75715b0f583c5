//! Shape operations: `reshape`/`view` (with `-1`), `flatten`, `squeeze`,
//! `unsqueeze`, `transpose`, `t`, `permute`, `expand`, `cat`/`stack`,
//! `narrow`, `split`/`chunk`, and the properties `size`, `dim`, `numel`.

use tensorfit_base::TextRange;
use tensorfit_solver::{Formula, Term};

use super::{
    axis, dims_of, product, refuse, require, require_equal, Args, RuleContext, Shape, Value,
};

/// The rule of `name`, one of this family's operations.
pub(super) fn apply(
    frame: &mut dyn RuleContext,
    name: &str,
    args: &Args,
    range: TextRange,
) -> Option<Value> {
    match name {
        "reshape" | "view" => reshape(frame, name, args, range),
        "flatten" => flatten(frame, args, range),
        "squeeze" => squeeze(frame, args, range),
        "unsqueeze" => {
            let dims = dims_of(frame, &args.shape("input")?)?;
            let d = args.int("dim")?.as_const()?;
            let rank = dims.len() as i64 + 1;
            if d < -rank || d >= rank {
                refuse(
                    frame,
                    range,
                    format!(
                        "`unsqueeze` dimension {d} is out of range for {} dimensions",
                        dims.len()
                    ),
                );
                return Some(Value::Unknown);
            }
            let at = if d < 0 { d + rank } else { d } as usize;
            let mut out = dims;
            out.insert(at, Term::int(1));
            Some(Value::Tensor(Shape::known(out)))
        }
        // `swapaxes` and `swapdims` are PyTorch's other names for it.
        "transpose" | "swapdims" | "swapaxes" => {
            let shape = args.shape("input")?;
            let (first, second) = match name {
                "swapaxes" => ("axis0", "axis1"),
                _ => ("dim0", "dim1"),
            };
            let (a, b) = (args.int(first)?, args.int(second)?);
            let Some(dims) = dims_of(frame, &shape) else {
                return Some(Value::Tensor(frame.fresh_shape()));
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
                refuse(
                    frame,
                    range,
                    format!(
                        "`permute` needs {} dimensions for `{}`, but {} were given",
                        dims.len(),
                        args.text("input"),
                        order.len()
                    ),
                );
                return Some(Value::Unknown);
            }
            for d in order {
                let i = axis(frame, &Term::int(d), dims.len(), name, range)?;
                if std::mem::replace(&mut seen[i], true) {
                    refuse(frame, range, format!("`permute` repeats dimension {i}"));
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
            let Some(offset) = target.len().checked_sub(input.len()) else {
                refuse(
                    frame,
                    range,
                    format!(
                        "`{name}`: the number of sizes provided ({}) must be greater or equal to the number of dimensions in the tensor ({})",
                        target.len(),
                        input.len()
                    ),
                );
                return Some(Value::Unknown);
            };
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
        "meshgrid" => meshgrid(frame, args, range),
        // `torch.diff(x, n, dim)`: `n` fewer along `dim`, for a known
        // size; an empty result (a size of `n` or less) is not followed,
        // like every empty tensor. `prepend`/`append` are not modelled.
        "diff" => {
            if !matches!(args.get("prepend"), Value::None)
                || !matches!(args.get("append"), Value::None)
            {
                return Some(Value::Unknown);
            }
            let dims = dims_of(frame, &args.shape("input")?)?;
            require(
                frame,
                Formula::truth(!dims.is_empty()),
                range,
                "`diff` needs a tensor of at least one dimension, not a scalar".to_owned(),
                vec![],
            );
            if dims.is_empty() {
                return Some(Value::Unknown);
            }
            let i = axis(frame, &args.int("dim")?, dims.len(), name, range)?;
            let n = args.int("n")?;
            let mut out = dims;
            let fewer = frame.known(&Term::sub(&out[i], &n)).as_const();
            match fewer {
                Some(size) if size > 0 => out[i] = Term::int(size),
                _ => return Some(Value::Unknown),
            }
            Some(Value::Tensor(Shape::known(out)))
        }
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
        "split" | "chunk" => split(frame, name, args, range),
        _ => None,
    }
}

/// The parameter of `reshape` or `view` that holds the shape asked for,
/// by PyTorch's names: `reshape(shape)`, `view(size)`.
pub fn reshape_target(op: &str) -> &'static str {
    match op {
        "view" => "size",
        _ => "shape",
    }
}

fn reshape(
    frame: &mut dyn RuleContext,
    name: &str,
    args: &Args,
    range: TextRange,
) -> Option<Value> {
    let input = frame.refine_shape(&args.shape("input")?);
    let target = args.get(reshape_target(name)).as_dims()?;
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
            refuse(
                frame,
                range,
                format!(
                    "`{name}` can infer only one dimension, but -1 appears {} times",
                    holes.len()
                ),
            );
            Some(Value::Unknown)
        }
    }
}

pub(super) fn flatten(frame: &mut dyn RuleContext, args: &Args, range: TextRange) -> Option<Value> {
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
        refuse(
            frame,
            range,
            format!("`flatten`: start_dim {start} comes after end_dim {end}"),
        );
        return Some(Value::Unknown);
    }
    let mut out = dims[..start].to_vec();
    out.push(product(&dims[start..=end]));
    out.extend(dims[end + 1..].iter().cloned());
    Some(Value::Tensor(Shape::known(out)))
}

fn squeeze(frame: &mut dyn RuleContext, args: &Args, range: TextRange) -> Option<Value> {
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
                None => return Some(Value::Tensor(frame.fresh_shape())),
            }
            Some(Value::Tensor(Shape::known(out)))
        }
        _ => {
            if dims.iter().any(|d| d.as_const().is_none()) {
                return Some(Value::Tensor(frame.fresh_shape()));
            }
            Some(Value::Tensor(Shape::known(
                dims.into_iter()
                    .filter(|d| d.as_const() != Some(1))
                    .collect(),
            )))
        }
    }
}

fn join(frame: &mut dyn RuleContext, name: &str, args: &Args, range: TextRange) -> Option<Value> {
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
            refuse(frame, range, format!("`cat`: tensor {k} has no dimensions; a zero-dimensional tensor cannot be concatenated"));
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
            refuse(
                frame,
                range,
                format!(
                    "`{name}`: tensor {k} has {} dimensions but tensor 0 has {}",
                    shape.len(),
                    first.len()
                ),
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
        out[d] = Term::sum(shapes.iter().map(|s| s[d].clone()));
    } else {
        out.insert(d, Term::int(shapes.len() as i64));
    }
    Some(Value::Tensor(Shape::known(out)))
}

/// `split(t, size, dim)` and `chunk(t, chunks, dim)`: a tuple of tensors,
/// when the split dimension is known.
fn split(frame: &mut dyn RuleContext, name: &str, args: &Args, range: TextRange) -> Option<Value> {
    let key = if name == "split" { "tensor" } else { "input" };
    let dims = dims_of(frame, &args.shape(key)?)?;
    let d = axis(
        frame,
        &args.int("dim").unwrap_or(Term::int(0)),
        dims.len(),
        name,
        range,
    )?;
    // The dimension and the part size as far as the path fixes them: the
    // number of parts is the tuple's arity, which destructuring needs.
    let total = frame.known(&dims[d]);
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
        ("split", Value::Int(size)) => match (known, frame.known(size)) {
            (Some(total), size) if size.as_const().is_some_and(|s| s > 0) => {
                let size = size.as_const().unwrap_or(1);
                (0..total)
                    .step_by(size as usize)
                    .map(|start| Term::int(size.min(total - start)))
                    .collect()
            }
            (_, size) => match total.multiple_of(&size) {
                Some(parts) if parts > 0 => vec![size.clone(); parts as usize],
                _ => return Some(Value::Unknown),
            },
        },
        ("split", Value::List(sections) | Value::Tuple(sections)) => {
            let sections: Vec<Term> = sections
                .iter()
                .map(|v| v.as_int().cloned())
                .collect::<Option<_>>()?;
            let sum = Term::sum(sections.iter().cloned());
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
            let chunks = frame.known(chunks).as_const().filter(|c| *c > 0)?;
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

/// `torch.meshgrid(a, b, ...)` (or of a list): a tuple of one grid per
/// input, each of the inputs' sizes in order (`indexing="xy"` swaps the
/// first two); each input has at most one dimension.
fn meshgrid(frame: &mut dyn RuleContext, args: &Args, range: TextRange) -> Option<Value> {
    let mut inputs = match args.get("tensors") {
        Value::List(items) | Value::Tuple(items) => items.clone(),
        _ => return Some(Value::Unknown),
    };
    if let [Value::List(inner) | Value::Tuple(inner)] = inputs.as_slice() {
        inputs = inner.clone();
    }
    if inputs.is_empty() {
        return Some(Value::Unknown);
    }
    let mut sizes = Vec::new();
    for input in &inputs {
        let Some(shape) = input.tensor_shape() else {
            return Some(Value::Unknown);
        };
        let dims = dims_of(frame, &shape)?;
        match dims.as_slice() {
            [] => sizes.push(Term::int(1)),
            [size] => sizes.push(size.clone()),
            _ => {
                require(
                    frame,
                    Formula::truth(false),
                    range,
                    format!(
                        "`meshgrid` takes tensors of at most one dimension, not of rank {}",
                        dims.len()
                    ),
                    vec![],
                );
                return Some(Value::Unknown);
            }
        }
    }
    match args.get("indexing") {
        Value::None => {}
        Value::Str(how) if how == "ij" => {}
        Value::Str(how) if how == "xy" && sizes.len() >= 2 => sizes.swap(0, 1),
        _ => return Some(Value::Unknown),
    }
    let grid = Value::Tensor(Shape::known(sizes));
    Some(Value::Tuple(vec![grid; inputs.len()]))
}
