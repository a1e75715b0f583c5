//! Which open documents need their diagnostics worked out, in what order,
//! and what was last published for each.
//!
//! One task works through the queue (see `Server::diagnose`), a document
//! at a time. A document is in the queue at most once, so the queue is
//! never longer than the documents open. Two lanes: the documents the
//! user edits, and the others (opened, or reading a file that changed),
//! oldest first; they take turns, so typing in one document is answered
//! first and yet no document waits for the typing to stop. A document is
//! published only when its version or its diagnostics changed: opening a
//! thousand documents publishes each once, not each at every opening.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tokio::sync::Notify;
use tower_lsp_server::ls_types::{Diagnostic, NumberOrString, Uri};

#[derive(Default)]
pub(crate) struct DiagnosticsQueue {
    inner: Mutex<Queue>,
    /// Wakes the task that works through the queue.
    pub(crate) wake: Notify,
}

#[derive(Default)]
struct Queue {
    edited: VecDeque<Uri>,
    others: VecDeque<Uri>,
    queued: HashSet<Uri>,
    /// Whether the other lane has the next turn.
    others_next: bool,
    published: HashMap<Uri, Published>,
}

/// What a document's last publication said, and what its check read.
struct Published {
    version: i32,
    diagnostics: Vec<Diagnostic>,
    /// The files its analysis reads through its imports.
    reads: Vec<PathBuf>,
    /// Whether an import of it was not found.
    imports_missing: bool,
}

impl DiagnosticsQueue {
    fn queue(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `uri` was edited: it comes first, and the documents that read its
    /// file after it.
    pub(crate) fn edited(&self, uri: &Uri, path: &Path) {
        {
            let mut queue = self.queue();
            if queue.queued.contains(uri) {
                queue.others.retain(|u| u != uri);
                queue.edited.retain(|u| u != uri);
            }
            queue.queued.insert(uri.clone());
            queue.edited.push_back(uri.clone());
            queue.readers_of(path, Some(uri));
        }
        self.wake.notify_one();
    }

    /// `uri` was opened: it, the documents that read its file, and those
    /// with an import not found (it may be the file they look for).
    pub(crate) fn opened(&self, uri: &Uri, path: &Path) {
        {
            let mut queue = self.queue();
            queue.push_other(uri);
            queue.readers_of(path, Some(uri));
            let looking: Vec<Uri> = queue
                .published
                .iter()
                .filter(|(_, p)| p.imports_missing)
                .map(|(uri, _)| uri.clone())
                .collect();
            for uri in &looking {
                queue.push_other(uri);
            }
        }
        self.wake.notify_one();
    }

    /// Files changed on disk: every document, since a file that appears
    /// may be one an import looked for in vain (what an import looked for
    /// is not kept). Those whose diagnostics stay the same are not
    /// published again.
    pub(crate) fn changed_on_disk(&self) {
        {
            let mut queue = self.queue();
            let open: Vec<Uri> = queue.published.keys().cloned().collect();
            for uri in &open {
                queue.push_other(uri);
            }
        }
        self.wake.notify_one();
    }

    /// Every document in `open` (the settings changed).
    pub(crate) fn all<'u>(&self, open: impl IntoIterator<Item = &'u Uri>) {
        {
            let mut queue = self.queue();
            for uri in open {
                queue.push_other(uri);
            }
        }
        self.wake.notify_one();
    }

    /// A check of `uri` was cancelled before it was done (by an edit of
    /// some document): it goes back to the front of its lane.
    pub(crate) fn retry(&self, uri: &Uri) {
        {
            let mut queue = self.queue();
            if queue.queued.insert(uri.clone()) {
                queue.others.push_front(uri.clone());
            }
        }
        self.wake.notify_one();
    }

    /// `uri` was closed: it is neither checked nor remembered.
    pub(crate) fn closed(&self, uri: &Uri) {
        let mut queue = self.queue();
        queue.queued.remove(uri);
        queue.edited.retain(|u| u != uri);
        queue.others.retain(|u| u != uri);
        queue.published.remove(uri);
    }

    /// The next document to check, taken off the queue.
    pub(crate) fn next(&self) -> Option<Uri> {
        let mut queue = self.queue();
        let others_first = queue.others_next || queue.edited.is_empty();
        let next = match others_first {
            true => queue
                .others
                .pop_front()
                .or_else(|| queue.edited.pop_front()),
            false => queue
                .edited
                .pop_front()
                .or_else(|| queue.others.pop_front()),
        };
        queue.others_next = !others_first;
        if let Some(uri) = &next {
            queue.queued.remove(uri);
        }
        next
    }

    /// Whether `diagnostics` of `version` say something the last
    /// publication of `uri` did not.
    pub(crate) fn is_news(&self, uri: &Uri, version: i32, diagnostics: &[Diagnostic]) -> bool {
        match self.queue().published.get(uri) {
            Some(last) => last.version != version || last.diagnostics != diagnostics,
            None => true,
        }
    }

    /// Whether nothing was published yet for `version` of `uri`.
    pub(crate) fn is_new_version(&self, uri: &Uri, version: i32) -> bool {
        self.queue()
            .published
            .get(uri)
            .is_none_or(|last| last.version != version)
    }

    /// What was published for `uri`, and what its check read.
    pub(crate) fn published(
        &self,
        uri: &Uri,
        version: i32,
        diagnostics: Vec<Diagnostic>,
        reads: Vec<PathBuf>,
    ) {
        let imports_missing = diagnostics
            .iter()
            .any(|d| d.code == Some(NumberOrString::String("import-not-found".to_owned())));
        self.queue().published.insert(
            uri.clone(),
            Published {
                version,
                diagnostics,
                reads,
                imports_missing,
            },
        );
    }

    /// Documents waiting, for tests.
    #[cfg(test)]
    fn waiting(&self) -> usize {
        self.queue().queued.len()
    }
}

impl Queue {
    fn push_other(&mut self, uri: &Uri) {
        if self.queued.insert(uri.clone()) {
            self.others.push_back(uri.clone());
        }
    }

    /// Queues the documents (other than `changed`) whose last check read
    /// the file at `path`.
    fn readers_of(&mut self, path: &Path, changed: Option<&Uri>) {
        let readers: Vec<Uri> = self
            .published
            .iter()
            .filter(|(uri, p)| Some(*uri) != changed && p.reads.iter().any(|r| r == path))
            .map(|(uri, _)| uri.clone())
            .collect();
        for uri in readers {
            self.push_other(&uri);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn uri(name: &str) -> Uri {
        Uri::from_str(&format!("file:///w/{name}")).unwrap()
    }

    #[test]
    fn each_document_waits_once_and_edits_take_turns_with_the_rest() {
        let queue = DiagnosticsQueue::default();
        for name in ["a", "b", "c"] {
            let path = PathBuf::from(format!("/w/{name}"));
            queue.opened(&uri(name), &path);
            queue.opened(&uri(name), &path);
        }
        assert_eq!(queue.waiting(), 3);
        queue.edited(&uri("c"), Path::new("/w/c"));
        queue.edited(&uri("d"), Path::new("/w/d"));
        let order: Vec<Uri> = std::iter::from_fn(|| queue.next()).collect();
        assert_eq!(order, [uri("c"), uri("a"), uri("d"), uri("b")]);
    }

    #[test]
    fn a_change_queues_the_documents_that_read_it_and_publications_are_news_only() {
        let queue = DiagnosticsQueue::default();
        queue.published(&uri("a"), 1, Vec::new(), vec![PathBuf::from("/w/lib.py")]);
        queue.published(&uri("b"), 1, Vec::new(), Vec::new());
        queue.edited(&uri("lib"), Path::new("/w/lib.py"));
        let order: Vec<Uri> = std::iter::from_fn(|| queue.next()).collect();
        assert_eq!(order, [uri("lib"), uri("a")]);
        queue.changed_on_disk();
        let order: Vec<Uri> = std::iter::from_fn(|| queue.next()).collect();
        assert_eq!(order.len(), 2);
        assert!(!queue.is_news(&uri("a"), 1, &[]));
        assert!(queue.is_news(&uri("a"), 2, &[]));
        queue.closed(&uri("a"));
        assert!(queue.is_news(&uri("a"), 1, &[]));
    }
}
