//! An import as the analysis is given it: resolved by the caller, which
//! owns file access (the database, the command line), before any name of
//! the file is looked up.

use tensorfit_base::TextRange;
use tensorfit_syntax::ast;

/// An `import` of the checked file, resolved by the caller (which owns file
/// access): the imported file's syntax, or why it could not be had.
#[derive(Clone, Debug, PartialEq)]
pub struct ResolvedImport {
    /// The range of the import's path literal in the checked file.
    pub range: TextRange,
    /// The path as it should appear in messages.
    pub display_path: String,
    /// The names the file imports from it by name (see `ast::Import`).
    pub names: Vec<String>,
    pub outcome: ImportOutcome,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ImportOutcome {
    Loaded(std::sync::Arc<ast::SourceFile>),
    NotFound {
        reason: String,
    },
    /// The chain of files from the importing file back to itself.
    Cycle {
        chain: Vec<String>,
    },
}
