//! The boundary that editors and the command line talk to: plain data in
//! (file texts), plain data out (diagnostics, shapes, hovers and, as the
//! analysis grows, holes, decided conditions and migrations). No LSP, no JSON.

mod analysis;
mod callable;
mod carried;
mod claims;
mod completion;
mod cursor_text;
mod cursor_tree;
mod fix;
mod fixes;
mod hover;
mod hover_basics;
mod index_hover;
mod left_holes;
mod migration;
mod navigation;
mod render;
mod semantic_tokens;
mod signature_help;
mod symbols;
mod unknown_hover;

pub use analysis::{
    analyze_file, file_analysis, file_diagnostics, file_syntax, AnalysisOptions, FileAnalysis,
    FileSyntax,
};
pub use carried::{Carried, CarriedAnalysis};
pub use completion::{completions, CompletionItem, CompletionKind};
pub use fix::{Fix, FixKind, TextEdit};
pub use fixes::fixes;
pub use hover::{hole_text, hover, shape_text, Hover};
pub use left_holes::left_hole_warnings;
pub use migration::{reason_text, verdict_text};
pub use navigation::{definition, goto_definition, references, Definition, NavTarget};
pub use semantic_tokens::{semantic_tokens, SemanticToken, TokenKind, TokenModifiers};
pub use signature_help::{signature_help, SignatureHelp};
pub use symbols::{document_symbols, Symbol, SymbolKind};
pub use tensorfit_db::{read_source, FileLoader, FsLoader, NoImports};
pub use tensorfit_semantics::{
    CallShape, DecidedCondition, Environment, HoleSolution, Migration, Prelude, Requirement,
    ShapeFindings, ShapeInfo, ValueRange,
};
