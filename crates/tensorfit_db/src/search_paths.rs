//! The directories absolute Python imports are looked for in besides the
//! importer's own project: given (`--python-path`, the server's setting),
//! or the site-packages of the `python3` on PATH.
//!
//! Asking `python3` costs its start-up (18 ms for Debian's, 80 ms behind a
//! pyenv shim), and most model files never need the answer: `torch` and
//! the standard library are modelled, and a project's own modules are
//! found beside the importer. So the command line asks only when an
//! import is looked for below the search paths for the first time.

use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// The search paths, known or asked on first use. Clones share one answer.
#[derive(Clone)]
pub struct SearchPaths(Arc<Source>);

enum Source {
    Given(Vec<PathBuf>),
    /// The `python3` on PATH, asked by the first [`SearchPaths::dirs`].
    OfPython(OnceLock<Vec<PathBuf>>),
}

impl SearchPaths {
    pub fn given(dirs: Vec<PathBuf>) -> SearchPaths {
        SearchPaths(Arc::new(Source::Given(dirs)))
    }

    /// The site-packages of the `python3` on PATH, asked when first needed.
    pub fn of_python3() -> SearchPaths {
        SearchPaths(Arc::new(Source::OfPython(OnceLock::new())))
    }

    /// The directories, in order; the first call for `python3`'s waits
    /// for its answer (concurrent callers wait for the same one).
    pub fn dirs(&self) -> &[PathBuf] {
        match &*self.0 {
            Source::Given(dirs) => dirs,
            Source::OfPython(answer) => answer.get_or_init(site_packages),
        }
    }
}

/// The top-level package `path` belongs to when it is an installed
/// library's file: the directory (or module) right below its last
/// `site-packages`/`dist-packages` directory, where installers put
/// packages and the only directories [`site_packages`] answers, so
/// `python3` need not be asked. `None` for any other file: a project
/// named as a search path (`--python-path src`) keeps following its
/// imports between its own top-level packages.
pub fn library_package(path: &Path) -> Option<&str> {
    let components: Vec<Component<'_>> = path.components().collect();
    let last = components.iter().rposition(is_packages_dir)?;
    let first = components.get(last + 1)?.as_os_str().to_str()?;
    // A module directly in the directory is its own package.
    Some(first.strip_suffix(".py").unwrap_or(first))
}

fn is_packages_dir(component: &Component<'_>) -> bool {
    let name = component.as_os_str();
    name == "site-packages" || name == "dist-packages"
}

impl Default for SearchPaths {
    fn default() -> SearchPaths {
        SearchPaths::given(Vec::new())
    }
}

impl From<Vec<PathBuf>> for SearchPaths {
    fn from(dirs: Vec<PathBuf>) -> SearchPaths {
        SearchPaths::given(dirs)
    }
}

/// Equal when both are the same given directories, or the same handle on
/// `python3`'s answer: comparing must not ask `python3`.
impl PartialEq for SearchPaths {
    fn eq(&self, other: &SearchPaths) -> bool {
        match (&*self.0, &*other.0) {
            (Source::Given(a), Source::Given(b)) => a == b,
            _ => Arc::ptr_eq(&self.0, &other.0),
        }
    }
}

impl std::fmt::Debug for SearchPaths {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &*self.0 {
            Source::Given(dirs) => f.debug_tuple("Given").field(dirs).finish(),
            Source::OfPython(answer) => f.debug_tuple("OfPython").field(&answer.get()).finish(),
        }
    }
}

/// The site-packages directories of the `python3` on PATH (its
/// `sys.path` entries named `site-packages` or `dist-packages` that
/// exist). The standard library is left out: the modules of it that
/// models use (`math`, `functools`, …) are modelled, and the rest says
/// nothing about shapes. Empty when there is no `python3`, or it does not
/// answer within two seconds.
pub fn site_packages() -> Vec<PathBuf> {
    let Ok(mut child) = Command::new("python3")
        .args(["-c", "import sys\nfor p in sys.path: print(p)"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    else {
        return Vec::new();
    };
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            // Python starts in 20-80 ms: polling every 10 ms added up to
            // 10 ms to every check of a Python file.
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(1)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Vec::new();
            }
        }
    }
    let mut output = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        use std::io::Read;
        let _ = stdout.read_to_string(&mut output);
    }
    output
        .lines()
        .map(PathBuf::from)
        .filter(|path| {
            path.components()
                .next_back()
                .is_some_and(|c| is_packages_dir(&c))
                && path.is_dir()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{library_package, SearchPaths};
    use std::path::Path;

    #[test]
    fn the_package_of_a_library_file() {
        let cases = [
            ("/usr/lib/python3/dist-packages/PIL/Image.py", Some("PIL")),
            (
                "/v/lib/python3.11/site-packages/timm/layers/mlp.py",
                Some("timm"),
            ),
            ("/v/lib/python3.11/site-packages/six.py", Some("six")),
            ("/v/lib/python3.11/site-packages", None),
            ("/home/me/project/models/net.py", None),
            ("models/net.py", None),
        ];
        for (file, expected) in cases {
            assert_eq!(library_package(Path::new(file)), expected, "{file}");
        }
    }

    #[test]
    fn clones_share_one_answer_and_given_paths_compare_by_value() {
        let asked = SearchPaths::of_python3();
        assert_eq!(asked, asked.clone());
        assert_ne!(asked, SearchPaths::of_python3());
        assert_eq!(
            SearchPaths::given(vec!["a".into()]),
            SearchPaths::from(vec!["a".into()])
        );
    }
}
