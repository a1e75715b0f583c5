//! Plain data shared by every layer of tensorfit.
//!
//! Nothing here knows about tree-sitter, the solver, salsa or LSP: byte
//! ranges, the conversion of byte offsets to editor positions, and the
//! diagnostic model with its stable codes; the stack and heap the analysis
//! runs with.

mod diagnostic;
mod edit_map;
mod heap;
mod language;
mod line_index;
mod python_slice;
mod size;
mod stack;
mod text_range;

pub use diagnostic::{Code, Diagnostic, Related, Severity, Suggestion, DOCS_URL};
pub use edit_map::{ByteEdit, EditMap};
pub use heap::{count_heap, live_heap_bytes, CountingAllocator};
pub use language::Language;
pub use line_index::{LineIndex, Position};
pub use python_slice::{slice_positions, SlicePositions};
pub use size::MAX_CHECKED_BYTES;
pub use stack::{with_analysis_stack, ANALYSIS_STACK_BYTES};
pub use text_range::TextRange;
