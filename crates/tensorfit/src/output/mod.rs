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
