//! `einsum` with PyTorch's equations (explicit `->` or implicit output),
//! evaluated as loops over every letter.

use std::collections::BTreeMap;

use ndarray::{ArrayD, Dimension, IxDyn};

use super::{Args, OpContext};
use crate::error::{Failure, Outcome};
use crate::value::{Tensor, Value};

pub fn call(ctx: &mut OpContext, name: &str, args: &Args) -> Outcome<Option<Value>> {
    if name != "einsum" {
        return Ok(None);
    }
    let equation = args
        .str("equation")
        .ok_or_else(|| Failure::shape("`einsum` takes the equation as a string"))?
        .to_owned();
    let operands = args.tensors("operands")?;
    let operands: Vec<&Tensor> = operands.iter().map(|t| t.as_ref()).collect();
    einsum(ctx, &equation, &operands).map(|t| Some(Value::tensor(t)))
}

pub fn einsum(ctx: &OpContext, equation: &str, operands: &[&Tensor]) -> Outcome<Tensor> {
    let equation: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    if equation.contains("...") {
        return Err(Failure::program(
            "the interpreter does not run `einsum` equations with `...`",
        ));
    }
    let (inputs, output) = match equation.split_once("->") {
        Some((i, o)) => (i.to_owned(), Some(o.to_owned())),
        None => (equation.clone(), None),
    };
    let terms: Vec<Vec<char>> = inputs.split(',').map(|t| t.chars().collect()).collect();
    if let Some(bad) = equation
        .chars()
        .find(|c| !(c.is_ascii_alphabetic() || matches!(c, ',' | '-' | '>')))
    {
        return Err(Failure::shape(format!(
            "not an einsum equation: `{bad}` is not a letter, `,` or `->`"
        )));
    }
    if terms.len() != operands.len() {
        return Err(Failure::shape(format!(
            "`einsum`: the equation has {} terms but {} tensors were given",
            terms.len(),
            operands.len()
        )));
    }
    let mut extents: BTreeMap<char, usize> = BTreeMap::new();
    let mut counts: BTreeMap<char, usize> = BTreeMap::new();
    for (term, t) in terms.iter().zip(operands) {
        if term.len() != t.ndim() {
            return Err(Failure::shape(format!(
                "`einsum`: the term `{}` names {} dimensions, but its tensor has {}",
                term.iter().collect::<String>(),
                term.len(),
                t.ndim()
            )));
        }
        for (letter, extent) in term.iter().zip(t.shape()) {
            *counts.entry(*letter).or_default() += 1;
            match extents.get(letter) {
                Some(e) if e != extent => {
                    return Err(Failure::shape(format!(
                        "einsum index `{letter}` labels dimensions of different sizes: {e} and {extent}"
                    )))
                }
                Some(_) => {}
                None => {
                    extents.insert(*letter, *extent);
                }
            }
        }
    }
    let output: Vec<char> = match output {
        Some(o) => o.chars().collect(),
        // Implicit: the letters used once, in alphabetical order.
        None => counts
            .iter()
            .filter(|(_, n)| **n == 1)
            .map(|(c, _)| *c)
            .collect(),
    };
    let mut shape = Vec::new();
    for (i, letter) in output.iter().enumerate() {
        if output[..i].contains(letter) {
            return Err(Failure::shape(format!(
                "`einsum`: the output letter `{letter}` is written twice"
            )));
        }
        let extent = extents.get(letter).ok_or_else(|| {
            Failure::shape(format!(
                "`einsum`: the output letter `{letter}` is in no input"
            ))
        })?;
        shape.push(*extent);
    }
    ctx.check_size(&shape)?;
    let summed: Vec<char> = extents
        .keys()
        .filter(|c| !output.contains(c))
        .copied()
        .collect();
    let summed_extents: Vec<usize> = summed.iter().map(|c| extents[c]).collect();
    let mut result = ArrayD::<f32>::zeros(IxDyn(&shape));
    let mut values: BTreeMap<char, usize> = BTreeMap::new();
    for (index, slot) in result.indexed_iter_mut() {
        for (letter, at) in output.iter().zip(index.slice()) {
            values.insert(*letter, *at);
        }
        let mut point = vec![0usize; summed.len()];
        let mut total = 0.0f32;
        'points: loop {
            for (letter, at) in summed.iter().zip(&point) {
                values.insert(*letter, *at);
            }
            if summed_extents.iter().all(|e| *e > 0) {
                let mut product = 1.0f32;
                for (term, t) in terms.iter().zip(operands) {
                    let at: Vec<usize> = term.iter().map(|c| values[c]).collect();
                    product *= t[IxDyn(&at)];
                }
                total += product;
            }
            let mut d = point.len();
            loop {
                if d == 0 {
                    break 'points;
                }
                d -= 1;
                point[d] += 1;
                if point[d] < summed_extents[d] {
                    break;
                }
                point[d] = 0;
            }
        }
        *slot = total;
    }
    Ok(result)
}
