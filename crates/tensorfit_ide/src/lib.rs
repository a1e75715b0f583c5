//! The boundary that editors and the command line talk to: plain data in
//! (file texts), plain data out (diagnostics, shapes, hovers and, as the
//! analysis grows, holes, decided conditions and migrations). No LSP, no JSON.

mod analysis;
mod fixes;
mod hover;
mod migration;

pub use analysis::{analyze_file, file_analysis, AnalysisOptions, FileAnalysis};
pub use fixes::{fixes, Fix, TextEdit};
pub use hover::{hole_text, hover, shape_text, Hover};
pub use migration::reason_text;
pub use tensorfit_db::{FileLoader, FsLoader, NoImports};
pub use tensorfit_semantics::{
    CallShape, DecidedCondition, HoleSolution, Migration, Requirement, ShapeFindings, ShapeInfo,
    ValueRange,
};
