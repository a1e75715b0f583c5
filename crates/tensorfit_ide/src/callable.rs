//! What a call can pass: the parameters of the callee, as signature help
//! shows them and as completion offers them as named arguments.
//!
//! A callee is a user function, a method (called on `self` or on a known
//! instance, or implicitly as `forward` when an instance is called), a
//! struct's constructor, or a prelude operation, possibly called as a method
//! (`x.reshape(2, 3)` means `reshape(x, 2, 3)`, so the receiver fills the
//! first parameter and is not shown).

use tensorfit_semantics::{bind, Parameter, Prelude};
use tensorfit_syntax::ast;

use crate::render;
use tensorfit_semantics::resolve::{Callee, DefKind, DefSource, Resolution};

#[derive(Clone, Debug)]
pub(crate) struct Callable {
    /// `conv2d`, `Block`, `Model.forward`.
    pub name: String,
    pub params: Vec<CallableParam>,
    /// What follows the parameter list: ` -> R where c`.
    pub tail: String,
    pub documentation: Option<String>,
}

#[derive(Clone, Debug)]
pub(crate) struct CallableParam {
    pub name: String,
    /// The parameter as written: `stride: Int = 1`.
    pub text: String,
    /// `..name`: takes every remaining positional argument.
    pub variadic: bool,
}

/// Signature help shows where an argument goes, not what is missing.
impl Parameter for CallableParam {
    fn name(&self) -> &str {
        &self.name
    }
    fn variadic(&self) -> bool {
        self.variadic
    }
    fn required(&self) -> bool {
        false
    }
}

impl Callable {
    /// The parameter an argument fills, by name or as the `position`th
    /// positional argument, as the checker binds it ([`bind`]).
    pub fn param_for(&self, named: Option<&str>, position: usize) -> Option<usize> {
        let names: Vec<Option<&str>> = match named {
            Some(name) => vec![Some(name)],
            None => vec![None; position + 1],
        };
        bind(&self.params, 0, &names).param_of(names.len() - 1)
    }

    /// `name(p1, p2) -> R` and the byte span of each parameter in it.
    pub fn label(&self) -> (String, Vec<(usize, usize)>) {
        let mut label = format!("{}(", self.name);
        let mut spans = Vec::with_capacity(self.params.len());
        for (i, param) in self.params.iter().enumerate() {
            if i > 0 {
                label.push_str(", ");
            }
            let start = label.len();
            label.push_str(&param.text);
            spans.push((start, label.len()));
        }
        label.push(')');
        label.push_str(&self.tail);
        (label, spans)
    }
}

/// The callable a call resolves to. `text` is the text the resolution's
/// ranges point into, for doc comments of the file's own declarations;
/// `is_own` tells which declarations are in it.
pub(crate) fn callable(
    resolution: &Resolution<'_>,
    callee: &Callee,
    text: &str,
    is_own: &dyn Fn(usize) -> bool,
) -> Option<Callable> {
    match callee {
        Callee::Def(id) => {
            let def = resolution.defs.get(*id)?;
            let documentation = if is_own(*id) {
                doc_comment(text, def.full_range.start as usize)
            } else {
                None
            };
            match (def.kind, def.source) {
                (DefKind::Function | DefKind::Method, DefSource::Function(f)) => {
                    let name = match def.owner.and_then(|o| resolution.defs.get(o)) {
                        Some(owner) if def.kind == DefKind::Method => {
                            format!("{}.{}", owner.name, def.name)
                        }
                        _ => def.name.clone(),
                    };
                    Some(Callable {
                        name,
                        params: params(f.params.iter().filter(|p| !p.is_self)),
                        tail: render::function_tail(f),
                        documentation,
                    })
                }
                (DefKind::Struct, DefSource::Struct(s)) => Some(Callable {
                    name: def.name.clone(),
                    params: params(s.params.iter().flatten()),
                    tail: String::new(),
                    documentation,
                }),
                _ => None,
            }
        }
        Callee::Prelude { op, method } => prelude_callable(resolution.prelude, op, *method),
        Callee::Outer(_) | Callee::Unknown => None,
    }
}

/// A prelude operation; `method` drops the parameter the receiver fills.
pub(crate) fn prelude_callable(prelude: &Prelude, op: &str, method: bool) -> Option<Callable> {
    let function = prelude.function(op)?;
    let skip = usize::from(method);
    let section = prelude_section(&prelude.source, function.range.start as usize);
    let mut documentation = match section {
        Some(section) => format!("Prelude operation ({section})."),
        None => "Prelude operation.".to_owned(),
    };
    if method {
        if let Some(receiver) = function.params.first() {
            documentation.push_str(&format!(
                " `x.{op}(...)` means `{op}(x, ...)`: `x` is `{}`.",
                receiver.name.text
            ));
        }
    }
    Some(Callable {
        name: op.to_owned(),
        params: params(function.params.iter().skip(skip)),
        tail: render::function_tail(function),
        documentation: Some(documentation),
    })
}

fn params<'p>(params: impl Iterator<Item = &'p ast::Param>) -> Vec<CallableParam> {
    params
        .map(|p| CallableParam {
            name: p.name.text.clone(),
            text: render::param(p),
            variadic: p.variadic,
        })
        .collect()
}

/// The title of the prelude section an operation is declared in: the last
/// `// ---- title` line before it.
fn prelude_section(source: &str, offset: usize) -> Option<&str> {
    source
        .get(..offset)?
        .lines()
        .rev()
        .find_map(|line| {
            let rest = line.trim().strip_prefix("//")?.trim_start();
            rest.starts_with("---")
                .then(|| rest.trim_start_matches('-').trim())
        })
        .filter(|title| !title.is_empty())
}

/// The `//` comment lines right above the declaration at `offset`.
pub(crate) fn doc_comment(text: &str, offset: usize) -> Option<String> {
    let before = text.get(..offset)?;
    // Start of the declaration's line: a comment must end the line before.
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    if !before[line_start..].trim().is_empty() {
        return None;
    }
    let mut lines: Vec<&str> = Vec::new();
    for line in text[..line_start].lines().rev() {
        // `///` (a habit from Rust) reads as `//`.
        match line
            .trim()
            .strip_prefix("//")
            .map(|c| c.trim_start_matches('/'))
        {
            Some(comment) => lines.push(comment.strip_prefix(' ').unwrap_or(comment).trim_end()),
            None => break,
        }
    }
    if lines.is_empty() {
        return None;
    }
    lines.reverse();
    Some(lines.join("\n"))
}
