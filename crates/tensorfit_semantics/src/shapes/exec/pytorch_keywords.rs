//! The named arguments of a call of a prelude operation, read as PyTorch
//! reads them before the call is bound.
//!
//! The prelude's contracts name the parameters that decide a shape. A call
//! may name others that PyTorch takes:
//!
//! - numpy's names for two of them, which PyTorch's argument parser takes
//!   for its native operations (`x.sum(axis=1)`,
//!   `torch.mean(x, -1, keepdims=True)`, `torch.cat(xs, axis=1)`);
//! - the variadic parameter by its name, given one sequence
//!   (`x.reshape(shape=(2, 3))`, `x.view(size=...)`, `torch.zeros(size=...)`);
//! - the tensor options and outputs, which never change a shape
//!   (`dtype=`, `device=`, `requires_grad=`, `out=`);
//! - any other, which the contract does not model.
//!
//! An argument of the last kind may change the result's shape, so the
//! call's value is unknown: binding without it once made
//! `x.view(dtype=torch.int16)` a view into no dimensions and reported a
//! false error. The same holds for a call whose arguments do not fit the
//! contract at all (too many, one missing, one given twice): the Tensor
//! language's name checks report those, and PyTorch code that runs has
//! an overload the prelude does not model.

use tensorfit_syntax::ast::{self, Unpack};

use crate::shapes::value::GivenArg;
use crate::signature::{bind, Binding};

/// numpy's parameter names that PyTorch's argument parser reads as its own.
const NUMPY_NAMES: &[(&str, &str)] = &[("axis", "dim"), ("keepdims", "keepdim")];

/// Named arguments that choose where or how a result is stored, never its
/// shape. `dtype` may change its items.
const SHAPE_NEUTRAL: &[&str] = &[
    "dtype",
    "device",
    "layout",
    "pin_memory",
    "requires_grad",
    "memory_format",
    "generator",
    "out",
    "non_blocking",
];

/// Operations where one of [`SHAPE_NEUTRAL`] selects another overload:
/// `x.view(dtype)` reinterprets the items, whose size may differ.
const OVERLOADED_BY_DTYPE: &[&str] = &["view"];

/// Operations that ignore every argument they are given, named ones too
/// (`nn.Identity(inplace=True)` where an activation is chosen by class).
const IGNORES_ARGUMENTS: &[&str] = &["Identity"];

/// A call's arguments made to fit the contract.
pub(super) struct FittedArguments {
    /// The arguments the contract binds, in order.
    pub given: Vec<GivenArg>,
    /// How they bind to [`parameters`] of the contract (after the
    /// receivers), without a problem.
    pub binding: Binding,
    /// Whether every named argument of the call is one of the contract's
    /// parameters, so that the operation's items may be computed (a
    /// `dtype=` changes them).
    pub all_keywords_modelled: bool,
}

/// `given` (after `receivers` leading positional arguments already bound)
/// made to fit `contract`, the prelude's contract of `op`; `None` where a
/// named argument is not modelled or the arguments do not fit.
pub(super) fn fit(
    op: &str,
    contract: &ast::Function,
    receivers: usize,
    given: Vec<GivenArg>,
) -> Option<FittedArguments> {
    let params = parameters(contract);
    let has = |name: &str| {
        params
            .iter()
            .any(|p| p.name.text == name && !p.variadic && p.collects.is_none())
    };
    let takes_any_keyword = params.iter().any(|p| p.collects == Some(Unpack::Keywords));
    let variadic = params.iter().find(|p| p.variadic).map(|p| &p.name.text);
    let mut fitted = Vec::with_capacity(given.len());
    let mut sequence_by_name = None;
    let mut all_keywords_modelled = true;
    for mut arg in given {
        let Some(name) = arg.name.as_deref() else {
            fitted.push(arg);
            continue;
        };
        if has(name) || takes_any_keyword {
            fitted.push(arg);
        } else if IGNORES_ARGUMENTS.contains(&op) {
            continue;
        } else if let Some((_, own)) = NUMPY_NAMES
            .iter()
            .find(|(numpy, own)| *numpy == name && has(own))
        {
            arg.name = Some((*own).to_owned());
            fitted.push(arg);
        } else if variadic.is_some_and(|v| v == name) {
            sequence_by_name = Some(arg);
        } else if SHAPE_NEUTRAL.contains(&name) && !OVERLOADED_BY_DTYPE.contains(&op) {
            all_keywords_modelled = false;
        } else {
            return None;
        }
    }
    if let Some(mut sequence) = sequence_by_name {
        // The variadic parameter's one value, where positional arguments
        // would have gone: after the positional ones, which must not
        // reach it themselves.
        sequence.name = None;
        let at = fitted
            .iter()
            .position(|a| a.name.is_some())
            .unwrap_or(fitted.len());
        let positional_params = params
            .iter()
            .take_while(|p| !p.variadic && p.collects.is_none())
            .count();
        if receivers + at > positional_params {
            return None;
        }
        fitted.insert(at, sequence);
    }
    let names: Vec<Option<&str>> = fitted.iter().map(|a| a.name.as_deref()).collect();
    let binding = bind(&params, receivers, &names);
    if !binding.problems.is_empty() {
        return None;
    }
    Some(FittedArguments {
        given: fitted,
        binding,
        all_keywords_modelled,
    })
}

/// The parameters a call of `contract` binds (all but `self`).
pub(super) fn parameters(contract: &ast::Function) -> Vec<&ast::Param> {
    contract.params.iter().filter(|p| !p.is_self).collect()
}
