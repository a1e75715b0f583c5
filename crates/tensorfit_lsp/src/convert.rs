//! Between the ide layer's byte offsets and LSP's (line, UTF-16) positions.

use tensorfit_base::{LineIndex, Severity, TextRange};
use tensorfit_ide::FileAnalysis;
use tower_lsp_server::ls_types as lsp;

pub fn position(index: &LineIndex, offset: u32) -> lsp::Position {
    let p = index.position(offset);
    lsp::Position::new(p.line, p.character)
}

pub fn range(index: &LineIndex, range: TextRange) -> lsp::Range {
    lsp::Range::new(position(index, range.start), position(index, range.end))
}

/// The byte offset of a position, clamped to the text.
pub fn offset(analysis: &FileAnalysis, position: lsp::Position) -> u32 {
    offset_in(&analysis.line_index, &analysis.text, position)
}

/// The byte offset of a position in `text` (which `index` is of), clamped
/// to the text.
pub fn offset_in(index: &LineIndex, text: &str, position: lsp::Position) -> u32 {
    let wanted = tensorfit_base::Position {
        line: position.line,
        character: position.character,
    };
    index.offset(wanted).unwrap_or(text.len() as u32)
}

/// The byte offset of a position of the current text (an open document's
/// rope), clamped to the text.
pub fn rope_offset(rope: &tensorfit_db::Rope, position: lsp::Position) -> u32 {
    let at = tensorfit_base::Position {
        line: position.line,
        character: position.character,
    };
    tensorfit_db::byte_offset(rope, at) as u32
}

pub fn rope_position(rope: &tensorfit_db::Rope, offset: u32) -> lsp::Position {
    let p = tensorfit_db::position_in(rope, offset as usize);
    lsp::Position::new(p.line, p.character)
}

pub fn rope_range(rope: &tensorfit_db::Rope, range: TextRange) -> lsp::Range {
    lsp::Range::new(
        rope_position(rope, range.start),
        rope_position(rope, range.end),
    )
}

pub fn text_range(analysis: &FileAnalysis, range: lsp::Range) -> TextRange {
    let start = offset(analysis, range.start);
    let end = offset(analysis, range.end).max(start);
    TextRange::new(start as usize, end as usize)
}

pub fn diagnostic(
    uri: &lsp::Uri,
    index: &LineIndex,
    d: &tensorfit_base::Diagnostic,
) -> lsp::Diagnostic {
    let related = d
        .related
        .iter()
        .map(|r| lsp::DiagnosticRelatedInformation {
            location: lsp::Location::new(uri.clone(), range(index, r.range)),
            message: r.message.clone(),
        })
        .collect::<Vec<_>>();
    lsp::Diagnostic {
        range: range(index, d.range),
        severity: Some(match d.severity {
            Severity::Error => lsp::DiagnosticSeverity::ERROR,
            Severity::Warning => lsp::DiagnosticSeverity::WARNING,
            Severity::Information => lsp::DiagnosticSeverity::INFORMATION,
            Severity::Hint => lsp::DiagnosticSeverity::HINT,
        }),
        code: Some(lsp::NumberOrString::String(d.code.as_str().to_owned())),
        // A released binary links each code to its explanation (editors
        // make the code a link).
        code_description: d
            .code
            .docs_url()
            .and_then(|url| url.parse().ok())
            .map(|href| lsp::CodeDescription { href }),
        source: Some("tensorfit".to_owned()),
        message: d.message.clone(),
        related_information: (!related.is_empty()).then_some(related),
        ..lsp::Diagnostic::default()
    }
}

pub fn edit(index: &LineIndex, edit: &tensorfit_ide::TextEdit) -> lsp::TextEdit {
    lsp::TextEdit::new(range(index, edit.range), edit.new_text.clone())
}
