//! `einsum(equation, operands...)` with PyTorch's rules, on the index
//! machinery's terms: each letter is an index whose extent is the first
//! dimension it labels; every other dimension it labels must have that
//! extent; the result has the output letters' extents. Without `->`, the
//! output is the letters used once, in alphabetical order.
//!
//! Errors point at the offending letter inside the equation string when
//! the string is written literally. An equation with `...` (broadcast
//! dimensions) is not checked: its result is unknown.

use tensorfit_base::TextRange;
use tensorfit_solver::Term;

use tensorfit_solver::Formula;
use tensorfit_syntax::ast::{self, ExprKind};

use super::exec::Frame;
use super::rules::{require, require_equal};
use super::value::{Shape, Value};

/// A parsed equation: the letters of each input term and of the output,
/// each with its byte offset in the equation.
#[derive(Debug, PartialEq, Eq)]
pub struct Equation {
    pub inputs: Vec<Vec<(char, usize)>>,
    pub output: Vec<(char, usize)>,
}

/// Why a string is not an einsum equation, and where (bytes).
#[derive(Debug, PartialEq, Eq)]
pub struct EquationError {
    pub at: usize,
    pub len: usize,
    pub message: String,
}

impl Equation {
    /// `None` for an equation with `...`, which is valid but not checked.
    pub fn parse(equation: &str) -> Result<Option<Equation>, EquationError> {
        if equation.contains("...") {
            return Ok(None);
        }
        let (lhs, rhs) = match equation.find("->") {
            Some(arrow) => (
                &equation[..arrow],
                Some((arrow + 2, &equation[arrow + 2..])),
            ),
            None => (equation, None),
        };
        let mut inputs = vec![Vec::new()];
        for (at, c) in lhs.char_indices() {
            match c {
                ',' => inputs.push(Vec::new()),
                ' ' => {}
                c if c.is_ascii_alphabetic() => inputs.last_mut().expect("one term").push((c, at)),
                other => return Err(not_a_letter(other, at)),
            }
        }
        let output = match rhs {
            Some((start, rhs)) => {
                let mut output: Vec<(char, usize)> = Vec::new();
                for (offset, c) in rhs.char_indices() {
                    let at = start + offset;
                    match c {
                        ' ' => {}
                        c if c.is_ascii_alphabetic() => {
                            if output.iter().any(|(o, _)| *o == c) {
                                return Err(EquationError {
                                    at,
                                    len: 1,
                                    message: format!("`{c}` appears twice in the einsum output"),
                                });
                            }
                            if !inputs.iter().flatten().any(|(i, _)| *i == c) {
                                return Err(EquationError {
                                    at,
                                    len: 1,
                                    message: format!(
                                        "`{c}` is in the einsum output but in no input"
                                    ),
                                });
                            }
                            output.push((c, at));
                        }
                        other => return Err(not_a_letter(other, at)),
                    }
                }
                output
            }
            None => {
                // Implicit output: the letters used once, sorted.
                let mut once: Vec<(char, usize)> = inputs
                    .iter()
                    .flatten()
                    .filter(|(c, _)| inputs.iter().flatten().filter(|(d, _)| d == c).count() == 1)
                    .copied()
                    .collect();
                once.sort();
                once
            }
        };
        Ok(Some(Equation { inputs, output }))
    }
}

fn not_a_letter(c: char, at: usize) -> EquationError {
    EquationError {
        at,
        len: c.len_utf8(),
        message: format!("not an einsum equation: `{c}` is not a letter, `,` or `->`"),
    }
}

/// One tensor given to `einsum`: its shape and its source text.
pub struct Operand {
    pub shape: Shape,
    pub text: String,
}

/// Where the equation's characters are: `start` is the offset of its
/// first character when it is a plain literal, else the whole argument.
#[derive(Clone, Copy)]
pub struct EquationPlace {
    pub literal: TextRange,
    pub start: Option<u32>,
}

impl EquationPlace {
    fn at(&self, offset: usize, len: usize) -> TextRange {
        match self.start {
            Some(start) => {
                let from = start as usize + offset;
                TextRange::new(from, from + len)
            }
            None => self.literal,
        }
    }
}

pub fn apply(
    frame: &mut Frame<'_, '_>,
    equation: &str,
    place: EquationPlace,
    operands: &[Operand],
) -> Value {
    let parsed = match Equation::parse(equation) {
        Ok(Some(parsed)) => parsed,
        Ok(None) => return unknown(frame),
        Err(error) => {
            require(
                frame,
                Formula::truth(false),
                place.at(error.at, error.len),
                error.message,
                vec![],
            );
            return unknown(frame);
        }
    };
    if parsed.inputs.len() != operands.len() {
        require(
            frame,
            Formula::truth(false),
            place.literal,
            format!(
                "the einsum equation has {} but {} given",
                match parsed.inputs.len() {
                    1 => "1 input term".to_owned(),
                    n => format!("{n} input terms"),
                },
                match operands.len() {
                    1 => "1 tensor is".to_owned(),
                    n => format!("{n} tensors are"),
                }
            ),
            vec![],
        );
        return unknown(frame);
    }
    // Each letter's extent: the first dimension it labels.
    let mut extents: Vec<(char, Term, String)> = Vec::new();
    for (term, operand) in parsed.inputs.iter().zip(operands) {
        let Some(dims) = frame
            .refine_shape(&operand.shape)
            .dims()
            .map(<[Term]>::to_vec)
        else {
            return unknown(frame);
        };
        if term.len() != dims.len() {
            let (at, len) = match (term.first(), term.last()) {
                (Some((_, a)), Some((_, b))) => (*a, b - a + 1),
                _ => (0, 0),
            };
            require(
                frame,
                Formula::truth(false),
                if term.is_empty() {
                    place.literal
                } else {
                    place.at(at, len)
                },
                format!(
                    "`{}` has rank {} but its einsum term `{}` names {} dimensions",
                    operand.text,
                    dims.len(),
                    term.iter().map(|(c, _)| *c).collect::<String>(),
                    term.len()
                ),
                vec![],
            );
            return unknown(frame);
        }
        for (k, ((letter, at), dim)) in term.iter().zip(&dims).enumerate() {
            let here = format!("{}.shape[{k}]", operand.text);
            match extents.iter().find(|(c, _, _)| c == letter) {
                Some((_, first, where_first)) => require_equal(
                    frame,
                    first,
                    dim,
                    &format!("einsum index `{letter}` labels dimensions of different sizes"),
                    where_first.clone(),
                    here,
                    place.at(*at, 1),
                ),
                None => extents.push((*letter, dim.clone(), here)),
            }
        }
    }
    let out = parsed
        .output
        .iter()
        .filter_map(|(letter, _)| extents.iter().find(|(c, _, _)| c == letter))
        .map(|(_, extent, _)| extent.clone())
        .collect();
    Value::Tensor(Shape::known(out))
}

impl Frame<'_, '_> {
    /// A call of the prelude's `einsum` with its arguments as written:
    /// `None` when they are not an equation and tensors (the call is then
    /// checked against the contract alone).
    pub fn call_einsum(&mut self, args: &[ast::Arg]) -> Option<Value> {
        let (equation_arg, rest): (Vec<&ast::Arg>, Vec<&ast::Arg>) = {
            let named = args
                .iter()
                .position(|a| a.name.as_ref().is_some_and(|n| n.text == "equation"));
            let at = named.or_else(|| args.iter().position(|a| a.name.is_none()))?;
            let (one, others): (Vec<_>, Vec<_>) =
                args.iter().enumerate().partition(|(i, _)| *i == at);
            (
                one.into_iter().map(|(_, a)| a).collect(),
                others.into_iter().map(|(_, a)| a).collect(),
            )
        };
        let literal = &equation_arg.first()?.value;
        let (equation, start) = match &literal.kind {
            // A plain literal: its characters are the equation's, after
            // the opening quote.
            ExprKind::Str(text) if literal.range.as_usize().len() == text.len() + 2 => {
                (text.clone(), Some(literal.range.start + 1))
            }
            _ => match self.expr(literal) {
                Value::Str(text) => (text, None),
                _ => return None,
            },
        };
        let mut operands = Vec::new();
        for arg in rest {
            let shape = self.expr(&arg.value).tensor_shape()?;
            operands.push(Operand {
                shape,
                text: self.describe(&arg.value),
            });
        }
        let place = EquationPlace {
            literal: literal.range,
            start,
        };
        Some(apply(self, &equation, place, &operands))
    }
}

fn unknown(frame: &Frame<'_, '_>) -> Value {
    Value::Tensor(Shape::opaque(frame.analysis.vars.fresh()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn letters(term: &[(char, usize)]) -> String {
        term.iter().map(|(c, _)| *c).collect()
    }

    #[test]
    fn explicit_and_implicit_outputs() {
        let e = Equation::parse("bij,bjk->bik").unwrap().unwrap();
        assert_eq!(
            e.inputs.iter().map(|t| letters(t)).collect::<Vec<_>>(),
            ["bij", "bjk"]
        );
        assert_eq!(letters(&e.output), "bik");
        assert_eq!(e.output[0].1, 9);
        // Implicit: letters used once, alphabetically (`ij,jk` is `ik`).
        let e = Equation::parse("kj,ji").unwrap().unwrap();
        assert_eq!(letters(&e.output), "ik");
        // A trace has a scalar result.
        let e = Equation::parse("ii").unwrap().unwrap();
        assert_eq!(letters(&e.output), "");
    }

    #[test]
    fn what_is_not_an_equation_is_located() {
        let error = Equation::parse("ij,j#->i").unwrap_err();
        assert_eq!((error.at, error.len), (4, 1));
        let error = Equation::parse("ij,jk->iz").unwrap_err();
        assert_eq!(error.at, 8);
        assert!(error.message.contains("`z`"), "{}", error.message);
        let error = Equation::parse("ij->ii").unwrap_err();
        assert!(error.message.contains("twice"), "{}", error.message);
    }

    #[test]
    fn ellipsis_is_left_unchecked() {
        assert_eq!(Equation::parse("...ij,...jk->...ik"), Ok(None));
    }
}
