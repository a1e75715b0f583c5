//! The files of a run and the items each of them sees.
//!
//! Scoping follows docs/language.md: a file sees its own items, the items
//! of the files it imports (not transitively) and the prelude.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tensorfit_base::{Severity, TextRange};
use tensorfit_syntax::ast;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileId(pub u32);

impl FileId {
    /// The prelude's text: where the contracts of operations are written.
    pub const PRELUDE: FileId = FileId(u32::MAX);
}

/// A struct declaration: its file and its index among the file's items.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StructId {
    pub file: FileId,
    pub item: usize,
}

/// What a name at the top of a file refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemRef {
    Const { file: FileId, item: usize },
    Function { file: FileId, item: usize },
    Struct(StructId),
}

pub struct SourceFile {
    pub path: PathBuf,
    pub text: Arc<str>,
    pub tree: Arc<ast::SourceFile>,
    /// The names this file sees, imports included.
    pub scope: HashMap<String, ItemRef>,
}

pub struct Program {
    pub files: Vec<SourceFile>,
}

/// Why a program could not be loaded.
#[derive(Debug)]
pub struct LoadError {
    pub path: PathBuf,
    pub range: Option<TextRange>,
    pub message: String,
}

impl Program {
    /// Reads `path` and the files it imports. Syntax errors stop the run:
    /// the interpreter runs only programs the parser fully understood.
    pub fn load(path: &Path) -> Result<Program, LoadError> {
        let text = std::fs::read_to_string(path).map_err(|e| LoadError {
            path: path.to_owned(),
            range: None,
            message: format!("cannot read {}: {e}", path.display()),
        })?;
        Program::from_text(path, &text, &|p| std::fs::read_to_string(p).ok())
    }

    /// A program whose main file has `text`; imports are read with `read`.
    pub fn from_text(
        path: &Path,
        text: &str,
        read: &dyn Fn(&Path) -> Option<String>,
    ) -> Result<Program, LoadError> {
        let mut program = Program { files: Vec::new() };
        let mut loading = HashMap::new();
        program.add_file(path.to_owned(), text.to_owned(), read, &mut loading)?;
        Ok(program)
    }

    fn add_file(
        &mut self,
        path: PathBuf,
        text: String,
        read: &dyn Fn(&Path) -> Option<String>,
        loading: &mut HashMap<PathBuf, FileId>,
    ) -> Result<FileId, LoadError> {
        let parse = tensorfit_syntax::parse(&text);
        if let Some(error) = parse
            .diagnostics
            .iter()
            .find(|d| d.severity == Severity::Error)
        {
            return Err(LoadError {
                path,
                range: Some(error.range),
                message: format!("the program has a syntax error: {}", error.message),
            });
        }
        let id = FileId(self.files.len() as u32);
        loading.insert(normalize(&path), id);
        let tree = parse.file;
        self.files.push(SourceFile {
            path: path.clone(),
            text: text.into(),
            tree: tree.clone(),
            scope: HashMap::new(),
        });
        let mut scope: HashMap<String, ItemRef> = self.own_items(id).into_iter().collect();
        // Imports: their own items only (imports are not transitive).
        for item in &tree.items {
            let ast::Item::Import(import) = item else {
                continue;
            };
            let Some(relative) = &import.path else {
                continue;
            };
            let target = path.parent().unwrap_or(Path::new("")).join(relative);
            let key = normalize(&target);
            let file = match loading.get(&key) {
                // A cycle: the checker reports it; the items are there.
                Some(file) => *file,
                None => {
                    let Some(text) = read(&target) else {
                        return Err(LoadError {
                            path,
                            range: Some(import.path_range),
                            message: format!("cannot read the imported file {}", target.display()),
                        });
                    };
                    self.add_file(target, text, read, loading)?
                }
            };
            for (name, reference) in self.own_items(file) {
                scope.entry(name).or_insert(reference);
            }
        }
        self.files[id.0 as usize].scope = scope;
        Ok(id)
    }

    /// The items declared in `file` itself.
    fn own_items(&self, file: FileId) -> Vec<(String, ItemRef)> {
        let tree = &self.files[file.0 as usize].tree;
        tree.items
            .iter()
            .enumerate()
            .filter_map(|(item, it)| {
                let reference = match it {
                    ast::Item::Const(_) => ItemRef::Const { file, item },
                    ast::Item::Function(_) => ItemRef::Function { file, item },
                    ast::Item::Struct(_) => ItemRef::Struct(StructId { file, item }),
                    ast::Item::Import(_) => return None,
                };
                Some((it.name()?.text.clone(), reference))
            })
            .collect()
    }

    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// What `name` names at the top of `file` (nothing in the prelude).
    pub fn lookup(&self, file: FileId, name: &str) -> Option<ItemRef> {
        self.files.get(file.0 as usize)?.scope.get(name).copied()
    }

    pub fn item(&self, file: FileId, item: usize) -> &ast::Item {
        &self.file(file).tree.items[item]
    }

    pub fn struct_def(&self, id: StructId) -> &ast::Struct {
        match self.item(id.file, id.item) {
            ast::Item::Struct(s) => s,
            _ => unreachable!("a StructId names a struct"),
        }
    }

    pub fn function(&self, file: FileId, item: usize) -> &ast::Function {
        match self.item(file, item) {
            ast::Item::Function(f) => f,
            _ => unreachable!("an ItemRef::Function names a function"),
        }
    }

    pub fn main(&self) -> FileId {
        FileId(0)
    }
}

/// `a/./b/../c` as `a/c`, so one file imported by two paths is one file.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}
