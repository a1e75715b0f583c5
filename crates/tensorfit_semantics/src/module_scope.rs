//! The names visible everywhere in a file: its items, the items of the files
//! it imports, and the prelude.

use std::collections::{BTreeMap, BTreeSet};

use tensorfit_base::{Code, Diagnostic, TextRange};
use tensorfit_syntax::ast;

use crate::environment::Environment;
use crate::prelude::PRELUDE_VALUES;
use crate::resolved_import::ImportOutcome;
use crate::signature::Signature;

#[derive(Clone, Debug)]
pub(crate) enum ModuleItemKind {
    Const,
    Function(Signature),
    Struct(Signature),
    Prelude,
    PreludeValue,
}

#[derive(Clone, Debug)]
pub(crate) struct ModuleItem {
    pub kind: ModuleItemKind,
    /// Where the item's name is declared in the checked file; for an
    /// imported item, the path of its `import`. Empty for the prelude.
    pub range: TextRange,
    /// Set when the item comes from an imported file.
    pub imported_from: Option<String>,
}

pub(crate) struct ModuleScope {
    pub items: BTreeMap<String, ModuleItem>,
    /// Every field, parameter and method name of every struct in scope: a
    /// member access on a value of unknown type is plausible if it names one.
    pub member_names: BTreeSet<String>,
}

impl ModuleScope {
    pub fn build(
        file: &ast::SourceFile,
        environment: Environment<'_>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> ModuleScope {
        let mut scope = ModuleScope {
            items: BTreeMap::new(),
            member_names: BTreeSet::new(),
        };
        for name in environment.prelude.signatures.keys() {
            scope.items.insert(
                name.clone(),
                ModuleItem {
                    kind: ModuleItemKind::Prelude,
                    range: TextRange::default(),
                    imported_from: None,
                },
            );
        }
        for value in PRELUDE_VALUES {
            scope.items.insert(
                (*value).to_owned(),
                ModuleItem {
                    kind: ModuleItemKind::PreludeValue,
                    range: TextRange::default(),
                    imported_from: None,
                },
            );
        }
        for import in environment.imports {
            match &import.outcome {
                ImportOutcome::Loaded(imported) => {
                    for item in &imported.items {
                        scope.add_item(item, Some(&import.display_path), import.range, diagnostics);
                    }
                }
                ImportOutcome::NotFound { reason } => diagnostics.push(Diagnostic::new(
                    Code::ImportNotFound,
                    import.range,
                    format!("cannot import `{}`: {reason}", import.display_path),
                )),
                ImportOutcome::Cycle { chain } => diagnostics.push(Diagnostic::new(
                    Code::ImportCycle,
                    import.range,
                    format!("import cycle: {}", chain.join(" imports ")),
                )),
            }
        }
        for item in &file.items {
            scope.add_item(item, None, item.range(), diagnostics);
        }
        scope
    }

    fn add_item(
        &mut self,
        item: &ast::Item,
        imported_from: Option<&str>,
        report_at: TextRange,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        if let ast::Item::Struct(s) = item {
            self.member_names
                .extend(s.fields.iter().map(|f| f.name.text.clone()));
            self.member_names
                .extend(s.params.iter().flatten().map(|p| p.name.text.clone()));
            self.member_names.extend(
                s.methods
                    .iter()
                    .filter_map(|m| m.name.as_ref())
                    .map(|n| n.text.clone()),
            );
        }
        let Some(name) = item.name() else { return };
        let kind = match item {
            ast::Item::Const(_) => ModuleItemKind::Const,
            ast::Item::Function(f) => {
                ModuleItemKind::Function(Signature::from_params(&name.text, &f.params))
            }
            ast::Item::Struct(s) => ModuleItemKind::Struct(Signature::from_params(
                &name.text,
                s.params.as_deref().unwrap_or(&[]),
            )),
            ast::Item::Import(_) => return,
        };
        if let Some(previous) = self.items.get(&name.text) {
            let user_item = !matches!(
                previous.kind,
                ModuleItemKind::Prelude | ModuleItemKind::PreludeValue
            );
            if user_item {
                let range = if imported_from.is_some() {
                    report_at
                } else {
                    name.range
                };
                let first_declared = match &previous.imported_from {
                    Some(path) => format!("`{}` is first imported from `{path}` here", name.text),
                    None => format!("`{}` is first declared here", name.text),
                };
                let diagnostic = Diagnostic::new(
                    Code::RedeclaredName,
                    range,
                    match imported_from {
                        Some(path) => format!(
                            "`{}` is imported from `{path}` but is already declared",
                            name.text
                        ),
                        None => format!("`{}` is already declared", name.text),
                    },
                )
                .with_related(previous.range, first_declared);
                diagnostics.push(diagnostic);
                return;
            }
        }
        let range = if imported_from.is_some() {
            report_at
        } else {
            name.range
        };
        self.items.insert(
            name.text.clone(),
            ModuleItem {
                kind,
                range,
                imported_from: imported_from.map(str::to_owned),
            },
        );
    }
}
