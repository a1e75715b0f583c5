//! Shapes and dimensions as users read them (LANGUAGE.md §5, "How shapes
//! are shown"): a number when the facts force one, else the program's own
//! names (`batch`, `x.shape[1]`), else `?`.

use tensorfit_base::Language;
use tensorfit_solver::{Formula, Term};

use super::analysis::Analysis;

/// How the file's language writes the arithmetic of a shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Notation {
    /// The floored quotient of sizes: Python's `//` (its `/` is a
    /// float), the Tensor language's `/`.
    pub floor_division: &'static str,
}

impl Notation {
    pub fn of(language: Language) -> Notation {
        match language {
            Language::Python => Notation {
                floor_division: "//",
            },
            Language::Tensor => Notation {
                floor_division: "/",
            },
        }
    }
}

/// A dimension with no better description.
const UNNAMED: &str = "?";

pub fn term(analysis: &Analysis<'_>, term: &Term) -> String {
    let text = spelled(analysis, term);
    // `? + 3` says no more than `?`.
    if text != UNNAMED && text.contains(UNNAMED) {
        return UNNAMED.to_owned();
    }
    text
}

fn spelled(analysis: &Analysis<'_>, term: &Term) -> String {
    if let Some(name) = analysis.term_name(term) {
        return name;
    }
    match term {
        Term::Const(c) => c.to_string(),
        Term::Var(v) => analysis.vars.name(*v).unwrap_or_else(|| UNNAMED.to_owned()),
        Term::Rank(b) => match analysis.vars.name(*b) {
            Some(name) => format!("{name}.rank"),
            None => UNNAMED.to_owned(),
        },
        Term::Dim(b, index) => match analysis.vars.name(*b) {
            Some(name) if !name.starts_with("..") => {
                let position = match index.as_const() {
                    Some(i) => i.to_string(),
                    None => match Term::sub(index, &Term::rank(*b)).as_const() {
                        Some(from_end) => from_end.to_string(),
                        None => return UNNAMED.to_owned(),
                    },
                };
                format!("{name}.shape[{position}]")
            }
            _ => UNNAMED.to_owned(),
        },
        Term::Add(parts) => {
            let mut text = String::new();
            for (i, part) in parts.iter().enumerate() {
                let (negative, magnitude) = match part {
                    Term::Const(c) if *c < 0 => (true, Term::int(-c)),
                    Term::Mul(c, t) if c.as_const().is_some_and(|c| c < 0) => {
                        (true, Term::mul(&Term::int(-c.as_const().unwrap_or(0)), t))
                    }
                    other => (false, other.clone()),
                };
                if i > 0 {
                    text.push_str(if negative { " - " } else { " + " });
                } else if negative {
                    text.push('-');
                }
                text.push_str(&spelled(analysis, &magnitude));
            }
            text
        }
        Term::Mul(a, b) => format!("{} * {}", operand(analysis, a), factor(analysis, b)),
        Term::Div(a, b) => format!(
            "{} {} {}",
            operand(analysis, a),
            analysis.notation.floor_division,
            divisor(analysis, b)
        ),
        Term::Rem(a, b) => format!("{} % {}", operand(analysis, a), divisor(analysis, b)),
        Term::Ite(..) => UNNAMED.to_owned(),
    }
}

fn operand(analysis: &Analysis<'_>, t: &Term) -> String {
    match t {
        Term::Add(_) => format!("({})", spelled(analysis, t)),
        _ => spelled(analysis, t),
    }
}

/// The right side of `*`: a floored quotient or a remainder keeps its
/// parentheses, `5 * (h / 4)` being another number than `5 * h / 4`.
fn factor(analysis: &Analysis<'_>, t: &Term) -> String {
    match t {
        Term::Div(..) | Term::Rem(..) => format!("({})", spelled(analysis, t)),
        _ => operand(analysis, t),
    }
}

/// The right side of `/` or `%`, which binds tighter than a product:
/// `a % (n * k)`.
fn divisor(analysis: &Analysis<'_>, t: &Term) -> String {
    match t {
        Term::Add(_) | Term::Mul(..) | Term::Div(..) | Term::Rem(..) => {
            format!("({})", spelled(analysis, t))
        }
        _ => spelled(analysis, t),
    }
}

/// A condition as the language writes it (`x.shape[1] == y.shape[0]`,
/// `n >= 3`), or `None` when a part of it has no name in the program.
pub fn condition(analysis: &Analysis<'_>, formula: &Formula) -> Option<String> {
    match formula {
        Formula::IsZero(t) => relation(analysis, t, "=="),
        Formula::NonPositive(t) => relation(analysis, t, "<="),
        Formula::Not(inner) => match &**inner {
            Formula::IsZero(t) => relation(analysis, t, "!="),
            Formula::NonPositive(t) => relation(analysis, t, ">"),
            Formula::Var(v) => analysis.vars.name(*v).map(|name| format!("not {name}")),
            _ => None,
        },
        // A `Bool` the program names (a parameter, a flag of `self`).
        Formula::Var(v) => analysis.vars.name(*v),
        Formula::And(parts) => {
            let parts: Option<Vec<String>> = parts.iter().map(|p| condition(analysis, p)).collect();
            Some(parts?.join(" and "))
        }
        Formula::Or(parts) => {
            let parts: Option<Vec<String>> = parts
                .iter()
                .map(|p| match p {
                    Formula::And(_) => condition(analysis, p).map(|c| format!("({c})")),
                    _ => condition(analysis, p),
                })
                .collect();
            Some(parts?.join(" or "))
        }
        Formula::Const(_) => None,
    }
}

/// `t <op> 0` with the terms added on the left and those subtracted on the
/// right; numbers alone go to the right (`n >= 3`, not `3 <= n`).
fn relation(analysis: &Analysis<'_>, t: &Term, op: &str) -> Option<String> {
    let parts = match t {
        Term::Add(parts) => parts.clone(),
        other => vec![other.clone()],
    };
    let (mut left, mut right) = (Vec::new(), Vec::new());
    for part in parts {
        match &part {
            Term::Const(c) if *c < 0 => right.push(Term::int(-c)),
            Term::Mul(c, t) if c.as_const().is_some_and(|c| c < 0) => {
                right.push(Term::mul(&Term::int(-c.as_const().unwrap_or(0)), t))
            }
            _ => left.push(part),
        }
    }
    let constant = |side: &[Term]| side.iter().all(|t| t.as_const().is_some());
    let mut op = op;
    if constant(&left) && !constant(&right) {
        std::mem::swap(&mut left, &mut right);
        op = match op {
            "<=" => ">=",
            ">" => "<",
            symmetric => symmetric,
        };
    }
    let side = |terms: &[Term]| -> Option<String> {
        let spelled: Vec<String> = terms.iter().map(|t| term(analysis, t)).collect();
        if spelled.iter().any(|s| s.contains(UNNAMED)) {
            return None;
        }
        Some(match spelled.is_empty() {
            true => "0".to_owned(),
            false => spelled.join(" + "),
        })
    };
    Some(format!("{} {op} {}", side(&left)?, side(&right)?))
}
