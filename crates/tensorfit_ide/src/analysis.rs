//! Checking one file.

use std::path::Path;
use std::sync::Arc;

use tensorfit_base::{Code, Diagnostic, LineIndex, TextRange};
use tensorfit_semantics::{Limits, ShapeFindings, ShapeOptions};

use tensorfit_db::{FileLoader, Host};

/// Everything tensorfit finds in one file.
#[derive(Clone, Debug)]
pub struct FileAnalysis {
    pub line_index: LineIndex,
    /// The text that was analysed (invalid UTF-8 replaced).
    pub text: String,
    /// Sorted by position.
    pub diagnostics: Vec<Diagnostic>,
    /// Shapes of bindings and expressions, holes, decided conditions and
    /// migrations.
    pub shapes: ShapeFindings,
}

/// Settings of an analysis.
#[derive(Clone, Copy, Debug)]
pub struct AnalysisOptions {
    /// The solver's time limit per query.
    pub timeout_ms: u32,
    /// Solve holes, migrations and decided conditions too.
    pub questions: bool,
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        AnalysisOptions {
            timeout_ms: 2000,
            questions: true,
        }
    }
}

/// The file's bytes were not UTF-8: where the first bad byte was.
#[derive(Clone, Copy, Debug)]
struct SourceDecodeError {
    pub valid_up_to: usize,
}

/// Checks one file. `path` locates relative imports; `bytes` is its content.
pub fn analyze_file(
    path: &Path,
    bytes: &[u8],
    loader: Arc<dyn FileLoader>,
    options: AnalysisOptions,
) -> FileAnalysis {
    let (text, decode_error) = match std::str::from_utf8(bytes) {
        Ok(text) => (text.to_owned(), None),
        Err(error) => (
            String::from_utf8_lossy(bytes).into_owned(),
            Some(SourceDecodeError {
                valid_up_to: error.valid_up_to(),
            }),
        ),
    };
    let mut diagnostics = Vec::new();
    if let Some(error) = decode_error {
        // The lossy text has the same prefix, so the offset is valid in it.
        diagnostics.push(Diagnostic::new(
            Code::InvalidUtf8,
            TextRange::new(error.valid_up_to, error.valid_up_to + '\u{FFFD}'.len_utf8()),
            "the file is not valid UTF-8 here; invalid bytes were read as U+FFFD",
        ));
    }
    let options = ShapeOptions {
        limits: Limits {
            timeout_ms: options.timeout_ms,
        },
        questions: options.questions,
    };
    let mut host = Host::new(loader, options);
    let file = host.set_text(path, &text);
    let report = tensorfit_db::queries::file_report(host.db(), file);
    diagnostics.extend(report.diagnostics.iter().cloned());
    diagnostics.sort_by_key(|d| (d.range.start, d.range.end));
    FileAnalysis {
        line_index: LineIndex::new(&text),
        text,
        diagnostics,
        shapes: report.findings.clone(),
    }
}

/// The analysis of a file of the database (an open buffer), as the editor
/// features take it.
pub fn file_analysis(db: &tensorfit_db::Database, file: tensorfit_db::SourceFile) -> FileAnalysis {
    let text = file.text(db).to_string();
    let report = tensorfit_db::queries::file_report(db, file);
    FileAnalysis {
        line_index: LineIndex::new(&text),
        text,
        diagnostics: report.diagnostics.clone(),
        shapes: report.findings.clone(),
    }
}
