//! Checking one file.

use std::path::Path;

use tensorfit_base::{Code, Diagnostic, LineIndex, TextRange};

use crate::imports::{FileLoader, ImportResolver};

/// Everything tensorfit finds in one file.
#[derive(Clone, Debug)]
pub struct FileAnalysis {
    pub line_index: LineIndex,
    /// The text that was analysed (invalid UTF-8 replaced).
    pub text: String,
    /// Sorted by position.
    pub diagnostics: Vec<Diagnostic>,
}

/// The file's bytes were not UTF-8: where the first bad byte was.
#[derive(Clone, Copy, Debug)]
struct SourceDecodeError {
    pub valid_up_to: usize,
}

/// Checks one file. `path` locates relative imports; `bytes` is its content.
pub fn analyze_file(path: &Path, bytes: &[u8], loader: &dyn FileLoader) -> FileAnalysis {
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
    diagnostics.sort_by_key(|d| (d.range.start, d.range.end));
    FileAnalysis {
        line_index: LineIndex::new(&text),
        text,
        diagnostics,
    }
}
