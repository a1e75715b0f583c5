//! What a callee accepts, and the matching of a call's arguments against it.

use tensorfit_base::{Code, Diagnostic, TextRange};
use tensorfit_syntax::ast;

use crate::suggest::did_you_mean;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    /// How the callee is named in messages: `conv2d`, `Block`, `Model.forward`.
    pub display_name: String,
    pub params: Vec<SignatureParam>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureParam {
    pub name: String,
    /// No default and not variadic: every call must give it.
    pub required: bool,
    /// `..name` (Python's `*args`): takes every remaining positional
    /// argument.
    pub variadic: bool,
    /// Python's `**kwargs`: takes every named argument no other parameter
    /// takes.
    pub keywords: bool,
}

impl Signature {
    /// The signature of a function, a method (without `self`) or a struct's
    /// constructor (its parameter list).
    pub fn from_params(display_name: impl Into<String>, params: &[ast::Param]) -> Signature {
        Signature {
            display_name: display_name.into(),
            params: params
                .iter()
                .filter(|p| !p.is_self)
                .map(|p| SignatureParam {
                    name: p.name.text.clone(),
                    required: Parameter::required(p),
                    variadic: Parameter::variadic(p),
                    keywords: p.keywords(),
                })
                .collect(),
        }
    }

    /// Binds a call's arguments to the parameters ([`bind`]).
    pub fn bind(&self, receiver_args: usize, names: &[Option<&str>]) -> Binding {
        bind(&self.params, receiver_args, names)
    }

    /// Matches `args` (after `receiver_args` already-given leading positional
    /// arguments, e.g. the receiver of a method call) against the parameters
    /// ([`Signature::bind`]) and reports what does not fit. `call_range` is
    /// where a missing argument is reported.
    pub fn check_call(
        &self,
        receiver_args: usize,
        args: &[ast::Arg],
        call_range: TextRange,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let binding = self.bind(receiver_args, &argument_names(args));
        for problem in &binding.problems {
            diagnostics.push(self.diagnostic(problem, args, call_range));
            // One count error says all about the extra arguments.
            if matches!(problem, BindProblem::TooMany { .. }) {
                break;
            }
        }
    }

    /// What a [`BindProblem`] of a call of this signature is, for people.
    pub fn diagnostic(
        &self,
        problem: &BindProblem,
        args: &[ast::Arg],
        call_range: TextRange,
    ) -> Diagnostic {
        let name_of = |arg: usize| args[arg].name.as_ref().expect("a named argument");
        match problem {
            BindProblem::PositionalAfterNamed { arg } => Diagnostic::new(
                Code::WrongArgumentCount,
                args[*arg].range,
                format!(
                    "positional argument after a named one in the call of `{}`",
                    self.display_name
                ),
            ),
            BindProblem::TooMany {
                arg,
                expected,
                given,
            } => Diagnostic::new(
                Code::WrongArgumentCount,
                args[*arg].range,
                format!(
                    "`{}` takes {} but {given} {} given",
                    self.display_name,
                    plural(*expected, "positional argument"),
                    if *given == 1 { "was" } else { "were" }
                ),
            ),
            BindProblem::UnknownName { arg } => {
                let name = name_of(*arg);
                let candidates = self
                    .params
                    .iter()
                    .filter(|p| !p.variadic)
                    .map(|p| p.name.as_str());
                Diagnostic::new(
                    Code::UnknownArgument,
                    name.range,
                    format!(
                        "`{}` has no parameter named `{}`{}",
                        self.display_name,
                        name.text,
                        did_you_mean(&name.text, candidates)
                    ),
                )
            }
            BindProblem::Duplicate { arg } => {
                let name = name_of(*arg);
                Diagnostic::new(
                    Code::DuplicateArgument,
                    name.range,
                    format!("`{}` is given more than once", name.text),
                )
            }
            BindProblem::Missing { params } => {
                let list = params
                    .iter()
                    .map(|i| format!("`{}`", self.params[*i].name))
                    .collect::<Vec<_>>()
                    .join(", ");
                Diagnostic::new(
                    Code::MissingArgument,
                    call_range,
                    format!(
                        "the call of `{}` is missing {} {list}",
                        self.display_name,
                        if params.len() == 1 {
                            "the argument"
                        } else {
                            "the arguments"
                        }
                    ),
                )
            }
        }
    }
}

/// What the binder needs to know of a parameter: the checker's
/// [`SignatureParam`], a declaration's [`ast::Param`] (not `self`), a
/// layer's `forward` parameter.
pub trait Parameter {
    fn name(&self) -> &str;
    /// `..name`: takes every remaining positional argument.
    fn variadic(&self) -> bool;
    /// No default and not variadic: every call must give it.
    fn required(&self) -> bool;
    /// Python's `**kwargs`: takes every named argument no other parameter
    /// takes.
    fn keywords(&self) -> bool {
        false
    }
}

impl Parameter for SignatureParam {
    fn name(&self) -> &str {
        &self.name
    }
    fn variadic(&self) -> bool {
        self.variadic
    }
    fn required(&self) -> bool {
        self.required
    }
    fn keywords(&self) -> bool {
        self.keywords
    }
}

impl Parameter for ast::Param {
    fn name(&self) -> &str {
        &self.name.text
    }
    fn variadic(&self) -> bool {
        self.variadic || self.collects == Some(ast::Unpack::Positional)
    }
    fn required(&self) -> bool {
        self.default.is_none() && !self.variadic && self.collects.is_none()
    }
    fn keywords(&self) -> bool {
        self.collects == Some(ast::Unpack::Keywords)
    }
}

impl<P: Parameter> Parameter for &P {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn variadic(&self) -> bool {
        (**self).variadic()
    }
    fn required(&self) -> bool {
        (**self).required()
    }
    fn keywords(&self) -> bool {
        (**self).keywords()
    }
}

/// The names of a call's arguments, in order (`None`: positional), as
/// [`bind`] takes them.
pub fn argument_names(args: &[ast::Arg]) -> Vec<Option<&str>> {
    args.iter()
        .map(|a| a.name.as_ref().map(|n| n.text.as_str()))
        .collect()
}

/// Binds a call's arguments to `params`: the one argument binder of
/// tensorfit (name checks, the analysis, the interpreter and signature help
/// all use it). `receiver_args` leading positional arguments are already
/// given (the receiver of a method call); `names` are the call's arguments
/// in order, each with its name if it is named.
///
/// Positional arguments fill the positional parameters in order, then the
/// variadic one (`..size`) if there is one; named arguments fill the
/// parameter of their name. What does not fit is a [`BindProblem`]; an
/// argument that fits nothing is left unbound, and a parameter named twice
/// keeps its first argument.
pub fn bind<P: Parameter>(params: &[P], receiver_args: usize, names: &[Option<&str>]) -> Binding {
    let mut bound: Vec<Vec<Source>> = vec![Vec::new(); params.len()];
    let mut problems = Vec::new();
    let positional_params = params
        .iter()
        .take_while(|p| !p.variadic() && !p.keywords())
        .count();
    let variadic = params.iter().position(|p| p.variadic());
    let mut next_positional = 0usize;
    let positional_slot = |next: &mut usize| -> Option<usize> {
        if *next < positional_params {
            *next += 1;
            Some(*next - 1)
        } else {
            variadic
        }
    };
    for receiver in 0..receiver_args {
        if let Some(slot) = positional_slot(&mut next_positional) {
            bound[slot].push(Source::Receiver(receiver));
        }
    }
    let mut seen_named = false;
    for (arg, name) in names.iter().enumerate() {
        match name {
            None => {
                if seen_named {
                    problems.push(BindProblem::PositionalAfterNamed { arg });
                }
                match positional_slot(&mut next_positional) {
                    // A positional argument where a named one already
                    // went: the named one stays (and this one is
                    // reported as out of order above).
                    Some(slot) if params[slot].variadic() || bound[slot].is_empty() => {
                        bound[slot].push(Source::Arg(arg))
                    }
                    Some(_) => {}
                    None => problems.push(BindProblem::TooMany {
                        arg,
                        expected: positional_params.saturating_sub(receiver_args),
                        given: names.iter().filter(|n| n.is_none()).count(),
                    }),
                }
            }
            Some(name) => {
                seen_named = true;
                match params
                    .iter()
                    .position(|p| p.name() == *name && !p.variadic() && !p.keywords())
                {
                    None => match params.iter().position(|p| p.keywords()) {
                        Some(rest) => bound[rest].push(Source::Arg(arg)),
                        None => problems.push(BindProblem::UnknownName { arg }),
                    },
                    Some(slot) if !bound[slot].is_empty() => {
                        problems.push(BindProblem::Duplicate { arg })
                    }
                    Some(slot) => bound[slot].push(Source::Arg(arg)),
                }
            }
        }
    }
    let missing: Vec<usize> = (0..params.len())
        .filter(|i| params[*i].required() && bound[*i].is_empty())
        .collect();
    if !missing.is_empty() {
        problems.push(BindProblem::Missing { params: missing });
    }
    Binding {
        params: bound,
        problems,
    }
}

/// Where a parameter's value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The `n`th of the receivers (a method call's object).
    Receiver(usize),
    /// The `n`th argument of the call.
    Arg(usize),
}

/// A call's arguments bound to a signature's parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// For each parameter, what fills it: nothing (its default applies, or
    /// it is missing), one source, or any number for the variadic one.
    pub params: Vec<Vec<Source>>,
    /// What does not fit, in the order of the arguments (a missing
    /// argument last).
    pub problems: Vec<BindProblem>,
}

impl Binding {
    /// The parameter the `arg`th argument fills, if any.
    pub fn param_of(&self, arg: usize) -> Option<usize> {
        self.params
            .iter()
            .position(|sources| sources.contains(&Source::Arg(arg)))
    }
}

/// An argument that does not fit the signature, or a parameter not given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BindProblem {
    PositionalAfterNamed {
        arg: usize,
    },
    /// More positional arguments than positional parameters (and no
    /// variadic one): `expected` after the receivers, `given` in all.
    TooMany {
        arg: usize,
        expected: usize,
        given: usize,
    },
    UnknownName {
        arg: usize,
    },
    Duplicate {
        arg: usize,
    },
    /// Required parameters (by index) that nothing fills.
    Missing {
        params: Vec<usize>,
    },
}

fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `conv(input, weight, stride = 1)`, `zeros(..size)` and Python
    /// `f(x, **kw)`-like signatures, bound to calls written as `[name:]`
    /// per argument.
    fn bound(signature: &str, receivers: usize, call: &[&str]) -> String {
        let params = signature
            .split(", ")
            .filter(|p| !p.is_empty())
            .map(|p| SignatureParam {
                name: p
                    .trim_start_matches("..")
                    .trim_start_matches("**")
                    .trim_end_matches('?')
                    .to_owned(),
                required: !p.ends_with('?') && !p.starts_with("..") && !p.starts_with("**"),
                variadic: p.starts_with(".."),
                keywords: p.starts_with("**"),
            })
            .collect();
        let signature = Signature {
            display_name: "f".to_owned(),
            params,
        };
        let names: Vec<Option<&str>> = call.iter().map(|a| a.strip_suffix(':')).collect();
        let binding = signature.bind(receivers, &names);
        let slots: Vec<String> = binding
            .params
            .iter()
            .map(|sources| {
                sources
                    .iter()
                    .map(|s| match s {
                        Source::Receiver(i) => format!("r{i}"),
                        Source::Arg(i) => format!("a{i}"),
                    })
                    .collect::<Vec<_>>()
                    .join("+")
            })
            .collect();
        format!("[{}] {:?}", slots.join(", "), binding.problems)
    }

    #[test]
    fn arguments_are_bound_as_pytorch_binds_them() {
        let cases: &[(&str, usize, &[&str], &str)] = &[
            ("input, weight, stride?", 0, &["_", "_"], "[a0, a1, ] []"),
            (
                "input, weight, stride?",
                0,
                &["_", "weight:", "stride:"],
                "[a0, a1, a2] []",
            ),
            // A method call: the receiver is the first parameter.
            ("input, dim?", 1, &["_"], "[r0, a0] []"),
            ("input, ..size", 1, &["_", "_", "_"], "[r0, a0+a1+a2] []"),
            ("input, ..size", 0, &["_"], "[a0, ] []"),
            (
                "input, weight, stride?",
                0,
                &["_"],
                "[a0, , ] [Missing { params: [1] }]",
            ),
            (
                "input, stride?",
                0,
                &["_", "_", "_"],
                "[a0, a1] [TooMany { arg: 2, expected: 2, given: 3 }]",
            ),
            (
                "input, stride?",
                0,
                &["_", "pad:"],
                "[a0, ] [UnknownName { arg: 1 }]",
            ),
            (
                "input, stride?",
                0,
                &["_", "stride:", "stride:"],
                "[a0, a1] [Duplicate { arg: 2 }]",
            ),
            // Out of order: reported; the named argument keeps its place.
            (
                "input, stride?",
                0,
                &["input:", "_"],
                "[a0, ] [PositionalAfterNamed { arg: 1 }]",
            ),
            // The variadic parameter takes no name.
            ("..size", 0, &["size:"], "[] [UnknownName { arg: 0 }]"),
            // `**kw` takes the names no other parameter has, its own too.
            (
                "x, **kw",
                0,
                &["_", "a:", "x:"],
                "[a0, a1] [Duplicate { arg: 2 }]",
            ),
            ("x, **kw", 0, &["a:", "kw:", "x:"], "[a2, a0+a1] []"),
            (
                "x, **kw",
                0,
                &["_", "_"],
                "[a0, ] [TooMany { arg: 1, expected: 1, given: 2 }]",
            ),
        ];
        for (signature, receivers, call, expected) in cases {
            assert_eq!(
                bound(signature, *receivers, call),
                *expected,
                "{signature} with {receivers} receiver(s), called with {call:?}"
            );
        }
    }
}
