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
pub mod front_end;
mod host;
mod imports;
pub mod items;
mod layout;
mod prefetch;
pub mod python_modules;
pub mod queries;
mod relocate;
pub mod report;
pub mod search_paths;
pub mod top_statements;
mod transitive_imports;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tensorfit_base::Language;
use tensorfit_semantics::{Prelude, ShapeOptions};
use tensorfit_solver::Interrupts;

pub use host::{byte_offset, edit_rope, position_in, DiskChange, Host, PositionCursor, TextChange};
pub use imports::{
    import_sources, read_source, resolved_imports, FileLoader, FsLoader, NoImports,
    MAX_SOURCE_BYTES,
};
pub use layout::{ItemSpan, Layout};
pub use report::{file_diagnostics, file_limits, file_report, files_read, findings, FileReport};
pub use ropey::Rope;
pub use tensorfit_solver::{
    forget_known_answers, keep_answers as keep_known_answers, recalled_answers, z3_held_bytes,
};

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

impl SourceFile {
    /// The file's language, from its path.
    pub fn language(self, db: &dyn Db) -> tensorfit_base::Language {
        Language::of_path(self.path(db))
    }

    /// The settings' options for this file's analyses: operations follow
    /// the rules of the file's language.
    pub fn shape_options(self, db: &dyn Db) -> ShapeOptions {
        ShapeOptions {
            language: self.language(db),
            ..db.settings().options(db)
        }
    }
}

/// The prelude every file sees. An input, so that a change of prelude
/// re-runs what reads it; the built-in one unless the host is given another
/// ([`Host::set_prelude`]).
#[salsa::input(debug)]
pub struct PreludeInput {
    #[returns(clone)]
    pub prelude: Arc<Prelude>,
}

/// Which files exist, as a revision number: `import`s that found or missed
/// a file depend on it, and a file created or deleted on disk bumps it
/// ([`Host::disk_changed`]), so that they are resolved again. The text
/// of a file that exists is an input of its own ([`SourceFile`]).
#[salsa::input(debug)]
pub struct FileSystem {
    #[returns(copy)]
    pub revision: u64,
}

/// The directories absolute Python imports are also looked for in, after
/// the importer's own project: an installed package's site-packages
/// (`from torchvision.models import resnet50`; see [`python_modules`]).
#[salsa::input(debug)]
pub struct PythonPaths {
    #[returns(ref)]
    pub dirs: search_paths::SearchPaths,
}

/// What every analysis is asked for.
#[salsa::input(debug)]
pub struct Settings {
    #[returns(copy)]
    pub options: ShapeOptions,
    /// Diagnostics and callers' summaries come from analyses that work out
    /// checks alone ([`tensorfit_semantics::Depth::Checks`]), and the shapes
    /// shown from a second analysis made when they are asked for: the
    /// language server publishes diagnostics sooner after an edit. Off,
    /// each function is analysed once, for everything (the command line).
    #[returns(copy)]
    pub diagnostics_first: bool,
}

#[salsa::db]
pub trait Db: salsa::Database {
    fn settings(&self) -> Settings;
    fn prelude_input(&self) -> PreludeInput;
    fn file_system(&self) -> FileSystem;
    fn python_paths(&self) -> PythonPaths;
    /// The file at `path`, loaded on first use; why not, if it cannot be.
    fn file_at(&self, path: &Path) -> Result<SourceFile, String>;
    /// Called once per function analysis actually run (not cached).
    fn count_function_check(&self);
    /// Called once per analysis of a group of script statements actually
    /// run.
    fn count_script_check(&self);
    /// Called once per name resolution of a piece (or of the script) that
    /// the name checks actually run.
    fn count_name_resolution(&self);
    /// The Z3 queries of this database and its snapshots, which an edit
    /// interrupts (see [`host::Host`]).
    fn interrupts(&self) -> &Arc<Interrupts>;
}

/// The prelude the database holds, read as a dependency of the caller.
pub fn prelude(db: &dyn Db) -> Arc<Prelude> {
    db.prelude_input().prelude(db)
}

/// A file's input and whether the file exists now.
#[derive(Clone, Copy)]
struct StoredFile {
    file: SourceFile,
    present: bool,
}

#[salsa::db]
#[derive(Clone)]
pub struct Database {
    storage: salsa::Storage<Self>,
    /// Always set once [`Database::new`] returns.
    settings: Option<Settings>,
    /// Always set once [`Database::new`] returns.
    prelude: Option<PreludeInput>,
    /// Always set once [`Database::new`] returns.
    file_system: Option<FileSystem>,
    /// Always set once [`Database::new`] returns.
    python_paths: Option<PythonPaths>,
    /// The input of every file the database has seen, by path. A path keeps
    /// its input for the database's life, deleted or not: salsa never frees
    /// an input, so a new one at each re-creation would keep the old one's
    /// results forever (an editing session's memory would grow with every
    /// file deleted and created again).
    files: Arc<Mutex<HashMap<PathBuf, StoredFile>>>,
    loader: Arc<dyn FileLoader>,
    function_checks: Arc<AtomicU64>,
    script_checks: Arc<AtomicU64>,
    name_resolutions: Arc<AtomicU64>,
    interrupts: Arc<Interrupts>,
    /// The worker that parses imported files ahead, where turned on
    /// ([`Database::prefetch_imports`]).
    prefetch: Option<Arc<prefetch::Prefetch>>,
}

impl Database {
    pub fn new(loader: Arc<dyn FileLoader>, options: ShapeOptions) -> Database {
        let storage = salsa::Storage::new(None);
        let mut db = Database {
            storage,
            // An input needs a database to be made in: set just below.
            settings: None,
            prelude: None,
            file_system: None,
            python_paths: None,
            files: Arc::default(),
            loader,
            function_checks: Arc::default(),
            script_checks: Arc::default(),
            name_resolutions: Arc::default(),
            interrupts: Arc::default(),
            prefetch: None,
        };
        db.settings = Some(Settings::new(&db, options, false));
        db.prelude = Some(PreludeInput::new(&db, Prelude::builtin_shared().clone()));
        db.file_system = Some(FileSystem::new(&db, 0));
        db.python_paths = Some(PythonPaths::new(&db, search_paths::SearchPaths::default()));
        db
    }

    /// From now on, the files a Python file added to the database imports
    /// from its own package are parsed ahead on another thread (see
    /// `prefetch.rs`): for a one-off check, which reads them one by one.
    pub fn prefetch_imports(&mut self) {
        self.prefetch = prefetch::Prefetch::start(self.loader.clone()).map(Arc::new);
    }

    /// Asks the worker for the files `path`'s relative imports may be.
    pub(crate) fn follow_imports(&self, path: &Path, tree: &tree_sitter::Tree, text: &str) {
        if let Some(prefetch) = &self.prefetch {
            if Language::of_path(path).is_python() {
                prefetch.follow(path, tensorfit_python::relative_imports(tree, text));
            }
        }
    }

    /// Function analyses run since the database was made (all snapshots).
    pub fn function_checks(&self) -> u64 {
        self.function_checks.load(Ordering::Relaxed)
    }

    /// Analyses of groups of script statements run since the database was
    /// made (all snapshots).
    pub fn script_checks(&self) -> u64 {
        self.script_checks.load(Ordering::Relaxed)
    }

    /// Name resolutions run by the name checks since the database was made
    /// (all snapshots).
    pub fn name_resolutions(&self) -> u64 {
        self.name_resolutions.load(Ordering::Relaxed)
    }

    /// The file's text as the loader (not an open buffer) has it.
    pub(crate) fn load(&self, path: &Path) -> std::io::Result<String> {
        self.loader.load(path)
    }

    /// The input of a file that exists (as far as the database knows).
    pub(crate) fn known_file(&self, path: &Path) -> Option<SourceFile> {
        let files = self.files.lock().ok()?;
        files.get(path).filter(|f| f.present).map(|f| f.file)
    }

    /// The input the database keeps for `path`, whether the file exists or
    /// was deleted: the one to give a file that comes back.
    pub(crate) fn stored_file(&self, path: &Path) -> Option<SourceFile> {
        self.files.lock().ok()?.get(path).map(|f| f.file)
    }

    /// Marks the file at `path` as existing or not; an import of a file
    /// that does not exist asks the loader again.
    pub(crate) fn set_present(&self, path: &Path, present: bool) {
        if let Ok(mut files) = self.files.lock() {
            if let Some(stored) = files.get_mut(path) {
                stored.present = present;
            }
        }
    }

    /// A new input for a file first seen (or, rarely, for a deleted file
    /// that an import finds again before the watcher says it was created:
    /// a query cannot set an input, so it gets a new one).
    pub(crate) fn add_file(&self, path: PathBuf, text: Arc<str>) -> SourceFile {
        let language = Language::of_path(&path);
        let tree = front_end::parse_tree(language, &text, None);
        self.add_parsed_file(path, text, tree)
    }

    /// [`Self::add_file`] with the text's tree already parsed (one parse
    /// per version: an opened document's text was parsed for its editor).
    pub(crate) fn add_parsed_file(
        &self,
        path: PathBuf,
        text: Arc<str>,
        tree: tree_sitter::Tree,
    ) -> SourceFile {
        let tree = SyntaxTree(Arc::new(tree));
        let file = SourceFile::new(self, path.clone(), text, tree);
        if let Ok(mut files) = self.files.lock() {
            files.insert(
                path,
                StoredFile {
                    file,
                    present: true,
                },
            );
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

    fn prelude_input(&self) -> PreludeInput {
        self.prelude.expect("set by Database::new")
    }

    fn file_system(&self) -> FileSystem {
        self.file_system.expect("set by Database::new")
    }

    fn python_paths(&self) -> PythonPaths {
        self.python_paths.expect("set by Database::new")
    }

    fn file_at(&self, path: &Path) -> Result<SourceFile, String> {
        // Whether the file is found depends on which files exist.
        self.file_system().revision(self);
        let path = imports::normalize(path);
        if let Some(file) = self.known_file(&path) {
            return Ok(file);
        }
        let text = self.loader.load(&path).map_err(|e| e.to_string())?;
        let ahead = self.prefetch.as_ref().and_then(|p| p.take(&path, &text));
        Ok(match ahead {
            Some(tree) => self.add_parsed_file(path, Arc::from(text), tree),
            None => self.add_file(path, Arc::from(text)),
        })
    }

    fn count_function_check(&self) {
        self.function_checks.fetch_add(1, Ordering::Relaxed);
    }

    fn count_script_check(&self) {
        self.script_checks.fetch_add(1, Ordering::Relaxed);
    }

    fn count_name_resolution(&self) {
        self.name_resolutions.fetch_add(1, Ordering::Relaxed);
    }

    fn interrupts(&self) -> &Arc<Interrupts> {
        &self.interrupts
    }
}
