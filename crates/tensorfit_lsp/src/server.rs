//! The LSP methods: edits go to the [`Host`] at once and in order; every
//! read runs on a snapshot of the database on an analysis thread.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::oneshot;

use tensorfit_base::Position;
use tensorfit_db::{Database, DiskChange, FsLoader, Host, Rope, SourceFile, TextChange};
use tensorfit_ide::{CarriedAnalysis, FileAnalysis};
use tensorfit_semantics::{Limits, ShapeOptions};
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

use crate::diagnostics_queue::DiagnosticsQueue;
use crate::host_writes::HostWrites;
use crate::locks::lock;
use crate::navigation::{self, SyntaxView};
use crate::open_text::OpenText;
use crate::settings::ServerSettings;
use crate::{analysis_pool, convert, log, memory};

pub struct Server {
    client: Client,
    state: Arc<Mutex<State>>,
    /// The documents waiting for their diagnostics.
    queue: Arc<DiagnosticsQueue>,
    /// Whether the task that works through the queue was started.
    diagnosing: AtomicBool,
    /// Apart from the state: an edit waits for the analyses it cancels
    /// to stop (salsa's setter) while holding the state, and hover and
    /// inlay hints must not wait with it.
    texts: Arc<Mutex<HashMap<Uri, OpenText>>>,
    /// Changes to the state, applied in order on a thread of their own.
    writes: HostWrites<State>,
}

pub(crate) struct State {
    host: Host,
    /// The host's file loader, to give it the workspace's roots.
    loader: Arc<FsLoader>,
    /// Open documents: where they are, and the version the host has.
    documents: HashMap<Uri, Document>,
    settings: ServerSettings,
    /// The client can be asked to watch `*.tensor` files for us.
    can_watch_files: bool,
}

/// An open document as the database sees it.
#[derive(Clone)]
pub(crate) struct Document {
    path: PathBuf,
    /// The version the host has (or, for a document too large, the one
    /// the editor last sent).
    version: i32,
    /// For a document over [`MAX_DOCUMENT_BYTES`], its size: the database
    /// is not given it.
    too_large: Option<usize>,
}

/// The largest document that is checked: the largest file a check reads
/// (`tensorfit_db::MAX_SOURCE_BYTES`). A larger one costs its text and
/// gets one diagnostic saying so.
pub(crate) const MAX_DOCUMENT_BYTES: usize = tensorfit_db::MAX_SOURCE_BYTES as usize;

/// The one diagnostic of a document over [`MAX_DOCUMENT_BYTES`].
fn too_large(size: usize) -> tensorfit_base::Diagnostic {
    let megabytes = |bytes: usize| bytes as f64 / 1e6;
    tensorfit_base::Diagnostic::new(
        tensorfit_base::Code::FileTooLarge,
        tensorfit_base::TextRange::empty(0),
        format!(
            "too large to check: {:.1} MB, limit {:.1} MB",
            megabytes(size),
            megabytes(MAX_DOCUMENT_BYTES)
        ),
    )
}

/// How long after a version's diagnostics, with no edit meanwhile, its
/// whole analysis is made for hover and inlay hints (see
/// [`Server::keep_analysis_later`]).
const KEEP_ANALYSIS_AFTER: Duration = Duration::from_millis(150);

impl State {
    /// Takes the settings `options` sets; a new solver time limit applies to
    /// every check from now on (so everything is checked again).
    fn update_settings(&mut self, options: &serde_json::Value) {
        self.settings.update(options);
        let options = shape_options(&self.settings);
        self.host.set_options(options);
        if let Some(dirs) = self.settings.python_paths.clone() {
            self.set_python_paths(dirs);
        }
    }

    /// Where imports are followed into besides the workspace (the loader
    /// may read there too).
    fn set_python_paths(&mut self, dirs: Vec<PathBuf>) {
        self.loader.set_libraries(dirs.clone());
        self.host.set_python_paths(dirs);
    }

    /// The database and the document's file, to read without the lock.
    fn snapshot(&self, uri: &Uri) -> Option<(Database, SourceFile)> {
        let document = self.documents.get(uri)?;
        if document.too_large.is_some() {
            return None;
        }
        let file = self.host.file(&document.path)?;
        Some((self.host.snapshot(), file))
    }
}

impl Server {
    pub fn new(client: Client) -> Server {
        let settings = ServerSettings::default();
        let loader = Arc::new(FsLoader::default());
        let mut host = Host::new(loader.clone(), shape_options(&settings));
        // Diagnostics are published after an edit without waiting for the
        // shapes hover shows, which are worked out after them.
        host.set_diagnostics_first(true);
        let state = Arc::new(Mutex::new(State {
            host,
            loader,
            documents: HashMap::new(),
            settings,
            can_watch_files: false,
        }));
        Server {
            client,
            writes: HostWrites::new(state.clone()),
            state,
            queue: Arc::default(),
            diagnosing: AtomicBool::new(false),
            texts: Arc::default(),
        }
    }

    fn texts(&self) -> MutexGuard<'_, HashMap<Uri, OpenText>> {
        lock(&self.texts)
    }

    /// The state, even if a panic poisoned the lock: the host's inputs are
    /// only changed by whole setter calls, so they stay consistent.
    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    fn snapshot(&self, uri: &Uri) -> Option<(Database, SourceFile)> {
        self.state().snapshot(uri)
    }

    /// Runs `read` on the document's analysis (its shapes and diagnostics),
    /// as [`Server::read`] does.
    async fn read_analysis<T: Send + 'static>(
        &self,
        uri: &Uri,
        read: impl FnOnce(&FileAnalysis) -> T + Send + 'static,
    ) -> Result<Option<T>> {
        self.read(uri, |db, file| {
            read(&tensorfit_ide::file_analysis(db, file))
        })
        .await
    }

    /// Runs `read` as [`Server::read_carried`] does, on the analysis of the
    /// current text, waiting for it (before the first analysis is kept,
    /// where the kept one has no answer, and once the current version's
    /// diagnostics are out: see [`OpenText::carried`]).
    async fn read_exact<T: Send + 'static>(
        &self,
        uri: &Uri,
        read: impl FnOnce(&CarriedAnalysis, &Rope) -> T + Send + 'static,
    ) -> Result<Option<T>> {
        self.read_analysis(uri, move |analysis| {
            // The analysis's own text, not the document's rope, which a
            // later edit may already have changed.
            let rope = Rope::from_str(&analysis.text);
            read(&CarriedAnalysis::exact(analysis.clone()), &rope)
        })
        .await
    }

    /// Runs `read` on the document's last finished analysis, carried over
    /// the edits since: it reads no database and waits for no check (a
    /// defect is an internal error, as in [`Server::read`]). `None` when
    /// the document has not been analysed yet.
    fn read_carried<T>(
        &self,
        uri: &Uri,
        read: impl FnOnce(&CarriedAnalysis, &Rope) -> T,
    ) -> Option<Result<T>> {
        let (carried, rope) = self.texts().get(uri)?.carried()?;
        // Here rather than on an analysis thread: it is a lookup in finished
        // results, and a thread busy checking the edit would only delay it.
        let read = std::panic::AssertUnwindSafe(move || read(&carried, &rope));
        Some(std::panic::catch_unwind(read).map_err(|_| Error::internal_error()))
    }

    /// Runs `read` on the document's syntax, as [`Server::read`] does: it
    /// does not wait for the shape check.
    async fn read_syntax<T: Send + 'static>(
        &self,
        uri: &Uri,
        read: impl FnOnce(&SyntaxView) -> T + Send + 'static,
    ) -> Result<Option<T>> {
        self.read(uri, |db, file| read(&SyntaxView::new(db, file)))
            .await
    }

    /// Runs `read` on a snapshot on an analysis thread. An edit meanwhile
    /// cancels it (`ContentModified`); a defect becomes an internal error,
    /// never a crash. `None` for a document that is not open.
    pub(crate) async fn read<T: Send + 'static>(
        &self,
        uri: &Uri,
        read: impl FnOnce(&Database, SourceFile) -> T + Send + 'static,
    ) -> Result<Option<T>> {
        self.writes.caught_up().await;
        let Some((db, file)) = self.snapshot(uri) else {
            return Ok(None);
        };
        match analysis_pool::run(move || read(&db, file)).await {
            Ok(value) => Ok(Some(value)),
            Err(payload) if payload.is::<salsa::Cancelled>() => {
                Err(Error::new(ErrorCode::ContentModified))
            }
            Err(_) => Err(Error::internal_error()),
        }
    }

    /// Queues documents for their diagnostics once the change `applied`
    /// is in the database (`mark` says which), and makes sure the task that
    /// works through the queue runs ([`Server::diagnose`]).
    ///
    /// There is no pause for typing to stop: a check starts at once, and
    /// the next edit cancels it (salsa unwinds at its next query, and
    /// running Z3 queries are interrupted), so a stale check costs little
    /// and a single edit is answered as soon as it is checked.
    fn schedule(
        &self,
        applied: oneshot::Receiver<()>,
        mark: impl FnOnce(&DiagnosticsQueue) + Send + 'static,
    ) {
        if !self.diagnosing.swap(true, Ordering::SeqCst) {
            tokio::spawn(Self::diagnose(
                self.client.clone(),
                self.state.clone(),
                self.texts.clone(),
                self.queue.clone(),
            ));
        }
        let queue = self.queue.clone();
        tokio::spawn(async move {
            let _ = applied.await;
            mark(&queue);
        });
    }

    /// Works through the queue, a document at a time: checks it, publishes
    /// its diagnostics if they are news (a new version, or other
    /// diagnostics than last published), then keeps the whole analysis of
    /// that version for hover and inlay hints to answer from.
    async fn diagnose(
        client: Client,
        state: Arc<Mutex<State>>,
        texts: Arc<Mutex<HashMap<Uri, OpenText>>>,
        queue: Arc<DiagnosticsQueue>,
    ) {
        let mut checked_since_rest = false;
        loop {
            let Some(uri) = queue.next() else {
                if std::mem::take(&mut checked_since_rest) {
                    tokio::spawn(memory::return_free_pages_after(memory::round_started()));
                }
                queue.wake.notified().await;
                continue;
            };
            let document = lock(&state).documents.get(&uri).cloned();
            let Some(document) = document else { continue };
            let version = document.version;
            let current = |state: &Mutex<State>| {
                lock(state).documents.get(&uri).map(|d| d.version) == Some(version)
            };
            if let Some(size) = document.too_large {
                // One diagnostic, and nothing else of it is read.
                let line_index = tensorfit_base::LineIndex::new("");
                let diagnostics = vec![convert::diagnostic(&uri, &line_index, &too_large(size))];
                if queue.is_news(&uri, version, &diagnostics) {
                    client
                        .publish_diagnostics(uri.clone(), diagnostics.clone(), Some(version))
                        .await;
                }
                queue.published(&uri, version, diagnostics, Vec::new());
                continue;
            }
            let snapshot = lock(&state).snapshot(&uri);
            let Some((db, file)) = snapshot else { continue };
            checked_since_rest = true;
            let uri_for_task = uri.clone();
            // The snapshot is dropped before the answer comes back and the
            // lock is taken again: an edit waiting for snapshots must not
            // wait on us.
            let task = analysis_pool::run(move || {
                let (line_index, diagnostics) = tensorfit_ide::file_diagnostics(&db, file);
                let diagnostics = diagnostics
                    .iter()
                    .map(|d| convert::diagnostic(&uri_for_task, &line_index, d))
                    .collect::<Vec<_>>();
                let limits = tensorfit_db::file_limits(&db, file);
                let reads = tensorfit_db::files_read(&db, file);
                (diagnostics, limits, reads)
            });
            let (diagnostics, limits, reads) = match task.await {
                Ok(checked) => checked,
                Err(payload) if payload.is::<salsa::Cancelled>() => {
                    // An edit (of any document) cancelled it: the edited
                    // one is queued by its edit, this one again here.
                    if current(&state) {
                        queue.retry(&uri);
                    }
                    continue;
                }
                Err(_) => continue,
            };
            if !current(&state) {
                continue; // a newer version is queued
            }
            let new_version = queue.is_new_version(&uri, version);
            if new_version {
                for limit in &limits {
                    let message = log::limit_reached(uri.as_str(), version, limit);
                    client.log_message(MessageType::WARNING, message).await;
                }
            }
            if queue.is_news(&uri, version, &diagnostics) {
                client
                    .publish_diagnostics(uri.clone(), diagnostics.clone(), Some(version))
                    .await;
            }
            queue.published(&uri, version, diagnostics, reads);
            // Until a first analysis is kept, hover has nothing to answer
            // from without waiting: that one is made at once, after the
            // diagnostics (which it would delay: U-Net's by 60 ms), not
            // after a pause. A version whose analysis is kept already (its
            // diagnostics were checked again because a file it reads
            // changed) is analysed again too: its shapes may have changed.
            let first = lock(&texts)
                .get(&uri)
                .is_some_and(|t| t.analysed_version().is_none());
            let after = if first {
                Duration::ZERO
            } else {
                KEEP_ANALYSIS_AFTER
            };
            let keep = Self::keep_analysis_later(&client, &state, &texts, uri, version, after);
            tokio::spawn(keep);
        }
    }

    /// Makes the whole analysis of `version` (shapes, holes, migrations)
    /// the one hover and inlay hints answer from, if the user has not
    /// edited the document again `after` (for a document analysed before,
    /// [`KEEP_ANALYSIS_AFTER`]) its
    /// diagnostics: while typing goes on, every key would cancel that work
    /// (and the edit would wait for it to stop), and the analysis kept
    /// before serves, carried over the keys.
    fn keep_analysis_later(
        client: &Client,
        state: &Arc<Mutex<State>>,
        texts: &Arc<Mutex<HashMap<Uri, OpenText>>>,
        uri: Uri,
        version: i32,
        after: Duration,
    ) -> impl std::future::Future<Output = ()> + Send + 'static {
        let (client, state, texts) = (client.clone(), state.clone(), texts.clone());
        async move {
            tokio::time::sleep(after).await;
            let snapshot = {
                let state = lock(&state);
                let current = state.documents.get(&uri).map(|d| d.version) == Some(version);
                current.then(|| state.snapshot(&uri)).flatten()
            };
            let Some((db, file)) = snapshot else { return };
            let task = analysis_pool::run(move || tensorfit_ide::file_analysis(&db, file));
            let Ok(analysis) = task.await else {
                return; // cancelled by an edit
            };
            let refresh_hints = lock(&texts)
                .get_mut(&uri)
                .is_some_and(|t| t.keep(version, analysis));
            if refresh_hints {
                let _ = client.inlay_hint_refresh().await;
            }
        }
    }

    pub(crate) fn function_checks(&self) -> u64 {
        self.state().host.db().function_checks()
    }

    pub(crate) fn settings(&self) -> ServerSettings {
        self.state().settings.clone()
    }
}

fn shape_options(settings: &ServerSettings) -> ShapeOptions {
    ShapeOptions {
        limits: Limits {
            timeout_ms: settings.timeout_ms,
        },
        questions: true,
        language: tensorfit_semantics::Language::Tensor,
    }
}

fn path_of(uri: &Uri) -> PathBuf {
    uri.to_file_path()
        .map(|p| p.into_owned())
        // Unsaved buffers (`untitled:`) get a path of their own.
        .unwrap_or_else(|| PathBuf::from(uri.as_str()))
}

/// Whether a request on `uri` is left to the document's own language
/// server: on a Python file tensorfit contributes shapes alone (diagnostics,
/// hover, inlay hints, code actions) beside Pylance or pyright, which
/// answer completion, navigation, symbols, highlighting and signatures.
fn left_to_python_server(uri: &Uri) -> bool {
    tensorfit_base::Language::of_path(&path_of(uri)).is_python()
}

impl LanguageServer for Server {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        // Imports are read only inside the workspace's folders.
        #[allow(deprecated)] // `root_uri`: older clients send only that.
        let roots: Vec<PathBuf> = params
            .workspace_folders
            .iter()
            .flatten()
            .map(|folder| &folder.uri)
            .chain(params.root_uri.as_ref())
            .filter_map(|uri| uri.to_file_path().map(|p| p.into_owned()))
            .collect();
        self.state().loader.set_roots(roots);
        if let Some(options) = params.initialization_options {
            self.state().update_settings(&options);
        }
        // Without a `pythonPaths` setting, the site-packages of the
        // `python3` on PATH: asked once, on an analysis thread (it waits
        // for a process) and without holding the state.
        if self.settings().python_paths.is_none() {
            let dirs = analysis_pool::run(tensorfit_db::search_paths::site_packages)
                .await
                .unwrap_or_default();
            let mut state = self.state();
            if state.settings.python_paths.is_none() {
                state.set_python_paths(dirs);
            }
        }
        self.state().can_watch_files = params
            .capabilities
            .workspace
            .and_then(|w| w.did_change_watched_files)
            .and_then(|w| w.dynamic_registration)
            .unwrap_or(false);
        Ok(InitializeResult {
            server_info: Some(ServerInfo {
                name: "tensorfit".to_owned(),
                version: Some(env!("CARGO_PKG_VERSION").to_owned()),
            }),
            capabilities: crate::capabilities::server_capabilities(),
            ..InitializeResult::default()
        })
    }

    /// Asks the client to tell us when `*.tensor` files change on disk, so
    /// that files imported but not open are read again.
    async fn initialized(&self, _: InitializedParams) {
        if !self.state().can_watch_files {
            return;
        }
        let options = DidChangeWatchedFilesRegistrationOptions {
            watchers: vec![FileSystemWatcher {
                glob_pattern: GlobPattern::String("**/*.tensor".to_owned()),
                kind: None,
            }],
        };
        let registration = Registration {
            id: "tensorfit-watched-files".to_owned(),
            method: "workspace/didChangeWatchedFiles".to_owned(),
            register_options: serde_json::to_value(options).ok(),
        };
        // A client that refuses leaves imported files as first read. Not
        // awaited here: a client that never answers (it closed its input)
        // must not hold this notification, and with it the session's end.
        let client = self.client.clone();
        tokio::spawn(async move {
            let _ = client.register_capability(vec![registration]).await;
        });
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        let applied = self.writes.queue(move |state| {
            for event in params.changes {
                let change = match event.typ {
                    FileChangeType::CREATED => DiskChange::Created,
                    FileChangeType::DELETED => DiskChange::Deleted,
                    _ => DiskChange::Changed,
                };
                state.host.disk_changed(&path_of(&event.uri), change);
            }
        });
        self.schedule(applied, DiagnosticsQueue::changed_on_disk);
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let document = params.text_document;
        let text = OpenText::new(document.version, &document.text);
        self.texts().insert(document.uri.clone(), text);
        let (uri, path) = (document.uri.clone(), path_of(&document.uri));
        let size = document.text.len();
        let applied = self.writes.queue(move |state| {
            let path = path_of(&document.uri);
            // A document too large is not given to the database at all.
            let too_large = (size > MAX_DOCUMENT_BYTES).then_some(size);
            if too_large.is_none() {
                state.host.set_text(&path, &document.text);
            }
            let version = document.version;
            let opened = Document {
                path,
                version,
                too_large,
            };
            state.documents.insert(document.uri, opened);
        });
        self.schedule(applied, move |queue| queue.opened(&uri, &path));
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        // Queued before any `.await`: edits reach the host in the order
        // they were sent.
        let uri = params.text_document.uri;
        let version = params.text_document.version;
        let changes: Vec<TextChange> = params
            .content_changes
            .into_iter()
            .map(|c| TextChange {
                range: c.range.map(|r| {
                    let at = |p: tower_lsp_server::ls_types::Position| Position {
                        line: p.line,
                        character: p.character,
                    };
                    (at(r.start), at(r.end))
                }),
                text: c.text,
            })
            .collect();
        // The text hover and inlay hints read, at once...
        let size = self.texts().get_mut(&uri).map(|text| {
            text.apply(version, &changes);
            text.len()
        });
        // ... and the database, once the analyses this edit cancels stop.
        // A document that grows past the limit leaves the database; one
        // that shrinks below it comes back with its whole text.
        let whole_text = match size {
            Some(size) if size <= MAX_DOCUMENT_BYTES => {
                let was_too_large = lock(&self.state)
                    .documents
                    .get(&uri)
                    .is_some_and(|d| d.too_large.is_some());
                was_too_large
                    .then(|| self.texts().get(&uri).map(OpenText::text))
                    .flatten()
            }
            _ => None,
        };
        let (queued_uri, path) = (uri.clone(), path_of(&uri));
        let applied = self.writes.queue(move |state| {
            let State {
                host, documents, ..
            } = state;
            let Some(document) = documents.get_mut(&uri) else {
                return; // not open: nothing to edit
            };
            match (size, whole_text) {
                (Some(size), _) if size > MAX_DOCUMENT_BYTES => {
                    if document.too_large.is_none() {
                        host.close(&document.path);
                    }
                    document.too_large = Some(size);
                }
                (_, Some(text)) => {
                    host.set_text(&document.path, &text);
                    document.too_large = None;
                }
                _ if document.too_large.is_some() => {}
                _ => {
                    host.apply_changes(&document.path, &changes);
                }
            }
            document.version = version;
        });
        self.schedule(applied, move |queue| queue.edited(&queued_uri, &path));
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        self.texts().remove(&uri);
        let closed = uri.clone();
        let applied = self.writes.queue(move |state| {
            if let Some(document) = state.documents.remove(&closed) {
                if document.too_large.is_none() {
                    state.host.close(&document.path);
                }
            }
        });
        let _ = applied.await;
        self.queue.closed(&uri);
        self.client.publish_diagnostics(uri, Vec::new(), None).await;
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        // Analyses made with the old settings are not answered from.
        for text in self.texts().values_mut() {
            text.forget_analysis();
        }
        let applied = self.writes.queue(move |state| {
            state.update_settings(&params.settings);
        });
        let state = self.state.clone();
        self.schedule(applied, move |queue| {
            queue.all(lock(&state).documents.keys())
        });
        // Hints are asked for again under the new settings (the client's
        // answer is not waited for, as in `initialized`).
        self.writes.caught_up().await;
        let client = self.client.clone();
        tokio::spawn(async move {
            let _ = client.inlay_hint_refresh().await;
        });
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let at = params.text_document_position_params;
        let uri = &at.text_document.uri;
        let position = at.position;
        // From the last finished analysis, whether it has an answer there
        // or not (a place it had nothing for, a keyword or a tensor of
        // which nothing is known, rarely gains one: waiting for the check
        // would make every such hover as slow as the check). Only on text
        // typed since has it nothing to say: the check of that text tells.
        let carried = self.read_carried(uri, move |carried, rope| {
            let hover = crate::features::hover(carried, rope, position);
            let typed_since = carried.typed_since(crate::convert::rope_offset(rope, position));
            (hover.is_some() || !typed_since).then_some(hover)
        });
        if let Some(answer) = carried {
            if let Some(hover) = answer? {
                return Ok(hover);
            }
        }
        let hover = self
            .read_exact(uri, move |carried, rope| {
                crate::features::hover(carried, rope, position)
            })
            .await?;
        Ok(hover.flatten())
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        if !self.settings().inlay_hints {
            return Ok(Some(Vec::new()));
        }
        let uri = &params.text_document.uri;
        let range = params.range;
        let carried = self.read_carried(uri, move |carried, rope| {
            crate::features::inlay_hints(carried, rope, range)
        });
        if let Some(hints) = carried {
            let hints = hints?;
            if let Some(text) = self.texts().get_mut(uri) {
                text.hints_answered();
            }
            return Ok(Some(hints));
        }
        self.read_exact(uri, move |carried, rope| {
            crate::features::inlay_hints(carried, rope, range)
        })
        .await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let uri = params.text_document.uri.clone();
        self.read_analysis(&params.text_document.uri, move |analysis| {
            crate::features::code_actions(analysis, &uri, params.range)
        })
        .await
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        let at = params.text_document_position_params;
        if left_to_python_server(&at.text_document.uri) {
            return Ok(None);
        }
        let uri = at.text_document.uri.clone();
        let found = self
            .read_syntax(&at.text_document.uri, move |view| {
                navigation::definition(view, &uri, at.position)
            })
            .await?;
        Ok(found.flatten())
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        let at = params.text_document_position;
        if left_to_python_server(&at.text_document.uri) {
            return Ok(None);
        }
        let uri = at.text_document.uri.clone();
        let declaration = params.context.include_declaration;
        self.read_syntax(&at.text_document.uri, move |view| {
            navigation::references(view, &uri, at.position, declaration)
        })
        .await
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        if left_to_python_server(&params.text_document.uri) {
            return Ok(None);
        }
        self.read_syntax(&params.text_document.uri, navigation::document_symbols)
            .await
    }

    async fn semantic_tokens_full(
        &self,
        params: SemanticTokensParams,
    ) -> Result<Option<SemanticTokensResult>> {
        if left_to_python_server(&params.text_document.uri) {
            return Ok(None);
        }
        let tokens = self
            .read_syntax(&params.text_document.uri, navigation::semantic_tokens)
            .await?;
        Ok(tokens.map(SemanticTokensResult::Tokens))
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let at = params.text_document_position;
        if left_to_python_server(&at.text_document.uri) {
            return Ok(None);
        }
        let items = self
            .read_syntax(&at.text_document.uri, move |view| {
                navigation::completions(view, at.position)
            })
            .await?;
        Ok(items.map(CompletionResponse::Array))
    }

    async fn signature_help(&self, params: SignatureHelpParams) -> Result<Option<SignatureHelp>> {
        let at = params.text_document_position_params;
        if left_to_python_server(&at.text_document.uri) {
            return Ok(None);
        }
        let help = self
            .read_syntax(&at.text_document.uri, move |view| {
                navigation::signature_help(view, at.position)
            })
            .await?;
        Ok(help.flatten())
    }
}

impl Server {
    /// `tensorfit/functionChecks`: how many function analyses the server
    /// has run (not taken from the cache), for tests of incrementality.
    pub async fn function_checks_request(&self) -> Result<u64> {
        Ok(self.function_checks())
    }

    /// `tensorfit/analysedVersion`: the version of the document whose
    /// analysis hover and inlay hints answer from (`null` before the first
    /// is ready), for tests that must know which one that is.
    pub async fn analysed_version_request(
        &self,
        params: TextDocumentIdentifier,
    ) -> Result<Option<i32>> {
        Ok(self
            .texts()
            .get(&params.uri)
            .and_then(OpenText::analysed_version))
    }

    /// `tensorfit/memory`: what the server holds, for memory tests.
    pub async fn memory_request(&self) -> Result<serde_json::Value> {
        Ok(crate::memory::held())
    }
}
