//! Go to definition and find references.
//!
//! Both follow the language's scoping rules through the file's name
//! resolution (`resolve`), so a shadowed binding, a parameter, a dimension
//! name bound in a `Tensor[...]` type or a struct member reached through
//! `self.name` lead to the declaration the checker itself uses. Prelude
//! operations have no declaration in the file, so going to their definition
//! gives nothing; their references are their uses in the file. A name the
//! file does not declare but an import does leads to the imported file's
//! declaration ([`definition`]).

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

/// Where a name's declaration is: in the file itself (`import` is
/// `None`), or in the file of the `import`-th of its imports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Definition {
    pub import: Option<usize>,
    pub target: NavTarget,
}

/// The declaration of the name at `offset` (a byte offset into `text`, the
/// text `file` was parsed from). On a declaration, that declaration itself.
/// A name the file does not declare is looked up among the items of its
/// loaded imports, in order, as the checker does (the first declaration
/// wins; an imported item hides a prelude operation). `None` off names, for
/// prelude operations and for names nothing declares.
pub fn definition(
    file: &ast::SourceFile,
    text: &str,
    imports: &[ResolvedImport],
    prelude: &Prelude,
    offset: usize,
) -> Option<Definition> {
    let resolution = resolve(file, prelude);
    let occurrence = resolution.occurrence_at(offset)?;
    if let Target::Def(id) = occurrence.target {
        let def = resolution.defs.get(id)?;
        return Some(Definition {
            import: None,
            target: NavTarget {
                name_range: def.name_range,
                full_range: def.full_range,
            },
        });
    }
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
        let item = imported
            .items
            .iter()
            .find(|item| item.name().is_some_and(|n| n.text == name))?;
        Some(Definition {
            import: Some(i),
            target: NavTarget {
                name_range: item.name()?.range,
                full_range: item.range(),
            },
        })
    })
}

/// The declaration of the name at `offset` in `file` itself (see
/// [`definition`]).
pub fn goto_definition(
    file: &ast::SourceFile,
    prelude: &Prelude,
    offset: usize,
) -> Option<NavTarget> {
    definition(file, "", &[], prelude, offset).map(|d| d.target)
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
