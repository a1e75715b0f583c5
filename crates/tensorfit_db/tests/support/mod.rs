//! What several database tests share: a disk in memory.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tensorfit_db::FileLoader;

/// A disk in memory, which a test may change behind the host's back.
#[derive(Default)]
pub struct Disk(Mutex<HashMap<PathBuf, String>>);

#[allow(dead_code)] // Not every test binary deletes files.
impl Disk {
    pub fn write(&self, path: &str, text: &str) {
        self.0.lock().unwrap().insert(path.into(), text.to_owned());
    }

    pub fn delete(&self, path: &str) {
        self.0.lock().unwrap().remove(Path::new(path));
    }
}

impl FileLoader for Disk {
    fn load(&self, path: &Path) -> std::io::Result<String> {
        self.0
            .lock()
            .unwrap()
            .get(path)
            .cloned()
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"))
    }
}
