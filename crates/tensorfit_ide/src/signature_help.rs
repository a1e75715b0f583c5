//! Signature help: the parameters of the call being written, with the one
//! the cursor's argument fills.
//!
//! The call is found from the text: the innermost open `(` before the
//! cursor that belongs to a call (parentheses of a tuple or a grouping are
//! skipped, a `{` ends the search: the cursor is then in a block, not in an
//! argument). What it calls comes from the tree completed at the cursor
//! (`cursor_tree`): a user function, a method, a struct's constructor, an
//! instance (its `forward`) or a prelude operation. The active parameter is
//! the one named by the argument (`stride: `) or the one its position
//! fills, counting the receiver of a method-style call.

use tensorfit_semantics::Environment;
use tensorfit_syntax::ast;

use crate::callable::callable;
use crate::cursor_text::{is_ident_char, named_argument, CursorText};
use crate::cursor_tree::CursorTree;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureHelp {
    /// `conv2d(input: Tensor, weight: Tensor, ...) -> Tensor`.
    pub label: String,
    /// The byte span of each parameter in `label`.
    pub parameters: Vec<(usize, usize)>,
    /// The parameter the argument at the cursor fills, if any.
    pub active_parameter: Option<usize>,
    /// The callee's doc comment, or what a prelude operation is.
    pub documentation: Option<String>,
}

/// The signature of the call whose arguments contain byte `offset` of
/// `text` (which `file` was parsed from; `first_error` as for
/// [`crate::completions`]).
pub fn signature_help(
    file: &ast::SourceFile,
    text: &str,
    offset: usize,
    environment: Environment<'_>,
    first_error: Option<usize>,
) -> Option<SignatureHelp> {
    let cursor = CursorText::new(text, offset);
    if cursor.in_comment_or_string {
        return None;
    }
    // The tree is only built once an open parenthesis is found.
    cursor.open.iter().rev().find(|o| o.bracket == '(')?;
    let tree = CursorTree::new(file, &cursor, environment.imports, first_error);
    let resolution = tree.resolve(&cursor, environment.prelude);
    for open in cursor.open.iter().rev() {
        match open.bracket {
            '{' => return None,
            '[' => continue,
            _ => {}
        }
        let Some(call) = tree.call_at(&resolution, open.offset) else {
            continue;
        };
        let own_defs = own_defs(&tree, &resolution);
        let callable = callable(&resolution, &call.callee, text, &|id| {
            own_defs.contains(&id)
        })?;
        let written = &text[open.current_start.min(cursor.offset)..cursor.offset];
        let named_before: Vec<&str> = open.args.iter().filter_map(|a| a.name.as_deref()).collect();
        let active_parameter = match named_argument(written) {
            Some(name) => callable.param_for(Some(name), 0),
            // After named arguments, a bare word is the start of another
            // name (`stride: 2, pad`), not a positional argument.
            None if !named_before.is_empty() && is_identifier(written.trim()) => {
                let typed = written.trim();
                callable.params.iter().position(|p| {
                    !p.variadic
                        && p.name.starts_with(typed)
                        && !named_before.contains(&p.name.as_str())
                })
            }
            None => {
                let position = open.args.iter().filter(|a| a.name.is_none()).count();
                callable.param_for(None, position)
            }
        };
        let (label, parameters) = callable.label();
        return Some(SignatureHelp {
            label,
            parameters,
            active_parameter,
            documentation: callable.documentation,
        });
    }
    None
}

/// Declarations made in this file (whose ranges point into its text), as
/// opposed to imported ones.
fn own_defs(
    tree: &CursorTree,
    resolution: &tensorfit_semantics::resolve::Resolution<'_>,
) -> Vec<usize> {
    let mut own = Vec::new();
    for (index, def) in resolution.item_defs.iter().enumerate() {
        let Some(def) = *def else { continue };
        if tree.import_of(index).is_some() {
            continue;
        }
        own.push(def);
        if let Some(members) = resolution.members.get(&def) {
            own.extend(members.methods.iter().copied());
        }
    }
    own
}

fn is_identifier(word: &str) -> bool {
    word.chars().next().is_some_and(|c| !c.is_numeric()) && word.chars().all(is_ident_char)
}
