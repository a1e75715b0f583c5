//! `--format human`: rustc-style reports with source snippets.
//!
//! ```text
//! error[undeclared-name]: `G` is not declared
//!   --> model.tensor:34:11
//!    |
//! 34 |   let F = G + A
//!    |           ^
//! ```

use std::io::{self, IsTerminal, Write};

use tensorfit_base::{Diagnostic, LineIndex, Severity, TextRange};

use tensorfit_ide::ValueRange;

use super::{line_start_path, printable, CheckedFile};

/// Colour only when writing to a terminal and `NO_COLOR` is not set.
pub fn use_color() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

struct Style {
    color: bool,
}

impl Style {
    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    fn severity(&self, severity: Severity) -> String {
        let code = match severity {
            Severity::Error => "1;31",
            Severity::Warning => "1;33",
            Severity::Information | Severity::Hint => "1;36",
        };
        self.paint(code, severity.as_str())
    }

    fn gutter(&self, text: &str) -> String {
        self.paint("1;34", text)
    }
}

pub struct HumanOptions {
    pub color: bool,
    /// List the shape of every tensor binding after the diagnostics.
    pub shapes: bool,
    /// List the migrations (`--migrations`): an answer to a question the
    /// user asks, not something to read after every check.
    pub migrations: bool,
}

pub fn write(out: &mut impl Write, files: &[CheckedFile], options: HumanOptions) -> io::Result<()> {
    let style = Style {
        color: options.color,
    };
    let mut errors = 0usize;
    let mut warnings = 0usize;
    let mut others = 0usize;
    let mut not_fully_checked = 0usize;
    for file in files {
        for diagnostic in file.analysis.diagnostics() {
            match diagnostic.severity {
                Severity::Error => errors += 1,
                Severity::Warning => warnings += 1,
                Severity::Information | Severity::Hint => others += 1,
            }
            write_diagnostic(out, &style, file, diagnostic)?;
        }
        if !file.analysis.shapes().limits.is_empty() {
            not_fully_checked += 1;
            write_limits(out, &style, file)?;
        }
        write_holes(out, &style, file)?;
        if options.migrations {
            write_migrations(out, &style, file)?;
        }
        if options.shapes {
            write_shapes(out, &style, file)?;
        }
    }
    let checked = match files.len() {
        // Nothing to check (a Python project without PyTorch): nothing to
        // say.
        0 => return Ok(()),
        1 => "checked 1 file".to_owned(),
        n => format!("checked {n} files"),
    };
    // A check that was cut short says so, also when it found nothing.
    let checked = match (not_fully_checked, files.len()) {
        (0, _) => checked,
        (1, 1) => format!("{checked} (not fully)"),
        (n, _) => format!("{checked} ({n} not fully)"),
    };
    let mut counts = match (errors, warnings) {
        // The one line a clean check prints: what was checked, and that
        // nothing was found.
        (0, 0) => vec!["no errors, no warnings".to_owned()],
        _ => vec![count(errors, "error"), count(warnings, "warning")],
    };
    if others > 0 {
        counts.push(count(others, "note"));
    }
    writeln!(out, "{checked}: {}", counts.join(", "))
}

/// `migration at model.tensor:29:22: x of ConvExample3.forward can be
/// Tensor[?, 4, ?, ?]; a static annotation exists, e.g. Tensor[8, 4, 8, 8]`
fn write_migrations(out: &mut impl Write, style: &Style, file: &CheckedFile) -> io::Result<()> {
    for migration in &file.analysis.shapes().migrations {
        if !worth_listing(file, migration) {
            continue;
        }
        let place = place(file, migration.range.start);
        let verdict = tensorfit_ide::verdict_text(&file.analysis, migration);
        writeln!(
            out,
            "{} at {place}: `{}` of `{}` is {}; {}",
            style.paint("1;36", "migration"),
            printable(&migration.parameter),
            printable(&migration.function),
            printable(&migration.annotation),
            printable(&verdict)
        )?;
    }
    Ok(())
}

/// In the Tensor language every migration is listed: a type with `?` is
/// the user asking. In Python a bare parameter is the norm, not a
/// question, and listing every `forward`'s would bury the errors: only a
/// jaxtyping `_` is listed (bare ones are answered by hover, the code
/// action and JSON).
fn worth_listing(file: &CheckedFile, migration: &tensorfit_ide::Migration) -> bool {
    let python = tensorfit_base::Language::of_path(std::path::Path::new(&file.path)).is_python();
    let written = file
        .analysis
        .text
        .get(migration.type_range.as_usize())
        .unwrap_or_default();
    !python || written.contains('[')
}

/// ```text
/// note: model.py is not fully checked
///   = the file is longer than 1048576 bytes: its end is not read (from line 20164 on)
///   = the analysis took more than 2000000 steps: ... (in `Net.forward`)
/// ```
/// One line per bound, with the functions it cut (a few named).
fn write_limits(out: &mut impl Write, style: &Style, file: &CheckedFile) -> io::Result<()> {
    const NAMED: usize = 3;
    let limits = &file.analysis.shapes().limits;
    writeln!(
        out,
        "{}: {} is not fully checked",
        style.paint("1;36", "note"),
        printable(&file.path)
    )?;
    let mut messages: Vec<(String, Vec<&str>, bool)> = Vec::new();
    for hit in limits {
        let message = hit.message();
        let at = match messages.iter().position(|(m, _, _)| *m == message) {
            Some(at) => at,
            None => {
                messages.push((message, Vec::new(), false));
                messages.len() - 1
            }
        };
        match &hit.function {
            Some(function) => messages[at].1.push(function),
            None => messages[at].2 = true,
        }
    }
    for (message, functions, script) in messages {
        let mut places: Vec<String> = functions
            .iter()
            .take(NAMED)
            .map(|f| format!("`{}`", printable(f)))
            .collect();
        if functions.len() > NAMED {
            places.push(format!("{} more functions", functions.len() - NAMED));
        }
        if script && !functions.is_empty() {
            places.push("the script".to_owned());
        }
        let place = match places.is_empty() {
            true => String::new(),
            false => format!(" (in {})", places.join(", ")),
        };
        writeln!(out, "  = {}{place}", printable(&message))?;
    }
    writeln!(out)
}

/// `hole at model.tensor:6:32 must be 320`
fn write_holes(out: &mut impl Write, style: &Style, file: &CheckedFile) -> io::Result<()> {
    for hole in &file.analysis.shapes().holes {
        let place = place(file, hole.range.start);
        let text = tensorfit_ide::hole_text(&hole.values);
        let text = printable(&text);
        let what = match &hole.values {
            ValueRange::Forced(_) => format!(" {text}"),
            _ => format!(": {text}"),
        };
        writeln!(out, "{} at {place}{what}", style.paint("1;36", "hole"))?;
    }
    Ok(())
}

/// ```text
/// model.tensor:17:9: out: Tensor[x.shape[0], planes, x.shape[2], x.shape[3]] (in Bottleneck.forward)
///     at the call on line 58: Tensor[16, 64, 56, 56]
/// ```
fn write_shapes(out: &mut impl Write, style: &Style, file: &CheckedFile) -> io::Result<()> {
    for binding in &file.analysis.shapes().bindings {
        let text = tensorfit_ide::shape_text(&file.analysis, binding);
        let mut lines = text.lines();
        let first = lines.next().unwrap_or_default();
        let in_function = match &binding.function {
            Some(function) => format!(" (in {})", printable(function)),
            None => String::new(),
        };
        writeln!(
            out,
            "{}: {}{in_function}",
            style.paint("1", &place(file, binding.range.start)),
            printable(first)
        )?;
        for line in lines {
            writeln!(out, "    {}", printable(line))?;
        }
    }
    Ok(())
}

/// `model.tensor:6:31`, with 1-based line and column as editors show them.
/// It may start a line (`--shapes`), so the path is [`line_start_path`].
fn place(file: &CheckedFile, offset: u32) -> String {
    let position = file.analysis.line_index.position(offset);
    format!(
        "{}:{}:{}",
        line_start_path(&file.path),
        position.line + 1,
        position.character + 1
    )
}

fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn write_diagnostic(
    out: &mut impl Write,
    style: &Style,
    file: &CheckedFile,
    diagnostic: &Diagnostic,
) -> io::Result<()> {
    let index = &file.analysis.line_index;
    let head = format!(
        "{}[{}]",
        style.severity(diagnostic.severity),
        diagnostic.code.as_str()
    );
    writeln!(
        out,
        "{head}: {}",
        style.paint("1", &printable(&diagnostic.message))
    )?;
    write_snippet(out, style, &file.path, index, diagnostic.range, None)?;
    for related in &diagnostic.related {
        writeln!(
            out,
            "{}: {}",
            style.paint("1;36", "note"),
            printable(&related.message)
        )?;
        write_snippet(out, style, &file.path, index, related.range, None)?;
    }
    writeln!(out)
}

/// `  --> path:line:col`, the source line, and a `^^^` underline.
fn write_snippet(
    out: &mut impl Write,
    style: &Style,
    path: &str,
    index: &LineIndex,
    range: TextRange,
    label: Option<&str>,
) -> io::Result<()> {
    let start = index.position(range.start);
    let end = index.position(range.end);
    let line_text = index.line_text(start.line);
    let line_number = (start.line + 1).to_string();
    let pad = " ".repeat(line_number.len());
    // Columns for people count characters, 1-based.
    let start_col = char_column(&line_text, start.character);
    let end_col = if end.line == start.line {
        char_column(&line_text, end.character)
    } else {
        line_text.chars().count()
    };
    writeln!(
        out,
        "{pad}{} {}:{}:{}",
        style.gutter("-->"),
        line_start_path(path),
        line_number,
        start_col + 1
    )?;
    writeln!(out, "{pad} {}", style.gutter("|"))?;
    writeln!(
        out,
        "{} {} {}",
        style.gutter(&line_number),
        style.gutter("|"),
        printable(&line_text.replace('\t', " "))
    )?;
    let marks = "^".repeat(end_col.saturating_sub(start_col).max(1));
    let underline = format!("{}{}", " ".repeat(start_col), marks);
    let underline = match label {
        Some(label) => format!("{underline} {label}"),
        None => underline,
    };
    writeln!(
        out,
        "{pad} {} {}",
        style.gutter("|"),
        style.paint("1;31", &underline)
    )
}

/// The character column of a UTF-16 column in `line`.
fn char_column(line: &str, utf16_column: u32) -> usize {
    let mut units = 0u32;
    for (chars, c) in line.chars().enumerate() {
        if units >= utf16_column {
            return chars;
        }
        units += c.len_utf16() as u32;
    }
    line.chars().count()
}
