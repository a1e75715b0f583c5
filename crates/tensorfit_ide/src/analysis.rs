//! Checking one file.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use tensorfit_base::{Code, Diagnostic, LineIndex, TextRange};
use tensorfit_semantics::{Environment, Limits, Prelude, ShapeFindings, ShapeOptions};

use tensorfit_db::{FileLoader, FileReport, Host};

/// Everything tensorfit finds in one file. Cheap to clone: the parts are
/// shared with the database, which keeps them until the text changes.
#[derive(Clone, Debug)]
pub struct FileAnalysis {
    pub line_index: Arc<LineIndex>,
    /// The text that was analysed (invalid UTF-8 replaced).
    pub text: Arc<str>,
    /// The syntax tree of `text`, in its offsets: see [`Self::tree`].
    tree: Arc<OnceLock<Arc<tensorfit_syntax::ast::SourceFile>>>,
    /// The prelude the file was analysed with.
    pub prelude: Arc<Prelude>,
    /// The file is Python (PyTorch code), not the Tensor language: fixes
    /// that write Tensor syntax are not offered.
    pub python: bool,
    report: Arc<FileReport>,
}

impl FileAnalysis {
    /// The syntax tree of `text`, in its offsets. The editor's analyses
    /// have it from the database; a command-line check, whose report does
    /// not need it, lowers the text again only if asked (lowering a whole
    /// Python file a second time was a twelfth of its check).
    pub fn tree(&self) -> &Arc<tensorfit_syntax::ast::SourceFile> {
        self.tree.get_or_init(|| {
            let language = if self.python {
                tensorfit_base::Language::Python
            } else {
                tensorfit_base::Language::Tensor
            };
            let tree = tensorfit_db::front_end::parse_tree(language, &self.text, None);
            tensorfit_db::front_end::lower_tree(language, &tree, &self.text).file
        })
    }

    /// The language name a Markdown fence gives the file's code (a
    /// hover's), so that an editor highlights it as the file's own.
    pub fn code_fence(&self) -> &'static str {
        match self.python {
            true => "python",
            false => "tensor",
        }
    }

    /// Sorted by position.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.report.diagnostics
    }

    /// Shapes of bindings and expressions, holes, decided conditions and
    /// migrations.
    pub fn shapes(&self) -> &ShapeFindings {
        &self.report.findings
    }

    /// The analysis with each hole left in the file reported as an
    /// `unsolved-hole` warning (`check --deny-holes`; see
    /// [`crate::left_hole_warnings`]).
    pub fn with_left_holes_reported(mut self) -> FileAnalysis {
        let warnings = crate::left_hole_warnings(&self);
        if !warnings.is_empty() {
            let report = Arc::make_mut(&mut self.report);
            report.diagnostics.extend(warnings);
            // Stable: what was reported at a place keeps its order.
            report
                .diagnostics
                .sort_by_key(|d| (d.range.start, d.range.end));
        }
        self
    }
}

/// Settings of an analysis.
#[derive(Clone, Debug)]
pub struct AnalysisOptions {
    /// The solver's time limit per query.
    pub timeout_ms: u32,
    /// Solve holes, migrations and decided conditions too.
    pub questions: bool,
    /// Where absolute Python imports are looked for besides the file's
    /// project (see `tensorfit_db::python_modules`); the loader must be
    /// allowed to read them.
    pub python_paths: tensorfit_db::search_paths::SearchPaths,
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        AnalysisOptions {
            timeout_ms: 2000,
            questions: true,
            python_paths: Default::default(),
        }
    }
}

/// The file's bytes were not UTF-8: where the first bad byte was.
#[derive(Clone, Copy, Debug)]
struct SourceDecodeError {
    pub valid_up_to: usize,
}

/// Checks one file. `path` locates relative imports; `bytes` is its content.
pub fn analyze_file(
    path: &Path,
    bytes: &[u8],
    loader: Arc<dyn FileLoader>,
    options: AnalysisOptions,
) -> FileAnalysis {
    let (text, decode_error) = match std::str::from_utf8(bytes) {
        Ok(text) => (text.to_owned(), None),
        Err(error) => (
            String::from_utf8_lossy(bytes).into_owned(),
            Some(SourceDecodeError {
                valid_up_to: error.valid_up_to(),
            }),
        ),
    };
    let mut diagnostics = Vec::new();
    // Python's own reader refuses such a file: that is the Python tools'
    // to say (PYTHON.md §6); tensorfit reads what it can, silently.
    let python = tensorfit_base::Language::of_path(path).is_python();
    if let Some(error) = decode_error.filter(|_| !python) {
        // The lossy text has the same prefix, so the offset is valid in it.
        diagnostics.push(Diagnostic::new(
            Code::InvalidUtf8,
            TextRange::new(error.valid_up_to, error.valid_up_to + '\u{FFFD}'.len_utf8()),
            "the file is not valid UTF-8 here; invalid bytes were read as U+FFFD",
        ));
    }
    let shape_options = ShapeOptions {
        limits: Limits {
            timeout_ms: options.timeout_ms,
        },
        questions: options.questions,
        language: tensorfit_semantics::Language::Tensor,
    };
    let mut host = Host::new(loader, shape_options);
    host.set_python_paths(options.python_paths);
    host.prefetch_imports();
    let file = host.set_text(path, &text);
    let mut analysis = analysis_without_tree(host.db(), file);
    if !diagnostics.is_empty() {
        let report = Arc::make_mut(&mut analysis.report);
        diagnostics.extend(report.diagnostics.iter().cloned());
        diagnostics.sort_by_key(|d| (d.range.start, d.range.end));
        report.diagnostics = diagnostics;
    }
    drop_elsewhere(host);
    analysis
}

/// Drops a checked file's database on a thread of its own: freeing every
/// query's result was about 4 % of checking torchvision's `resnet.py` (perf), which the
/// report need not wait for (nor the process, which may end before).
/// One file's database waits at most, so that checking many files holds
/// at most two.
fn drop_elsewhere(host: Host) {
    use std::sync::mpsc::{sync_channel, SyncSender};
    use std::sync::{Mutex, OnceLock};
    static DROPPER: OnceLock<Option<Mutex<SyncSender<Host>>>> = OnceLock::new();
    let dropper = DROPPER.get_or_init(|| {
        let (send, receive) = sync_channel::<Host>(1);
        std::thread::Builder::new()
            .name("tensorfit-drop".to_owned())
            .spawn(move || receive.into_iter().for_each(drop))
            .ok()
            .map(|_| Mutex::new(send))
    });
    let send = dropper.as_ref().and_then(|send| send.lock().ok());
    match send {
        Some(send) => {
            if let Err(unsent) = send.send(host) {
                drop(unsent.0);
            }
        }
        None => drop(host),
    }
}

/// The analysis of a file of the database (an open buffer), as the editor
/// features take it.
pub fn file_analysis(db: &tensorfit_db::Database, file: tensorfit_db::SourceFile) -> FileAnalysis {
    let analysis = analysis_without_tree(db, file);
    let _ = analysis
        .tree
        .set(tensorfit_db::queries::parse(db, file).file.clone());
    analysis
}

/// [`file_analysis`] with the tree left to [`FileAnalysis::tree`].
fn analysis_without_tree(
    db: &tensorfit_db::Database,
    file: tensorfit_db::SourceFile,
) -> FileAnalysis {
    FileAnalysis {
        line_index: tensorfit_db::queries::line_index(db, file),
        text: file.text(db).clone(),
        tree: Arc::default(),
        prelude: tensorfit_db::prelude(db),
        python: file.language(db).is_python(),
        report: tensorfit_db::file_report(db, file),
    }
}

/// The diagnostics of a file of the database and the line index to place
/// them: what is published after every edit, without the file's syntax
/// tree (which the diagnostics do not need).
pub fn file_diagnostics(
    db: &tensorfit_db::Database,
    file: tensorfit_db::SourceFile,
) -> (Arc<LineIndex>, Vec<Diagnostic>) {
    (
        tensorfit_db::queries::line_index(db, file),
        tensorfit_db::file_diagnostics(db, file).to_vec(),
    )
}

/// What the syntax features (navigation, completion) read of a file of the
/// database: no shapes, so they answer without waiting for the solver.
pub struct FileSyntax<'db> {
    pub tree: &'db tensorfit_syntax::ast::SourceFile,
    /// Where the tree's first syntax error starts.
    pub first_error: Option<usize>,
    pub text: &'db str,
    pub imports: &'db [tensorfit_semantics::ResolvedImport],
    pub prelude: Arc<Prelude>,
    pub line_index: Arc<LineIndex>,
}

impl FileSyntax<'_> {
    /// What the file sees besides its own items.
    pub fn environment(&self) -> Environment<'_> {
        Environment::new(&self.prelude, self.imports)
    }
}

pub fn file_syntax(db: &tensorfit_db::Database, file: tensorfit_db::SourceFile) -> FileSyntax<'_> {
    let parse = tensorfit_db::queries::parse(db, file);
    FileSyntax {
        tree: &parse.file,
        first_error: parse.first_syntax_error(),
        text: file.text(db),
        imports: tensorfit_db::resolved_imports(db, file),
        prelude: tensorfit_db::prelude(db),
        line_index: tensorfit_db::queries::line_index(db, file),
    }
}
