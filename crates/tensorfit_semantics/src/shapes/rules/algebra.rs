//! The tensor algebra of Rink's model language (seed 003) and TeIL (seed
//! 004), with 0-based dimension positions (the papers count from 1):
//!
//! | operation | requires | result |
//! |---|---|---|
//! | `outer(A, B)` | — | `A.shape ++ B.shape` |
//! | `contract(A, i, j)` | `i != j`, `A[i] == A[j]` | `A` without dimensions `i` and `j` |
//! | `diag(A, i, j)` | `i != j`, `A[i] == A[j]` | `A` without dimension `j` |
//! | `expand_dim(A, i, n)` | `0 <= i <= rank`, `n >= 1` | `A` with `n` inserted at `i` |
//! | `project(A, i, m)` | `0 <= m < A[i]` | `A` without dimension `i` |
//! | `reduce_sum/prod(A, i)` | — | `A` without dimension `i` |
//! | `reduce_max/min(A, i)` | `A[i] >= 1` (no maximum of nothing) | `A` without dimension `i` |
//!
//! `outer` is in [`super::rules`] with the other joins. Positions must be
//! integer constants; a position that is not gives a result of unknown
//! shape (and no error). Negative positions are not the papers' and are
//! refused, as positions past the rank are.

use tensorfit_base::TextRange;
use tensorfit_solver::{Formula, Term};

use super::RuleContext;
use super::{dims_of, require, require_equal, Args};
use crate::shapes::value::{Shape, Value};

/// The rule of an algebra operation: `None` when the arguments are not
/// what it takes (the call is then checked against its contract only).
pub fn apply(
    frame: &mut dyn RuleContext,
    name: &str,
    args: &Args,
    range: TextRange,
) -> Option<Value> {
    if name == "outer" {
        return outer(frame, args);
    }
    let input = args.get("input").tensor_shape()?;
    let text = args.text("input");
    let Some(dims) = dims_of(frame, &input) else {
        return Some(unknown(frame));
    };
    let operand = Operand {
        op: name,
        text: &text,
        dims: &dims,
        range,
    };
    let out = match name {
        "contract" | "diag" => {
            let (Some(i), Some(j)) = (constant(args, "i"), constant(args, "j")) else {
                return Some(unknown(frame));
            };
            let (i, j) = (operand.position(frame, i)?, operand.position(frame, j)?);
            if i == j {
                operand.refuse(
                    frame,
                    format!("`{name}` needs two different dimensions, but both are {i}"),
                );
                return Some(unknown(frame));
            }
            require_equal(
                frame,
                &dims[i],
                &dims[j],
                &format!("`{name}` pairs dimensions {i} and {j}, whose sizes differ"),
                format!("{text}.shape[{i}]"),
                format!("{text}.shape[{j}]"),
                range,
            );
            let removed: &[usize] = if name == "contract" { &[i, j] } else { &[j] };
            without(&dims, removed)
        }
        "expand_dim" => {
            let (Some(i), Some(n)) = (constant(args, "i"), args.get("n").as_int().cloned()) else {
                return Some(unknown(frame));
            };
            if i < 0 || i as usize > dims.len() {
                operand.refuse(
                    frame,
                    format!(
                        "`expand_dim` inserts at position {i}, but `{text}` has rank {} (positions 0 to {})",
                        dims.len(),
                        dims.len()
                    ),
                );
                return Some(unknown(frame));
            }
            require(
                frame,
                Formula::ge(&n, &Term::int(1)),
                range,
                "`expand_dim` needs a new dimension of at least 1, but it is {}".to_owned(),
                vec![n.clone()],
            );
            let mut out = dims.clone();
            out.insert(i as usize, n);
            out
        }
        "project" => {
            let (Some(i), Some(m)) = (constant(args, "i"), args.get("m").as_int().cloned()) else {
                return Some(unknown(frame));
            };
            let i = operand.position(frame, i)?;
            require(
                frame,
                Formula::and([Formula::ge(&m, &Term::int(0)), Formula::lt(&m, &dims[i])]),
                range,
                format!(
                    "`project` selects index {{}} of dimension {i} of `{text}`, whose size is {{}}"
                ),
                vec![m.clone(), dims[i].clone()],
            );
            without(&dims, &[i])
        }
        _ => {
            // reduce_sum, reduce_prod, reduce_max, reduce_min
            let Some(i) = constant(args, "i") else {
                return Some(unknown(frame));
            };
            let i = operand.position(frame, i)?;
            if matches!(name, "reduce_max" | "reduce_min") {
                require(
                    frame,
                    Formula::ge(&dims[i], &Term::int(1)),
                    range,
                    format!("`{name}` of an empty dimension: `{text}`.shape[{i}] = {{}}"),
                    vec![dims[i].clone()],
                );
            }
            without(&dims, &[i])
        }
    };
    Some(Value::Tensor(Shape::known(out)))
}

/// The tensor an operation applies to, for positions and messages.
struct Operand<'t> {
    op: &'t str,
    text: &'t str,
    dims: &'t [Term],
    range: TextRange,
}

impl Operand<'_> {
    /// A dimension position of the operand, or an error if it has none.
    fn position(&self, frame: &mut dyn RuleContext, at: i64) -> Option<usize> {
        if at < 0 || at as usize >= self.dims.len() {
            self.refuse(
                frame,
                format!(
                    "`{}` has no dimension {at} in `{}`, of rank {}",
                    self.op,
                    self.text,
                    self.dims.len()
                ),
            );
            return None;
        }
        Some(at as usize)
    }

    fn refuse(&self, frame: &mut dyn RuleContext, message: String) {
        require(frame, Formula::truth(false), self.range, message, vec![]);
    }
}

fn constant(args: &Args, name: &str) -> Option<i64> {
    args.get(name).as_int()?.as_const()
}

fn without(dims: &[Term], removed: &[usize]) -> Vec<Term> {
    dims.iter()
        .enumerate()
        .filter(|(i, _)| !removed.contains(i))
        .map(|(_, d)| d.clone())
        .collect()
}

fn unknown(frame: &dyn RuleContext) -> Value {
    Value::Tensor(frame.fresh_shape())
}

/// The tensor product of any ranks: the dimensions of both, in order.
fn outer(frame: &mut dyn RuleContext, args: &Args) -> Option<Value> {
    let (a, b) = (args.shape("input")?, args.shape("vec2")?);
    Some(Value::Tensor(
        frame
            .refine_shape(&a)
            .concat(&frame.refine_shape(&b))
            .unwrap_or_else(|| frame.fresh_shape()),
    ))
}
