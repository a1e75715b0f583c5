//! Go to definition and find references.
//!
//! Both follow the language's scoping rules through the file's name
//! resolution (`resolve`), so a shadowed binding, a parameter, a dimension
//! name bound in a `Tensor[...]` type or a struct member reached through
//! `self.name` lead to the declaration the checker itself uses. Prelude
//! operations have no declaration in the file, so going to their definition
//! gives nothing; their references are their uses in the file.

use tensorfit_base::TextRange;
use tensorfit_semantics::Prelude;
use tensorfit_syntax::ast;

use crate::resolve::{resolve, Target};

/// Where a declaration is: the name to select and the whole declaration
/// (the item, the statement, the parameter) to show around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NavTarget {
    pub name_range: TextRange,
    pub full_range: TextRange,
}

/// The declaration of the name at `offset` (a byte offset into the text
/// `file` was parsed from). On a declaration, that declaration itself.
/// `None` off names, for prelude operations and for undeclared names.
pub fn goto_definition(
    file: &ast::SourceFile,
    prelude: &Prelude,
    offset: usize,
) -> Option<NavTarget> {
    let resolution = resolve(file, prelude);
    let occurrence = resolution.occurrence_at(offset)?;
    let Target::Def(id) = occurrence.target else {
        return None;
    };
    let def = resolution.defs.get(id)?;
    Some(NavTarget {
        name_range: def.name_range,
        full_range: def.full_range,
    })
}

/// Every occurrence of the binding named at `offset` (from a use or from
/// the declaration), sorted; the declaration only with
/// `include_declaration`. Empty off names and for undeclared names.
pub fn references(
    file: &ast::SourceFile,
    prelude: &Prelude,
    offset: usize,
    include_declaration: bool,
) -> Vec<TextRange> {
    let resolution = resolve(file, prelude);
    let Some(occurrence) = resolution.occurrence_at(offset) else {
        return Vec::new();
    };
    let target = &occurrence.target;
    if *target == Target::Unresolved {
        return Vec::new();
    }
    let mut ranges: Vec<TextRange> = resolution
        .occurrences
        .iter()
        .filter(|o| o.target == *target && (include_declaration || !o.declaration))
        .map(|o| o.range)
        .collect();
    ranges.sort();
    ranges.dedup();
    ranges
}
