//! Go to definition and find references.
//!
//! Both follow the language's scoping rules through the file's name
//! resolution (`resolve`), so a shadowed binding, a parameter, a dimension
//! name bound in a `Tensor[...]` type or a struct member reached through
//! `self.name` lead to the declaration the checker itself uses. Prelude
//! operations have no declaration in the file, so going to their definition
//! gives nothing; their references are their uses in the file. A name the
//! file does not declare but an import does leads to the imported file's
//! declaration ([`imported_definition`]).

use tensorfit_base::TextRange;
use tensorfit_semantics::{ImportOutcome, Prelude, ResolvedImport};
use tensorfit_syntax::ast;

use tensorfit_semantics::resolve::{resolve, Role, Target};

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

/// The declaration, in an imported file, of the name at `offset` that
/// `file` itself does not declare: the position of the import in
/// `imports` and where the declaration is in that file's text. The imports
/// are searched in order, as the checker does (the first declaration
/// wins). `None` for a name the file resolves, or no import declares.
pub fn imported_definition(
    file: &ast::SourceFile,
    text: &str,
    imports: &[ResolvedImport],
    prelude: &Prelude,
    offset: usize,
) -> Option<(usize, NavTarget)> {
    let resolution = resolve(file, prelude);
    let occurrence = resolution.occurrence_at(offset)?;
    let looked_up = matches!(occurrence.target, Target::Unresolved | Target::Prelude(_))
        && matches!(occurrence.role, Role::Plain | Role::Callee | Role::TypeName);
    if !looked_up {
        return None;
    }
    let name = text.get(occurrence.range.start as usize..occurrence.range.end as usize)?;
    imports.iter().enumerate().find_map(|(i, import)| {
        let ImportOutcome::Loaded(imported) = &import.outcome else {
            return None;
        };
        let declared = resolve(imported, prelude);
        let def = declared.defs.get(*declared.items.get(name)?)?;
        Some((
            i,
            NavTarget {
                name_range: def.name_range,
                full_range: def.full_range,
            },
        ))
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
