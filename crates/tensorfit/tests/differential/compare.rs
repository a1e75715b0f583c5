//! One program, judged twice: by the static analysis and by runs of the
//! reference interpreter. Their disagreements are what the differential
//! test fails on (docs/interpreter.md, "Soundness testing"):
//!
//! - an error is reported at a statement that a run reaches and passes;
//! - a shown dimension that is a number differs from the run's;
//! - the program with its holes filled by the reported values fails at a
//!   statement where no error is reported.
//!
//! A run that fails where nothing is reported is counted as a *missed*
//! error: the analysis may stay silent (it reports only what it proves).

use std::path::Path;
use std::sync::Arc;

use tensorfit_base::{Diagnostic, Severity, TextRange};
use tensorfit_ide::{analyze_file, AnalysisOptions, FsLoader};
use tensorfit_run::{ErrorKind, FileId, Limits, Program, RunOptions, RunReport};
use tensorfit_semantics::ValueRange;
use tensorfit_syntax::ast;

#[derive(Debug, Default)]
pub struct Tally {
    pub programs: usize,
    pub runs: usize,
    /// Runs that failed where an error is reported.
    pub failures_reported: usize,
    /// Runs that failed where nothing is reported.
    pub missed: usize,
    /// The first line of each missed failure's message and the program.
    pub missed_details: Vec<String>,
    /// Numeric dimensions compared.
    pub dimensions: usize,
    /// Programs whose holes were filled and run.
    pub filled: usize,
    pub disagreements: Vec<String>,
}

impl Tally {
    pub fn add(&mut self, other: Tally) {
        self.programs += other.programs;
        self.runs += other.runs;
        self.failures_reported += other.failures_reported;
        self.missed += other.missed;
        self.missed_details.extend(other.missed_details);
        self.dimensions += other.dimensions;
        self.filled += other.filled;
        self.disagreements.extend(other.disagreements);
    }
}

/// Judges `text` (the file at `path`) with runs of the given seeds.
pub fn judge(path: &Path, text: &str, seeds: &[u64], limits: Limits) -> Tally {
    let mut tally = Tally {
        programs: 1,
        ..Tally::default()
    };
    let analysis = analyze_file(
        path,
        text.as_bytes(),
        Arc::new(FsLoader::default()),
        AnalysisOptions::default(),
    );
    let read = |p: &Path| std::fs::read_to_string(p).ok();
    let Ok(program) = Program::from_text(path, text, &read) else {
        return tally; // Syntax errors: nothing to run.
    };
    let tree = &program.file(program.main()).tree;
    let errors: Vec<&Diagnostic> = analysis
        .diagnostics()
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    let statements = all_statements(tree);
    let mut problems = Vec::new();
    if !analysis.shapes().holes.is_empty() {
        // A hole has no value at run time: the program is run with its
        // holes filled, and the filled program is judged in its turn.
        if let Some(filled) = judge_holes(
            path,
            text,
            &analysis,
            &errors,
            &statements,
            limits,
            &mut tally,
            &mut problems,
        ) {
            let mut inner = judge(path, &filled, seeds, limits);
            inner.programs = 0;
            tally.add(inner);
        }
    } else {
        for seed in seeds {
            let report = tensorfit_run::run(
                &program,
                &RunOptions {
                    seed: *seed,
                    limits,
                    trace: true,
                    ..RunOptions::default()
                },
            );
            tally.runs += 1;
            judge_run(
                &report,
                &errors,
                &statements,
                text,
                &analysis,
                &mut tally,
                &mut problems,
            );
        }
    }
    for problem in problems {
        tally.disagreements.push(with_program(path, text, &problem));
    }
    tally
}

/// A disagreement as reported: what, and the whole program.
fn with_program(path: &Path, text: &str, what: &str) -> String {
    format!(
        "{}: {what}\n--- program ---\n{text}\n---------------",
        path.display()
    )
}

/// The functions and methods of a file.
fn functions(file: &ast::SourceFile) -> impl Iterator<Item = &ast::Function> {
    file.items.iter().flat_map(|item| match item {
        ast::Item::Function(f) => vec![f],
        ast::Item::Struct(s) => s.methods.iter().collect(),
        _ => Vec::new(),
    })
}

/// The innermost statement containing `range`, if any.
fn statement_of(statements: &[TextRange], range: TextRange) -> Option<TextRange> {
    statements
        .iter()
        .filter(|s| s.start <= range.start && range.end <= s.end)
        .min_by_key(|s| s.end - s.start)
        .copied()
}

fn line_of(text: &str, offset: u32) -> usize {
    text[..(offset as usize).min(text.len())]
        .matches('\n')
        .count()
        + 1
}

#[allow(clippy::too_many_arguments)]
fn judge_run(
    report: &RunReport,
    errors: &[&Diagnostic],
    statements: &[TextRange],
    text: &str,
    analysis: &tensorfit_ide::FileAnalysis,
    tally: &mut Tally,
    problems: &mut Vec<String>,
) {
    let main = FileId(0);
    let trace = report.trace.as_ref().expect("traced");
    let reached = |range: TextRange| trace.reached.contains(&(main, range));
    // Where the run failed, as statements of the main file.
    let failed_at: Vec<TextRange> = match &report.result {
        Ok(_) => Vec::new(),
        Err(error) => error
            .places()
            .filter(|p| p.file == main)
            .filter_map(|p| statement_of(statements, p.range).or(Some(p.range)))
            .collect(),
    };
    let covers = |error: &Diagnostic| {
        let own = statement_of(statements, error.range).unwrap_or(error.range);
        failed_at.iter().any(|f| {
            (own.start <= f.start && f.end <= own.end) || (f.start <= own.start && own.end <= f.end)
        })
    };
    if let Err(error) = &report.result {
        match error.kind {
            ErrorKind::Limit | ErrorKind::Data => {}
            // Every registered operation must run (the registry's promise).
            ErrorKind::Unimplemented => {
                problems.push(format!("{}\n--- program ---\n{text}", error.message))
            }
            _ if errors.iter().any(|e| covers(e)) => tally.failures_reported += 1,
            _ => {
                tally.missed += 1;
                tally
                    .missed_details
                    .push(format!("{}\n--- program ---\n{text}", error.message));
            }
        }
    }
    for error in errors {
        let Some(own) = statement_of(statements, error.range) else {
            continue;
        };
        // An error about a particular call is reached when that call is.
        let related_reached =
            error
                .related
                .iter()
                .all(|r| match statement_of(statements, r.range) {
                    Some(s) => reached(s),
                    None => true,
                });
        // An error on one path of a value merged after an `if` or a loop
        // (its note names the path) holds for runs that take that path,
        // which the run does not tell.
        let on_one_path = error
            .related
            .iter()
            .any(|r| r.message.starts_with("on the failing path, "));
        if reached(own) && related_reached && !on_one_path && !covers(error) {
            let outcome = match &report.result {
                Ok(_) => "the run succeeded".to_owned(),
                Err(e) => format!("the run failed elsewhere: {}", e.message),
            };
            problems.push(format!(
                "error reported at line {} (`{}`) but a run passed that statement; {outcome}",
                line_of(text, error.range.start),
                error.message
            ));
        }
    }
    // Shapes: every number shown must be the run's.
    let shapes = analysis.shapes();
    let lookup = |range: TextRange| {
        shapes
            .bindings
            .iter()
            .chain(shapes.expressions.iter())
            .find(|info| info.range == range)
            .map(|info| info.shape.as_str())
    };
    // The statement a run failed in is left out: the analysis takes its
    // claims as facts, which the failing run shows false. So are the
    // parameters of a function the run failed in: their shown shape is
    // what the function requires of every call (e.g. the rank that
    // `let (b, t, c) = x.shape` states), which the failing call broke.
    let within =
        |outer: TextRange, inner: TextRange| outer.start <= inner.start && inner.end <= outer.end;
    let broken_params: Vec<TextRange> = functions(analysis.tree())
        .filter(|f| failed_at.iter().any(|at| within(f.range, *at)))
        .flat_map(|f| f.params.iter().map(|p| p.range))
        .collect();
    let in_failed = |range: TextRange| {
        failed_at
            .iter()
            .chain(&broken_params)
            .any(|f| within(*f, range))
    };
    for (location, shape) in trace.bindings.iter().chain(trace.expressions.iter()) {
        if location.file != main || in_failed(location.range) {
            continue;
        }
        let Some(shown) = lookup(location.range) else {
            continue;
        };
        match compare_shape(shown, shape) {
            Ok(n) => tally.dimensions += n,
            Err(why) => problems.push(format!(
                "`{}` at line {} is shown as {shown} but a run gave {:?}: {why}",
                &text[location.range.as_usize()],
                line_of(text, location.range.start),
                shape
            )),
        }
    }
}

/// Compares a shown shape with a run's: the rank when known, and every
/// dimension shown as a number. Gives how many numbers were compared.
fn compare_shape(shown: &str, actual: &[usize]) -> Result<usize, String> {
    let Some(inner) = shown
        .strip_prefix("Tensor[")
        .and_then(|s| s.strip_suffix(']'))
    else {
        return Ok(0); // `Tensor`: unknown rank.
    };
    let dims: Vec<&str> = if inner.trim().is_empty() {
        Vec::new()
    } else {
        split_top_level(inner)
    };
    if dims.iter().any(|d| d.starts_with("..")) {
        return Ok(0);
    }
    if dims.len() != actual.len() {
        return Err(format!(
            "rank {} shown, {} at run time",
            dims.len(),
            actual.len()
        ));
    }
    let mut compared = 0;
    for (i, (d, a)) in dims.iter().zip(actual).enumerate() {
        if let Ok(n) = d.trim().parse::<usize>() {
            compared += 1;
            if n != *a {
                return Err(format!("dimension {i} is {n} shown, {a} at run time"));
            }
        }
    }
    Ok(compared)
}

/// `a, f(b, c), d` split at the commas outside brackets.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(text[start..].trim());
    parts
}

/// Fills every hole with its reported value and runs the result: it may fail only where an error is reported.
/// Gives the filled text when every hole had a value.
#[allow(clippy::too_many_arguments)]
fn judge_holes(
    path: &Path,
    text: &str,
    analysis: &tensorfit_ide::FileAnalysis,
    errors: &[&Diagnostic],
    statements: &[TextRange],
    limits: Limits,
    tally: &mut Tally,
    problems: &mut Vec<String>,
) -> Option<String> {
    let holes = &analysis.shapes().holes;
    let mut filled = text.to_owned();
    // Each hole is its own unknown (LANGUAGE.md §9): a range is what fits
    // that hole with the others free, so ranges of two holes need not fit
    // together. Forced values and one ranged hole (by an example that
    // fits) are filled; with more ranges there is no reported program.
    let ranged = holes
        .iter()
        .filter(|h| !matches!(h.values, ValueRange::Forced(_)))
        .count();
    if ranged > 1 {
        return None;
    }
    let mut edits: Vec<(TextRange, i64)> = Vec::new();
    for hole in holes {
        let value = match &hole.values {
            ValueRange::Forced(v) => *v,
            ValueRange::Range { examples, .. } => *examples.first()?,
            ValueRange::Empty | ValueRange::Unknown => return None,
        };
        edits.push((hole.range, value));
    }
    edits.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
    for (range, value) in &edits {
        filled.replace_range(range.as_usize(), &value.to_string());
    }
    let read = |p: &Path| std::fs::read_to_string(p).ok();
    let Ok(program) = Program::from_text(path, &filled, &read) else {
        return None;
    };
    tally.filled += 1;
    tally.runs += 1;
    let report = tensorfit_run::run(
        &program,
        &RunOptions {
            limits,
            ..RunOptions::default()
        },
    );
    let Err(error) = &report.result else {
        return Some(filled);
    };
    if matches!(error.kind, ErrorKind::Limit | ErrorKind::Data) {
        return Some(filled);
    }
    // Filling changes offsets but not lines: compare by line.
    let failed_lines: Vec<usize> = error
        .places()
        .filter(|p| p.file == FileId(0))
        .map(|p| line_of(&filled, p.range.start))
        .collect();
    let reported = errors.iter().any(|e| {
        let own = statement_of(statements, e.range).unwrap_or(e.range);
        let (first, last) = (line_of(text, own.start), line_of(text, own.end));
        failed_lines.iter().any(|l| (first..=last).contains(l))
    });
    if !reported {
        problems.push(format!(
            "with its holes filled ({}) the program fails where no error is reported: {}\n--- filled ---\n{filled}",
            edits.iter().rev().map(|(_, v)| v.to_string()).collect::<Vec<_>>().join(", "),
            error.message
        ));
    }
    Some(filled)
}

/// Every statement of the file, nested ones included.
fn all_statements(file: &ast::SourceFile) -> Vec<TextRange> {
    let mut out = Vec::new();
    collect(&file.script, &mut out);
    for item in &file.items {
        match item {
            ast::Item::Function(f) => {
                if let Some(body) = &f.body {
                    collect(&body.stmts, &mut out);
                }
            }
            ast::Item::Struct(s) => {
                for m in &s.methods {
                    if let Some(body) = &m.body {
                        collect(&body.stmts, &mut out);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn collect(stmts: &[ast::Stmt], out: &mut Vec<TextRange>) {
    for stmt in stmts {
        out.push(stmt.range);
        match &stmt.kind {
            ast::StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                collect(&then_branch.stmts, out);
                match else_branch {
                    Some(ast::ElseBranch::Block(b)) => collect(&b.stmts, out),
                    Some(ast::ElseBranch::If(s)) => collect(std::slice::from_ref(s), out),
                    None => {}
                }
            }
            ast::StmtKind::For { body, .. } | ast::StmtKind::While { body, .. } => {
                collect(&body.stmts, out)
            }
            _ => {}
        }
    }
}
