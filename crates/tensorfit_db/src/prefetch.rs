//! The files a checked Python file imports from its own package, read and
//! parsed ahead on another thread (the command line turns this on).
//!
//! A check of torchvision's `resnet.py` parses ten files its imports reach,
//! one after another as the module contexts look names up: about a third
//! of the check, on one core of two. Here a worker follows the relative
//! imports (`from ._api import ...`, `from . import functional`) of each
//! file it parses, up to [`MAX_FILES`], and keeps each tree with the text
//! it was parsed from. When the database loads one of those files, it takes
//! the tree only if the text it read is the same; a file the worker has not
//! reached yet is parsed where it is needed, as without the worker. What a
//! check finds never depends on the worker: only who parsed a text.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Mutex};

use tensorfit_base::Language;

use crate::imports::{normalize, resolve_relative, FileLoader};

/// How many files the worker parses at most for one database.
const MAX_FILES: usize = 48;

type Parsed = (Arc<str>, tree_sitter::Tree);

pub(crate) struct Prefetch {
    parsed: Arc<Mutex<HashMap<PathBuf, Parsed>>>,
    work: Mutex<Sender<(PathBuf, Vec<String>)>>,
}

impl Prefetch {
    /// Starts the worker; `None` where no thread can be made.
    pub(crate) fn start(loader: Arc<dyn FileLoader>) -> Option<Prefetch> {
        let parsed: Arc<Mutex<HashMap<PathBuf, Parsed>>> = Arc::default();
        let (send, receive) = channel::<(PathBuf, Vec<String>)>();
        let store = parsed.clone();
        std::thread::Builder::new()
            .name("tensorfit-parse".to_owned())
            // Ends when the database (the last sender) is dropped.
            .spawn(move || {
                let mut seen: HashSet<PathBuf> = HashSet::new();
                for job in receive {
                    let mut pending = VecDeque::from([job]);
                    while let Some((importer, modules)) = pending.pop_front() {
                        for path in candidates(&importer, &modules) {
                            if seen.len() >= MAX_FILES || !seen.insert(path.clone()) {
                                continue;
                            }
                            let Ok(text) = loader.load(&path) else {
                                continue;
                            };
                            let tree = crate::front_end::parse_tree(Language::Python, &text, None);
                            let further = tensorfit_python::relative_imports(&tree, &text);
                            if let Ok(mut store) = store.lock() {
                                store.insert(path.clone(), (Arc::from(text), tree));
                            }
                            pending.push_back((path, further));
                        }
                    }
                }
            })
            .ok()?;
        Some(Prefetch {
            parsed,
            work: Mutex::new(send),
        })
    }

    /// Asks for the files `importer`'s relative `modules` may be.
    pub(crate) fn follow(&self, importer: &Path, modules: Vec<String>) {
        if modules.is_empty() {
            return;
        }
        if let Ok(work) = self.work.lock() {
            let _ = work.send((importer.to_owned(), modules));
        }
    }

    /// The tree parsed ahead for `path`, if it was parsed from `text`.
    pub(crate) fn take(&self, path: &Path, text: &str) -> Option<tree_sitter::Tree> {
        let (parsed_text, tree) = self.parsed.lock().ok()?.remove(path)?;
        (*parsed_text == *text).then_some(tree)
    }
}

/// The Python files `modules` (relative, as written in `importer`) may be,
/// as the database names them.
fn candidates(importer: &Path, modules: &[String]) -> Vec<PathBuf> {
    modules
        .iter()
        .flat_map(|module| tensorfit_python::module_candidates(module))
        .map(|candidate| normalize(&resolve_relative(importer, &candidate)))
        .filter(|path| path.is_file())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FsLoader;

    /// The worker follows relative imports from file to file, and a tree
    /// is taken only for the text it was parsed from.
    #[test]
    fn imports_are_parsed_ahead_and_taken_for_their_own_text() {
        let dir = std::env::temp_dir().join(format!("tensorfit-prefetch-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("pkg")).unwrap();
        let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
        write("pkg/net.py", "from .blocks import Block\n");
        write("pkg/blocks.py", "from . import layers\nclass Block: pass\n");
        write("pkg/layers.py", "def conv(x):\n    return x\n");
        let net = normalize(&dir.join("pkg/net.py"));
        let loader: Arc<dyn FileLoader> = Arc::new(FsLoader::within([dir.clone()]));
        let prefetch = Prefetch::start(loader).unwrap();
        let text = std::fs::read_to_string(&net).unwrap();
        let tree = crate::front_end::parse_tree(Language::Python, &text, None);
        prefetch.follow(&net, tensorfit_python::relative_imports(&tree, &text));
        let layers = normalize(&dir.join("pkg/layers.py"));
        let blocks = normalize(&dir.join("pkg/blocks.py"));
        let parsed = |path: &Path| prefetch.parsed.lock().unwrap().contains_key(path);
        let start = std::time::Instant::now();
        while !(parsed(&layers) && parsed(&blocks)) {
            assert!(start.elapsed().as_secs() < 10, "not parsed ahead");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(prefetch.take(&blocks, "class Other: pass\n").is_none());
        let layers_text = std::fs::read_to_string(&layers).unwrap();
        let tree = prefetch.take(&layers, &layers_text).unwrap();
        assert_eq!(
            tree.root_node().named_child(0).unwrap().kind(),
            "function_definition"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
