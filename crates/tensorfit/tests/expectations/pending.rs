//! `tests/pending.txt`: expectations that a later issue will satisfy.
//!
//! ```text
//! # FILE:LINE EXPECTATION  # issue N
//! corpus/seeds/01_tfp_matmul.tensor:15 error: 30  # issue 3
//! ```
//! LINE is 1-based, as editors show it.

use std::collections::BTreeSet;
use std::path::Path;

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key {
    file: String,
    /// 0-based.
    line: u32,
    text: String,
}

impl Key {
    pub fn new(file: &str, line: u32, text: &str) -> Key {
        Key {
            file: file.to_owned(),
            line,
            text: text.trim().to_owned(),
        }
    }

    fn describe(&self) -> String {
        format!("{}:{} {}", self.file, self.line + 1, self.text)
    }
}

pub struct Pending {
    keys: BTreeSet<Key>,
}

/// The pending expectations of one file: (0-based line, text).
#[derive(Clone, Default)]
pub struct FilePending {
    entries: BTreeSet<(u32, String)>,
}

impl FilePending {
    pub fn contains(&self, line: u32, text: &str) -> bool {
        self.entries.contains(&(line, text.trim().to_owned()))
    }
}

impl Pending {
    pub fn load(path: &Path) -> Result<Pending, String> {
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        let mut keys = BTreeSet::new();
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |why: &str| format!("line {}: {why}: `{line}`", number + 1);
            let (entry, issue) = line
                .split_once('#')
                .ok_or_else(|| bad("missing `# issue N`"))?;
            let issue = issue.trim();
            let valid_issue = issue
                .strip_prefix("issue ")
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
            if !valid_issue {
                return Err(bad("the comment must be `# issue N`"));
            }
            let (location, expectation) = entry
                .trim()
                .split_once(' ')
                .ok_or_else(|| bad("expected `FILE:LINE EXPECTATION`"))?;
            let (file, line_number) = location
                .rsplit_once(':')
                .ok_or_else(|| bad("expected `FILE:LINE`"))?;
            let line_number: u32 = line_number
                .parse()
                .map_err(|_| bad("LINE is not a number"))?;
            if line_number == 0 {
                return Err(bad("LINE is 1-based"));
            }
            keys.insert(Key::new(file, line_number - 1, expectation));
        }
        Ok(Pending { keys })
    }

    pub fn for_file(&self, file: &str) -> FilePending {
        FilePending {
            entries: self
                .keys
                .iter()
                .filter(|k| k.file == file)
                .map(|k| (k.line, k.text.clone()))
                .collect(),
        }
    }

    /// Entries that match no expectation of any test file.
    pub fn stale_entries(&self, existing: &[Key]) -> Vec<String> {
        let existing: BTreeSet<&Key> = existing.iter().collect();
        self.keys
            .iter()
            .filter(|k| !existing.contains(k))
            .map(Key::describe)
            .collect()
    }
}
