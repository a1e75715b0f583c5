//! `--format github`: GitHub Actions workflow commands, one per diagnostic,
//! which the runner turns into annotations on the pull request's diff:
//!
//! ```text
//! ::error file=model.tensor,line=9,endLine=9,col=13,endColumn=40,title=tensorfit shape-mismatch::m has shape …
//! ```
//!
//! Related places cannot be annotations of their own (they would read as
//! separate problems), so they follow the message on lines of their own.

use std::io::{self, Write};

use tensorfit_base::{Diagnostic, Severity};

use super::CheckedFile;

fn command(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information | Severity::Hint => "notice",
    }
}

/// A message: `%`, CR and LF escaped, as the runner unescapes them.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property value: also `:` and `,`, which end values.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

fn annotation(file: &CheckedFile, d: &Diagnostic) -> String {
    let index = &file.analysis.line_index;
    let start = index.position(d.range.start);
    let end = index.position(d.range.end);
    let mut message = d.message.clone();
    for related in &d.related {
        let at = index.position(related.range.start);
        message.push_str(&format!(
            "\n{}:{}:{}: {}",
            file.path,
            at.line + 1,
            at.character + 1,
            related.message
        ));
    }
    format!(
        "::{} file={},line={},endLine={},col={},endColumn={},title={}::{}",
        command(d.severity),
        escape_property(&file.path),
        start.line + 1,
        end.line + 1,
        start.character + 1,
        end.character + 1,
        escape_property(&format!("tensorfit {}", d.code.as_str())),
        escape_data(&message),
    )
}

pub fn write(out: &mut impl Write, files: &[CheckedFile]) -> io::Result<()> {
    for file in files {
        for d in file.analysis.diagnostics() {
            writeln!(out, "{}", annotation(file, d))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_and_properties_are_escaped_as_the_runner_reads_them() {
        assert_eq!(escape_data("50% of\r\nit"), "50%25 of%0D%0Ait");
        assert_eq!(escape_property("a:b,c%"), "a%3Ab%2Cc%25");
    }
}
