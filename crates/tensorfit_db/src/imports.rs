//! Resolving `import "path"` to parsed files, with cycle detection.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use tensorfit_semantics::{ImportOutcome, ResolvedImport};
use tensorfit_syntax::ast;

use crate::queries::parse;
use crate::search_paths::SearchPaths;
use crate::{Db, SourceFile};

/// Where imported files come from: the file system for the command line,
/// open buffers first for the language server.
pub trait FileLoader: Send + Sync {
    fn load(&self, path: &Path) -> std::io::Result<String>;
}

/// Resolves no import: for a text checked on its own (tests, buffers with
/// no file behind them).
pub struct NoImports;

impl FileLoader for NoImports {
    fn load(&self, path: &Path) -> std::io::Result<String> {
        Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            path.display().to_string(),
        ))
    }
}

/// Reads imported files from disk: regular files of at most
/// [`MAX_SOURCE_BYTES`], inside the workspace's roots once any are known.
///
/// Whatever a program imports, tensorfit never reads a device (`/dev/zero`
/// would never end, `/dev/stdin` is the server's own JSON-RPC stream), a
/// FIFO (it would block), or a file outside the workspace (its text could
/// reach completion and messages).
#[derive(Default)]
pub struct FsLoader {
    roots: RwLock<Vec<PathBuf>>,
    /// Directories read besides the workspace: the Python search paths
    /// (installed packages), which imports may follow into; canonical
    /// once first asked (asking them may start `python3`).
    libraries: RwLock<Libraries>,
}

#[derive(Default)]
struct Libraries {
    search_paths: SearchPaths,
    canonical: Arc<std::sync::OnceLock<Vec<PathBuf>>>,
}

/// The largest source file tensorfit reads: far more than any model.
pub const MAX_SOURCE_BYTES: u64 = 8 << 20;

impl FsLoader {
    /// A loader that reads only inside `roots` (directories).
    pub fn within(roots: impl IntoIterator<Item = PathBuf>) -> FsLoader {
        let loader = FsLoader::default();
        loader.set_roots(roots);
        loader
    }

    /// Sets the workspace's roots (the server learns them at `initialize`).
    pub fn set_roots(&self, roots: impl IntoIterator<Item = PathBuf>) {
        let roots = roots
            .into_iter()
            .filter_map(|root| std::fs::canonicalize(root).ok())
            .collect();
        *self.roots.write().unwrap_or_else(|e| e.into_inner()) = roots;
    }

    /// Sets the directories of installed packages that may be read too
    /// (the Python search paths).
    pub fn set_libraries(&self, search_paths: impl Into<SearchPaths>) {
        *self.libraries.write().unwrap_or_else(|e| e.into_inner()) = Libraries {
            search_paths: search_paths.into(),
            canonical: Arc::default(),
        };
    }

    fn inside_roots(&self, canonical: &Path) -> bool {
        let roots = self.roots.read().unwrap_or_else(|e| e.into_inner());
        if roots.is_empty() || roots.iter().any(|root| canonical.starts_with(root)) {
            return true;
        }
        drop(roots);
        let (search_paths, libraries) = {
            let libraries = self.libraries.read().unwrap_or_else(|e| e.into_inner());
            (libraries.search_paths.clone(), libraries.canonical.clone())
        };
        let libraries = libraries.get_or_init(|| {
            search_paths
                .dirs()
                .iter()
                .filter_map(|dir| std::fs::canonicalize(dir).ok())
                .collect()
        });
        libraries.iter().any(|root| canonical.starts_with(root))
    }
}

impl FileLoader for FsLoader {
    fn load(&self, path: &Path) -> std::io::Result<String> {
        // Symlinks and `..` are resolved before the roots are asked.
        let canonical = std::fs::canonicalize(path)?;
        if !self.inside_roots(&canonical) {
            return Err(refused("it is outside the workspace"));
        }
        let bytes = read_source(&canonical)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

fn refused(why: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::PermissionDenied, why.to_owned())
}

/// The bytes of a source file: a regular file (never a device, FIFO or
/// socket) of at most [`MAX_SOURCE_BYTES`].
pub fn read_source(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let metadata = std::fs::metadata(path)?;
    if !metadata.is_file() {
        return Err(refused("it is not a regular file"));
    }
    let too_large = || refused(&format!("it is larger than {} MiB", MAX_SOURCE_BYTES >> 20));
    if metadata.len() > MAX_SOURCE_BYTES {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    // A file that grows while read is cut off at the limit all the same.
    std::fs::File::open(path)?
        .take(MAX_SOURCE_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_SOURCE_BYTES {
        return Err(too_large());
    }
    Ok(bytes)
}

/// The imports of `file`, each loaded (from an open buffer or the loader)
/// and parsed as a file of the database, or why it could not be; in text
/// offsets, for the editor features (the analysis takes
/// [`crate::items::imports`]).
#[salsa::tracked(returns(ref))]
pub fn resolved_imports(db: &dyn Db, file: SourceFile) -> Vec<ResolvedImport> {
    let whole = |db: &dyn Db, imported: SourceFile| parse(db, imported).file.clone();
    resolve_imports(db, file, &parse(db, file).file.items, &whole)
        .into_iter()
        .map(|(import, _)| import)
        .collect()
}

/// The file each import of `file` loaded, in the order of
/// [`resolved_imports`] (`None` where it was not loaded): for editor
/// features that go to another file.
#[salsa::tracked(returns(ref))]
pub fn import_sources(db: &dyn Db, file: SourceFile) -> Vec<Option<SourceFile>> {
    let whole = |db: &dyn Db, imported: SourceFile| parse(db, imported).file.clone();
    resolve_imports(db, file, &parse(db, file).file.items, &whole)
        .into_iter()
        .map(|(_, loaded)| loaded)
        .collect()
}

/// Resolves the imports among `items`, items of `file`: each with the file
/// it loaded, whose syntax `content` gives.
pub(crate) fn resolve_imports(
    db: &dyn Db,
    file: SourceFile,
    items: &[ast::Item],
    content: &dyn Fn(&dyn Db, SourceFile) -> Arc<ast::SourceFile>,
) -> Vec<(ResolvedImport, Option<SourceFile>)> {
    let file_path = file.path(db);
    let mut resolved = Vec::new();
    for item in items {
        let ast::Item::Import(import) = item else {
            continue;
        };
        let Some(path_text) = &import.path else {
            continue;
        };
        let target = resolve_relative(file_path, path_text);
        let (outcome, loaded) = match db.file_at(&target) {
            Err(reason) => (
                ImportOutcome::NotFound {
                    reason: format!("{} ({reason})", target.display()),
                },
                None,
            ),
            Ok(imported) => match cycle_back_to(db, file_path, &target) {
                Some(chain) => (ImportOutcome::Cycle { chain }, None),
                None => (ImportOutcome::Loaded(content(db, imported)), Some(imported)),
            },
        };
        resolved.push((
            ResolvedImport {
                range: import.path_range,
                display_path: path_text.clone(),
                names: import.names.clone(),
                outcome,
            },
            loaded,
        ));
    }
    resolved
}

/// If `start` imports (transitively) `origin`, the chain of file names
/// from `origin` through `start` back to `origin`.
pub(crate) fn cycle_back_to(db: &dyn Db, origin: &Path, start: &Path) -> Option<Vec<String>> {
    let origin = normalize(origin);
    let mut stack = vec![(normalize(start), vec![display(&origin), display(start)])];
    let mut visited = std::collections::HashSet::new();
    while let Some((path, chain)) = stack.pop() {
        if path == origin {
            return Some(chain);
        }
        if !visited.insert(path.clone()) {
            continue;
        }
        let Ok(file) = db.file_at(&path) else {
            continue;
        };
        for next in crate::items::imported_paths(db, file) {
            let next = normalize(&resolve_relative(&path, next));
            let mut next_chain = chain.clone();
            next_chain.push(display(&next));
            stack.push((next, next_chain));
        }
    }
    None
}

pub(crate) fn resolve_relative(importer: &Path, import: &str) -> PathBuf {
    let base = importer.parent().unwrap_or_else(|| Path::new(""));
    normalize(&base.join(import))
}

/// Removes `.` and `..` components lexically, so that one file has one key.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut result = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                // `..` cancels a name, but not another `..` (nor the root).
                let cancels = matches!(
                    result.components().next_back(),
                    Some(std::path::Component::Normal(_))
                );
                if cancels {
                    result.pop();
                } else if !result.has_root() {
                    result.push("..");
                }
            }
            other => result.push(other.as_os_str()),
        }
    }
    result
}

fn display(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_imports_keep_every_parent_step() {
        let cases = [
            ("a/b/main.tensor", "../lib.tensor", "a/lib.tensor"),
            ("main.tensor", "../../x/lib.tensor", "../../x/lib.tensor"),
            (
                "t/m/main.tensor",
                "../../../e/lib.tensor",
                "../e/lib.tensor",
            ),
            ("a/main.tensor", "./b/../c.tensor", "a/c.tensor"),
            ("/root/main.tensor", "../../lib.tensor", "/lib.tensor"),
        ];
        for (importer, import, expected) in cases {
            assert_eq!(
                resolve_relative(Path::new(importer), import),
                PathBuf::from(expected),
                "{import} from {importer}"
            );
        }
    }
}
