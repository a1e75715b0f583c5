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
    /// `..name`: takes every remaining positional argument.
    pub variadic: bool,
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
                    required: p.default.is_none() && !p.variadic,
                    variadic: p.variadic,
                })
                .collect(),
        }
    }

    /// Matches `args` (after `receiver_args` already-given leading positional
    /// arguments, e.g. the receiver of a method call) against the parameters.
    /// `call_range` is where a missing argument is reported.
    pub fn check_call(
        &self,
        receiver_args: usize,
        args: &[ast::Arg],
        call_range: TextRange,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let mut given = vec![false; self.params.len()];
        let mut next_positional = 0usize;
        let mut seen_named = false;
        let positional_params = self.params.iter().take_while(|p| !p.variadic).count();
        let variadic = self.params.iter().position(|p| p.variadic);

        let mut fill_positional = |given: &mut Vec<bool>| -> Option<usize> {
            if next_positional < positional_params {
                next_positional += 1;
                given[next_positional - 1] = true;
                Some(next_positional - 1)
            } else if let Some(v) = variadic {
                given[v] = true;
                Some(v)
            } else {
                next_positional += 1;
                None
            }
        };

        for _ in 0..receiver_args {
            fill_positional(&mut given);
        }

        for arg in args {
            match &arg.name {
                None => {
                    if seen_named {
                        // Reported, then matched as if in order, so that the
                        // parameter it fills is not also reported missing.
                        diagnostics.push(Diagnostic::new(
                            Code::WrongArgumentCount,
                            arg.range,
                            format!(
                                "positional argument after a named one in the call of `{}`",
                                self.display_name
                            ),
                        ));
                    }
                    if fill_positional(&mut given).is_none() {
                        let expected = positional_params.saturating_sub(receiver_args);
                        let count = args.iter().filter(|a| a.name.is_none()).count();
                        diagnostics.push(Diagnostic::new(
                            Code::WrongArgumentCount,
                            arg.range,
                            format!(
                                "`{}` takes {} but {} {} given",
                                self.display_name,
                                plural(expected, "positional argument"),
                                count,
                                if count == 1 { "was" } else { "were" }
                            ),
                        ));
                        return;
                    }
                }
                Some(name) => {
                    seen_named = true;
                    let index = self
                        .params
                        .iter()
                        .position(|p| p.name == name.text && !p.variadic);
                    match index {
                        None => {
                            let candidates = self
                                .params
                                .iter()
                                .filter(|p| !p.variadic)
                                .map(|p| p.name.as_str());
                            diagnostics.push(Diagnostic::new(
                                Code::UnknownArgument,
                                name.range,
                                format!(
                                    "`{}` has no parameter named `{}`{}",
                                    self.display_name,
                                    name.text,
                                    did_you_mean(&name.text, candidates)
                                ),
                            ));
                        }
                        Some(index) if given[index] => diagnostics.push(Diagnostic::new(
                            Code::DuplicateArgument,
                            name.range,
                            format!("`{}` is given more than once", name.text),
                        )),
                        Some(index) => given[index] = true,
                    }
                }
            }
        }

        let missing: Vec<&str> = self
            .params
            .iter()
            .zip(&given)
            .filter(|(param, given)| param.required && !**given)
            .map(|(param, _)| param.name.as_str())
            .collect();
        if !missing.is_empty() {
            let list = missing
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ");
            diagnostics.push(Diagnostic::new(
                Code::MissingArgument,
                call_range,
                format!(
                    "the call of `{}` is missing {} {list}",
                    self.display_name,
                    if missing.len() == 1 {
                        "the argument"
                    } else {
                        "the arguments"
                    }
                ),
            ));
        }
    }
}

fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}
