//! What a fix is: a title and the text edits that make it, as plain data
//! the language server turns into a code action. The fixes themselves are
//! found in `fixes.rs` and, for claims, `claims.rs`.

use tensorfit_base::TextRange;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub range: TextRange,
    pub new_text: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub title: String,
    /// Where the fix is offered (the hole, the parameter, the condition).
    pub target: TextRange,
    pub edits: Vec<TextEdit>,
    /// The fix to apply when there is one obvious choice.
    pub preferred: bool,
    pub kind: FixKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FixKind {
    /// Repairs or completes the program (a hole, a migration, dead code).
    QuickFix,
    /// Rewrites a correct program (writes down an inferred shape).
    Rewrite,
}
