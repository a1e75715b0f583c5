//! The boundary that editors and the command line talk to: plain data in
//! (file texts), plain data out (diagnostics and, as the analysis grows,
//! bindings, holes, decided conditions and migrations). No LSP, no JSON.

mod analysis;
mod imports;

pub use analysis::{analyze_file, AnalysisOptions, FileAnalysis};
pub use imports::{FileLoader, FsLoader};
