//! A syntax tree for the code at the cursor, completed so that it parses.
//!
//! While the user types, the tree of the whole file may have lost the
//! function around the cursor to error recovery (`fn f(x: T) { let y = x.`
//! is one big error). The text before the cursor is what matters for the
//! names in scope there, so it is parsed again, completed: a marker
//! identifier at the cursor (so that `x.` becomes a member access and
//! `f(a, ` an argument) and the brackets still open, closed. Items that
//! follow the cursor come from the file's own tree, and imported items from
//! the imported files' trees: they are declared (so that they can be
//! completed and called) but not walked.

use tensorfit_semantics::{ImportOutcome, Prelude, ResolvedImport};
use tensorfit_syntax::ast;

use crate::cursor_text::CursorText;
use tensorfit_semantics::resolve::{resolve_at, CallSite, Resolution};

/// An identifier nobody writes, parsed where the cursor is.
const MARKER: &str = "tensorfitCursor";

pub(crate) struct CursorTree {
    /// The completed text: the text before the cursor, the marker, closers.
    pub text: String,
    /// The items of the text parsed again (from the item or statement
    /// around the cursor), the file's items before them and after the
    /// cursor, then the imported items; the file's script before the text
    /// parsed again, then that text's.
    pub file: ast::SourceFile,
    /// Items of the text parsed again (walked).
    pub completed_items: usize,
    /// Items of this file (the completed text's and those after the cursor).
    pub own_items: usize,
    /// For each imported item (after `own_items`), the import's path.
    pub imported_from: Vec<String>,
}

impl CursorTree {
    /// `first_error` is where the file's first syntax error starts: the
    /// file's tree is taken as it is before it.
    pub fn new(
        file: &ast::SourceFile,
        cursor: &CursorText<'_>,
        imports: &[ResolvedImport],
        first_error: Option<usize>,
    ) -> CursorTree {
        let mut text = String::with_capacity(cursor.offset + MARKER.len() + cursor.open.len());
        text.push_str(&cursor.text[..cursor.offset]);
        text.push_str(MARKER);
        for open in cursor.open.iter().rev() {
            text.push(match open.bracket {
                '(' => ')',
                '[' => ']',
                _ => '}',
            });
        }
        // Only the text from the start of the top-level item or statement
        // around the cursor is parsed again (parsing the whole prefix took
        // tens of milliseconds at the end of a long file); what comes
        // before it is the file's tree's.
        let cut = resume_point(file, cursor.offset.min(first_error.unwrap_or(usize::MAX)));
        let reparsed = tensorfit_syntax::lower_piece(&text[cut..], cut, &[]).file;
        let before = |range: tensorfit_base::TextRange| (range.end as usize) <= cut;
        // The reparsed items are walked (the cursor is in one of them);
        // the items before them, like those after the cursor, are only
        // declared: their bodies' scopes do not reach the cursor.
        let mut completed = ast::SourceFile {
            items: reparsed.items,
            script: file
                .script
                .iter()
                .filter(|statement| before(statement.range))
                .cloned()
                .chain(reparsed.script)
                .collect(),
            holes: file
                .holes
                .iter()
                .copied()
                .filter(|&hole| before(hole))
                .chain(reparsed.holes)
                .collect(),
        };
        let completed_items = completed.items.len();
        let cursor_offset = cursor.offset as u64;
        // Declared only: their bodies are not copied (on a file of 1,000
        // functions, copying and dropping them was half of a completion).
        completed.items.extend(
            file.items
                .iter()
                .filter(|item| before(item.range()))
                .map(ast::Item::declaration),
        );
        completed.items.extend(
            file.items
                .iter()
                .filter(|item| u64::from(item.range().start) >= cursor_offset)
                .filter(|item| !matches!(item, ast::Item::Import(_)))
                .map(ast::Item::declaration),
        );
        let own_items = completed.items.len();
        let mut imported_from = Vec::new();
        for import in imports {
            if let ImportOutcome::Loaded(imported) = &import.outcome {
                for item in &imported.items {
                    if !matches!(item, ast::Item::Import(_)) {
                        completed.items.push(item.declaration());
                        imported_from.push(import.display_path.clone());
                    }
                }
            }
        }
        CursorTree {
            text,
            file: completed,
            completed_items,
            own_items,
            imported_from,
        }
    }

    /// Names resolved, with the scope at the cursor recorded.
    pub fn resolve<'a>(&'a self, cursor: &CursorText<'_>, prelude: &'a Prelude) -> Resolution<'a> {
        let probe = u32::try_from(cursor.offset).unwrap_or(u32::MAX);
        resolve_at(&self.file, prelude, probe, self.completed_items)
    }

    /// The import an item (by index in `file.items`) comes from.
    pub fn import_of(&self, item_index: usize) -> Option<&str> {
        let index = item_index.checked_sub(self.own_items)?;
        self.imported_from.get(index).map(String::as_str)
    }

    /// The call whose argument list opens with the `(` at `paren`.
    pub fn call_at<'r, 'a>(
        &self,
        resolution: &'r Resolution<'a>,
        paren: usize,
    ) -> Option<&'r CallSite<'a>> {
        let paren32 = u32::try_from(paren).ok()?;
        resolution
            .calls
            .iter()
            .filter(|call| {
                let callee_end = call.callee_range.end;
                callee_end <= paren32
                    && paren32 < call.range.end
                    && call.range.start <= paren32
                    && self
                        .text
                        .get(callee_end as usize..paren)
                        .is_some_and(|between| between.trim().is_empty())
            })
            .max_by_key(|call| call.callee_range.end)
    }
}

/// Where parsing the text before the cursor may start: the start of the
/// last top-level item or statement of the file's tree that starts at or
/// before `limit` (the cursor, or the first syntax error if that comes
/// first: past it, the tree's pieces may be fragments of the broken code
/// around the cursor); the start of the file when there is none.
fn resume_point(file: &ast::SourceFile, limit: usize) -> usize {
    let items = file.items.iter().map(|item| item.range());
    let statements = file.script.iter().map(|statement| statement.range);
    items
        .chain(statements)
        .map(|range| range.start as usize)
        .filter(|&start| start <= limit)
        .max()
        .unwrap_or(0)
}
