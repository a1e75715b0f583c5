//! The files a Python file's imports import in turn, for the analysis.
//!
//! A call whose arguments no placeholder stands for (`resnet50()`, whose
//! `**kwargs` is a dict) is analysed in the caller's analysis, with the
//! callee's body (see `tensorfit_semantics`' summaries for fixed
//! arguments). That body names items of the files its own file imports
//! (`_ovewrite_named_param` from `_utils.py`, `WeightsEnum::verify` from
//! `_api.py`), which the caller does not import: they are added after the
//! caller's own imports.
//!
//! Only names nothing else gives are added: a name the caller or its own
//! imports define, one the prelude declares (`transforms.functional.pad`
//! must not hide `F.pad`), or one two of the added files define (which one
//! a body meant is not known) is left out. So is a file that would import
//! the caller back, and anything past [`MAX_FILES`] files or [`MAX_DEPTH`]
//! steps.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use tensorfit_base::TextRange;
use tensorfit_semantics::{ImportOutcome, ResolvedImport};
use tensorfit_syntax::ast;

use crate::imports::{cycle_back_to, normalize, resolve_relative};
use crate::items::{interface, module_context};
use crate::{Db, SourceFile};

/// How many files are added at most: torchvision's model files reach a
/// handful.
const MAX_FILES: usize = 32;

/// How many imports deep files are followed.
const MAX_DEPTH: usize = 3;

/// The files `direct` (the file's own imports, each with the file it
/// loaded) import in turn, each as an import of `file`.
pub(crate) fn transitive_imports(
    db: &dyn Db,
    file: SourceFile,
    direct: &[(ResolvedImport, Option<SourceFile>)],
) -> Vec<(ResolvedImport, Option<SourceFile>)> {
    let origin = normalize(file.path(db));
    let mut seen: HashSet<_> = direct
        .iter()
        .filter_map(|(_, loaded)| loaded.map(|f| normalize(f.path(db))))
        .collect();
    seen.insert(origin.clone());
    let mut frontier: Vec<SourceFile> = direct.iter().filter_map(|(_, loaded)| *loaded).collect();
    let mut added = Vec::new();
    for _ in 0..MAX_DEPTH {
        let mut next = Vec::new();
        for importer in frontier {
            let Some(context) = module_context(db, importer) else {
                continue;
            };
            for relative in &context.workspace_files {
                if added.len() >= MAX_FILES {
                    return as_imports(db, file, direct, added);
                }
                let target = resolve_relative(importer.path(db), relative);
                if !seen.insert(target.clone()) {
                    continue;
                }
                let Ok(imported) = db.file_at(&target) else {
                    continue;
                };
                if cycle_back_to(db, &origin, &target).is_some() {
                    continue;
                }
                added.push((target, imported));
                next.push(imported);
            }
        }
        frontier = next;
    }
    as_imports(db, file, direct, added)
}

/// The files found, each as an import of `file` that declares only the
/// names nothing else gives (see the module's docs).
fn as_imports(
    db: &dyn Db,
    file: SourceFile,
    direct: &[(ResolvedImport, Option<SourceFile>)],
    found: Vec<(PathBuf, SourceFile)>,
) -> Vec<(ResolvedImport, Option<SourceFile>)> {
    let prelude = crate::prelude(db);
    let names = |items: &[ast::Item]| -> Vec<String> {
        items
            .iter()
            .filter_map(|item| item.name().map(|n| n.text.clone()))
            .collect()
    };
    let mut visible: HashSet<String> = names(&interface(db, file).items).into_iter().collect();
    for (import, _) in direct {
        if let ImportOutcome::Loaded(imported) = &import.outcome {
            visible.extend(names(&imported.items));
        }
    }
    let mut defined_by: HashMap<String, usize> = HashMap::new();
    for (_, imported) in &found {
        for name in names(&interface(db, *imported).items) {
            *defined_by.entry(name).or_default() += 1;
        }
    }
    let added = |name: &str| {
        !visible.contains(name) && !prelude.declares(name) && defined_by.get(name) == Some(&1)
    };
    found
        .into_iter()
        .map(|(target, imported)| {
            let items = interface(db, imported)
                .items
                .iter()
                .filter(|item| item.name().is_some_and(|n| added(&n.text)))
                .cloned()
                .collect();
            let declared = ast::SourceFile {
                items,
                script: Vec::new(),
                holes: Vec::new(),
            };
            let import = ResolvedImport {
                range: TextRange::empty(0),
                display_path: target.display().to_string(),
                names: Vec::new(),
                outcome: ImportOutcome::Loaded(Arc::new(declared)),
            };
            (import, Some(imported))
        })
        .collect()
}
