//! The incremental database (salsa): source files in, diagnostics and shape
//! findings out, recomputing only what an edit affects.
//!
//! The queries, from the text to the report:
//!
//! - [`queries::parse`]: the file's syntax tree (re-run on every edit; the
//!   tree-sitter tree itself is reparsed incrementally by [`host::Host`]);
//! - [`layout::Layout`] and [`queries::placed_file`]: every function lowered
//!   at offsets of its own, so that editing one moves no other;
//! - [`queries::interface`]: the file without function bodies, what a
//!   function's analysis may see of the others;
//! - [`queries::function_outcome`]: one function analysed, given the
//!   summaries of the functions it calls ([`queries::function_summary`]);
//!   a caller is re-solved only when a callee's summary changed;
//! - [`queries::file_report`]: everything put together in text offsets.
//!
//! [`host::Host`] owns the inputs and applies edits; readers use snapshots
//! (clones of the database), which a new edit cancels.

mod anchors;
mod host;
mod imports;
pub mod items;
mod layout;
pub mod queries;
mod relocate;
pub mod report;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tensorfit_semantics::ShapeOptions;
use tensorfit_solver::Interrupts;

pub use host::{Host, TextChange};
pub use imports::{resolved_imports, FileLoader, FsLoader, NoImports};
pub use layout::{ItemSpan, Layout};
pub use report::{file_diagnostics, file_report, findings, FileReport};

/// A tree-sitter tree, compared by identity: a new tree is a new input.
#[derive(Clone)]
pub struct SyntaxTree(pub Arc<tree_sitter::Tree>);

impl PartialEq for SyntaxTree {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for SyntaxTree {}

impl std::fmt::Debug for SyntaxTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SyntaxTree")
    }
}

/// One file: an open buffer, the file checked from the command line, or a
/// file loaded because another imports it.
#[salsa::input(debug)]
pub struct SourceFile {
    #[returns(ref)]
    pub path: PathBuf,
    #[returns(ref)]
    pub text: Arc<str>,
    #[returns(ref)]
    pub tree: SyntaxTree,
}

/// What every analysis is asked for.
#[salsa::input(debug)]
pub struct Settings {
    #[returns(copy)]
    pub options: ShapeOptions,
}

#[salsa::db]
pub trait Db: salsa::Database {
    fn settings(&self) -> Settings;
    /// The file at `path`, loaded on first use; why not, if it cannot be.
    fn file_at(&self, path: &Path) -> Result<SourceFile, String>;
    /// Called once per function analysis actually run (not cached).
    fn count_function_check(&self);
    /// The Z3 queries of this database and its snapshots, which an edit
    /// interrupts (see [`host::Host`]).
    fn interrupts(&self) -> &Arc<Interrupts>;
}

#[salsa::db]
#[derive(Clone)]
pub struct Database {
    storage: salsa::Storage<Self>,
    /// Always set once [`Database::new`] returns.
    settings: Option<Settings>,
    files: Arc<Mutex<HashMap<PathBuf, SourceFile>>>,
    loader: Arc<dyn FileLoader>,
    function_checks: Arc<AtomicU64>,
    interrupts: Arc<Interrupts>,
}

impl Database {
    pub fn new(loader: Arc<dyn FileLoader>, options: ShapeOptions) -> Database {
        let storage = salsa::Storage::new(None);
        let mut db = Database {
            storage,
            // An input needs a database to be made in: set just below.
            settings: None,
            files: Arc::default(),
            loader,
            function_checks: Arc::default(),
            interrupts: Arc::default(),
        };
        db.settings = Some(Settings::new(&db, options));
        db
    }

    /// Function analyses run since the database was made (all snapshots).
    pub fn function_checks(&self) -> u64 {
        self.function_checks.load(Ordering::Relaxed)
    }

    /// The file's text as the loader (not an open buffer) has it.
    pub(crate) fn load(&self, path: &Path) -> std::io::Result<String> {
        self.loader.load(path)
    }

    pub(crate) fn known_file(&self, path: &Path) -> Option<SourceFile> {
        self.files.lock().ok()?.get(path).copied()
    }

    pub(crate) fn add_file(&self, path: PathBuf, text: Arc<str>) -> SourceFile {
        let tree = SyntaxTree(Arc::new(tensorfit_syntax::parse_tree(&text, None)));
        let file = SourceFile::new(self, path.clone(), text, tree);
        if let Ok(mut files) = self.files.lock() {
            files.insert(path, file);
        }
        file
    }
}

#[salsa::db]
impl salsa::Database for Database {}

#[salsa::db]
impl Db for Database {
    fn settings(&self) -> Settings {
        self.settings.expect("set by Database::new")
    }

    fn file_at(&self, path: &Path) -> Result<SourceFile, String> {
        let path = imports::normalize(path);
        if let Some(file) = self.known_file(&path) {
            return Ok(file);
        }
        let text = self.loader.load(&path).map_err(|e| e.to_string())?;
        Ok(self.add_file(path, Arc::from(text)))
    }

    fn count_function_check(&self) {
        self.function_checks.fetch_add(1, Ordering::Relaxed);
    }

    fn interrupts(&self) -> &Arc<Interrupts> {
        &self.interrupts
    }
}
