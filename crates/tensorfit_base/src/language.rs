//! Which front end reads a file: the Tensor language or PyTorch in Python.
//!
//! Both lower to the same syntax tree; the few places that must know the
//! difference (the name checks, which are silent on Python, and the
//! spelling of messages and fixes) ask this.

use std::path::Path;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Language {
    #[default]
    Tensor,
    Python,
}

impl Language {
    /// The language of a file, by its extension: `.py` and `.pyi` are
    /// Python, everything else is the Tensor language (an editor buffer
    /// without a known extension included).
    pub fn of_path(path: &Path) -> Language {
        match path.extension().and_then(|e| e.to_str()) {
            Some("py" | "pyi") => Language::Python,
            _ => Language::Tensor,
        }
    }

    pub fn is_python(self) -> bool {
        self == Language::Python
    }

    /// The extension a file of this language is written with.
    pub fn extension(self) -> &'static str {
        match self {
            Language::Tensor => "tensor",
            Language::Python => "py",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_decides() {
        assert_eq!(Language::of_path(Path::new("a/model.py")), Language::Python);
        assert_eq!(Language::of_path(Path::new("stubs.pyi")), Language::Python);
        assert_eq!(Language::of_path(Path::new("m.tensor")), Language::Tensor);
        assert_eq!(Language::of_path(Path::new("untitled")), Language::Tensor);
        for language in [Language::Tensor, Language::Python] {
            let file = format!("f.{}", language.extension());
            assert_eq!(Language::of_path(Path::new(&file)), language);
        }
    }
}
