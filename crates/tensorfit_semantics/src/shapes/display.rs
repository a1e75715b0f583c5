//! Shapes and dimensions as users read them (LANGUAGE.md §5, "How shapes
//! are shown"): a number when the facts force one, else the program's own
//! names (`batch`, `x.shape[1]`), else `?`.

use tensorfit_solver::Term;

use super::analysis::Analysis;

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
        Term::Mul(a, b) => format!("{} * {}", operand(analysis, a), operand(analysis, b)),
        Term::Div(a, b) => format!("{} / {}", operand(analysis, a), operand(analysis, b)),
        Term::Rem(a, b) => format!("{} % {}", operand(analysis, a), operand(analysis, b)),
        Term::Ite(..) => UNNAMED.to_owned(),
    }
}

fn operand(analysis: &Analysis<'_>, t: &Term) -> String {
    match t {
        Term::Add(_) => format!("({})", spelled(analysis, t)),
        _ => spelled(analysis, t),
    }
}
