//! Checking one file.

use std::path::Path;

use tensorfit_base::{Code, Diagnostic, LineIndex, TextRange};
use tensorfit_semantics::{Limits, ShapeFindings, ShapeOptions};

use crate::imports::{FileLoader, ImportResolver};

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
    loader: &dyn FileLoader,
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
    let parse = tensorfit_syntax::parse(&text);
    let mut diagnostics = parse.diagnostics;
    if let Some(error) = decode_error {
        // The lossy text has the same prefix, so the offset is valid in it.
        diagnostics.push(Diagnostic::new(
            Code::InvalidUtf8,
            TextRange::new(error.valid_up_to, error.valid_up_to + '\u{FFFD}'.len_utf8()),
            "the file is not valid UTF-8 here; invalid bytes were read as U+FFFD",
        ));
    }
    let imports = ImportResolver::new(loader).resolve(path, &parse.file);
    diagnostics.extend(tensorfit_semantics::check_names(
        &parse.file,
        &imports,
        &parse.names_in_errors,
    ));
    let limits = Limits {
        timeout_ms: options.timeout_ms,
    };
    // A defect in the shape engine must cost the user the shape check of
    // this file, not the editor session or the CI run.
    let shapes = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        tensorfit_semantics::check_shapes(
            &parse.file,
            &imports,
            ShapeOptions {
                limits,
                questions: options.questions,
            },
        )
    }));
    let shapes = shapes.unwrap_or_else(|_| {
        diagnostics.push(Diagnostic::new(
            Code::InternalError,
            TextRange::empty(0),
            "tensorfit failed while checking the shapes of this file; shapes are not checked (please report this)",
        ));
        Default::default()
    });
    diagnostics.extend(shapes.diagnostics);
    diagnostics.sort_by_key(|d| (d.range.start, d.range.end));
    FileAnalysis {
        line_index: LineIndex::new(&text),
        text,
        diagnostics,
        shapes: shapes.findings,
    }
}
