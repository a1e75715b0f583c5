//! Report formats of `tensorfit check`.

pub mod github;
pub mod human;
pub mod json;
pub mod sarif;

use tensorfit_ide::FileAnalysis;

/// One checked file as the reports see it.
pub struct CheckedFile {
    /// The path as the user would write it, also used in JSON.
    pub path: String,
    pub analysis: FileAnalysis,
}

/// `text` with control characters (a terminal's escape sequences among
/// them) shown as their Unicode pictures (ESC as `␛`), one character each
/// so that underlines stay aligned: source text never drives the terminal.
pub fn printable(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\0'..='\u{1f}' => char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}'),
            '\u{7f}' => '\u{2421}',
            '\u{80}'..='\u{9f}' => '\u{fffd}',
            // Bidirectional overrides and isolates reorder what a terminal
            // or a log viewer shows (a "Trojan source" name).
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => '\u{fffd}',
            c => c,
        })
        .collect()
}

/// A path as it may start a line: [`printable`], and never beginning with
/// `::`, which a CI runner would take for a workflow command
/// (`::error file=…::`); such a relative path is written `./::…`, the
/// same file.
pub fn line_start_path(path: &str) -> String {
    let path = printable(path);
    if path.starts_with("::") {
        format!("./{path}")
    } else {
        path
    }
}
