//! What every hover is made of, shared by the hovers of shapes and
//! signatures (`hover.rs`), of index variables (`index_hover.rs`) and of
//! unknown values (`unknown_hover.rs`): the answer, and how much of the
//! file names are resolved in to find it.

use tensorfit_base::TextRange;
use tensorfit_semantics::resolve::{resolve, resolve_around, Resolution};

use crate::FileAnalysis;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hover {
    /// What the hover is about (the name or the expression).
    pub range: TextRange,
    /// Plain text in the language's terms, one fact per line; the first
    /// line is the shape or the signature.
    pub text: String,
    /// Prose: a function's doc comment, what a prelude operation is.
    pub documentation: Option<String>,
}

/// How much of the file a hover resolves names in: the item around the
/// offset, or (to test that this answers the same) the whole file.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Names {
    AroundOffset,
    #[cfg_attr(not(test), allow(dead_code))]
    WholeFile,
}

impl Names {
    pub(crate) fn resolve<'a>(self, analysis: &'a FileAnalysis, offset: u32) -> Resolution<'a> {
        match self {
            Names::AroundOffset => resolve_around(analysis.tree(), &analysis.prelude, offset),
            Names::WholeFile => resolve(analysis.tree(), &analysis.prelude),
        }
    }
}
