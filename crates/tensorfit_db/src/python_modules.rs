//! Where a Python import's name is defined (PYTHON.md §1): in the
//! importer's own project (a relative module, or an absolute one looked for
//! in the importer's directory and a few above it), else below a search
//! path ([`crate::PythonPaths`], by default the site-packages of the
//! `python3` on PATH: [`crate::search_paths`]). An installed library's
//! imports of other libraries are not followed.
//!
//! A name is followed through the files that re-export it, as Python binds
//! it: `from torchvision.models import resnet50` finds
//! `torchvision/models/__init__.py`, whose `from .resnet import *` leads to
//! `resnet.py`, which defines it. The importer then imports that file. A
//! module tensorfit models itself (`torch`, `math`, …) is never read, and
//! anything not found stays unknown.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use crate::imports::{normalize, resolve_relative};
use tensorfit_python::{ClassFunctions, ModuleContext};

use crate::items::plain_module_context;
use crate::search_paths::library_package;
use crate::{Db, SourceFile};

/// How many files a name is followed through (re-exports of re-exports):
/// real packages need two or three.
const MAX_RE_EXPORTS: usize = 6;

/// The file that defines `name`, imported from `module` by `importer`.
pub fn defining_file(
    db: &dyn Db,
    importer: SourceFile,
    module: &str,
    name: &str,
) -> Option<SourceFile> {
    defining_file_where(db, importer, module, name, &|context| context.defines(name))
}

/// The class functions (see `tensorfit_python::class_functions`) of the
/// class `name`, imported from `module` by `importer`, with the files that
/// define them: its own and its bases' in its file, then those of the
/// bases that file imports, and so on for [`MAX_RE_EXPORTS`] files.
pub fn class_functions_of(
    db: &dyn Db,
    importer: SourceFile,
    module: &str,
    name: &str,
) -> Option<(Vec<SourceFile>, ClassFunctions)> {
    inherited_class_functions(db, importer, module, name, MAX_RE_EXPORTS)
}

fn inherited_class_functions(
    db: &dyn Db,
    importer: SourceFile,
    module: &str,
    name: &str,
    depth: usize,
) -> Option<(Vec<SourceFile>, ClassFunctions)> {
    let declares = |context: &ModuleContext| {
        context.own_class_functions.contains_key(name) || context.class_bases.contains_key(name)
    };
    let file = defining_file_where(db, importer, module, name, &declares)?;
    // The file's own context resolves the bases it defines.
    let context = plain_module_context(db, file).as_deref()?;
    let mut functions = context.class_functions(name);
    let mut files = vec![file];
    if let Some(depth) = depth.checked_sub(1) {
        for base in imported_bases(context, name) {
            // `from .api import WeightsEnum` (under its own name).
            let Some((base_module, original)) =
                context.import_of(&base).and_then(|p| p.rsplit_once('.'))
            else {
                continue;
            };
            if original != base {
                continue;
            }
            if let Some((more_files, more)) =
                inherited_class_functions(db, file, base_module, &base, depth)
            {
                for (method, function) in more {
                    functions.entry(method).or_insert(function);
                }
                files.extend(more_files);
            }
        }
    }
    (!functions.is_empty()).then_some((files, functions))
}

/// The bases of the class `name` that its file imports, in order, through
/// the bases the file defines.
fn imported_bases(context: &ModuleContext, name: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![name.to_owned()];
    let mut seen = HashSet::new();
    while let Some(class) = pending.pop() {
        if !seen.insert(class.clone()) {
            continue;
        }
        for base in context.class_bases.get(&class).into_iter().flatten().rev() {
            match context.import_of(base) {
                Some(_) => found.push(base.clone()),
                None => pending.push(base.clone()),
            }
        }
    }
    found
}

/// The file whose context `defines` says defines `name`, imported from
/// `module` by `importer`, following re-exports.
fn defining_file_where(
    db: &dyn Db,
    importer: SourceFile,
    module: &str,
    name: &str,
    defines: &dyn Fn(&ModuleContext) -> bool,
) -> Option<SourceFile> {
    let mut visited = HashSet::new();
    let found = locate_module(db, importer, module)?;
    defined_in(db, found, name, defines, MAX_RE_EXPORTS, &mut visited)
}

/// `file` if it defines `name`, or the file it re-exports `name` from.
fn defined_in(
    db: &dyn Db,
    file: SourceFile,
    name: &str,
    defines: &dyn Fn(&ModuleContext) -> bool,
    depth: usize,
    visited: &mut HashSet<SourceFile>,
) -> Option<SourceFile> {
    if !visited.insert(file) {
        return None;
    }
    let context = plain_module_context(db, file).as_deref()?;
    if defines(context) {
        return Some(file);
    }
    let depth = depth.checked_sub(1)?;
    // `from .resnet import resnet50` (under its own name).
    if let Some((module, original)) = context.import_of(name).and_then(|p| p.rsplit_once('.')) {
        if original == name && !module.trim_start_matches('.').is_empty() {
            return locate_module(db, file, module)
                .and_then(|next| defined_in(db, next, name, defines, depth, visited));
        }
        return None;
    }
    // `from .resnet import *`.
    context.star_imports.iter().find_map(|module| {
        let next = locate_module(db, file, module)?;
        defined_in(db, next, name, defines, depth, visited)
    })
}

/// The Python file `module` is for `importer`: in its project first, then
/// below each search path.
fn locate_module(db: &dyn Db, importer: SourceFile, module: &str) -> Option<SourceFile> {
    let python_file = |path: PathBuf| {
        let found = db.file_at(&path).ok()?;
        (found != importer && found.language(db).is_python()).then_some(found)
    };
    let importer_path = importer.path(db);
    let search_paths = db.python_paths().dirs(db);
    // An installed library's imports of other libraries are not followed
    // (torchvision's `transforms.functional` imports PIL, which imports
    // a dozen files of its own): what a library calls in another one is
    // unknown, as anything not modelled, and reading them made a check
    // of a torchvision model three times slower for the same findings.
    if let Some(own) = library_package(importer_path) {
        let absolute = !module.starts_with('.');
        if absolute && module.split('.').next() != Some(own) {
            return None;
        }
    }
    tensorfit_python::module_candidates(module)
        .into_iter()
        .find_map(|candidate| python_file(resolve_relative(importer_path, &candidate)))
        .or_else(|| {
            // None for a modelled or relative module: `python3` is not asked.
            let candidates = tensorfit_python::package_candidates(module);
            if candidates.is_empty() {
                return None;
            }
            search_paths.dirs().iter().find_map(|dir| {
                candidates
                    .iter()
                    .find_map(|candidate| python_file(dir.join(candidate)))
            })
        })
}

/// `to` as a path from the directory of `from` (both as the database
/// names files): what an import written in `from` resolves to `to`. An
/// absolute `to` stays absolute; `None` when `from` is below a `..` that
/// no path from it leads back up through.
pub fn path_from(from: &Path, to: &Path) -> Option<String> {
    let to = normalize(to);
    if to.has_root() {
        return Some(to.to_string_lossy().into_owned());
    }
    let base = normalize(from.parent().unwrap_or_else(|| Path::new("")));
    let base: Vec<Component<'_>> = base.components().collect();
    let target: Vec<Component<'_>> = to.components().collect();
    let common = base.iter().zip(&target).take_while(|(a, b)| a == b).count();
    if base[common..]
        .iter()
        .any(|c| !matches!(c, Component::Normal(_)))
    {
        return None;
    }
    let mut path = PathBuf::new();
    for _ in common..base.len() {
        path.push("..");
    }
    for component in &target[common..] {
        path.push(component.as_os_str());
    }
    Some(path.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::path_from;
    use std::path::Path;

    #[test]
    fn a_path_from_the_importers_directory() {
        let cases = [
            ("models/net.py", "models/blocks.py", Some("blocks.py")),
            ("models/net.py", "utils/io.py", Some("../utils/io.py")),
            ("net.py", "models/blocks.py", Some("models/blocks.py")),
            (
                "/w/net.py",
                "/usr/lib/tv/resnet.py",
                Some("/usr/lib/tv/resnet.py"),
            ),
            ("../up/net.py", "x.py", None),
        ];
        for (from, to, expected) in cases {
            let found = path_from(Path::new(from), Path::new(to));
            assert_eq!(found.as_deref(), expected, "{from} → {to}");
        }
    }
}
