//! The owner of the database's inputs: applies edits, in order, to the
//! open documents (a rope and an incrementally reparsed tree-sitter tree
//! each) and hands out snapshots for reading.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ropey::Rope;
use salsa::Setter;
use tensorfit_base::{ByteEdit, Language, Position};
use tensorfit_semantics::{Prelude, ShapeOptions};
use tree_sitter::{InputEdit, Point, Tree};

use crate::front_end;
use crate::{Database, Db, FileLoader, SourceFile, SyntaxTree};

/// An edit as editors send them: replace the text between two positions
/// (line, UTF-16 column), or all of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextChange {
    pub range: Option<(Position, Position)>,
    pub text: String,
}

/// What happened to a file on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiskChange {
    Created,
    Changed,
    Deleted,
}

struct Document {
    file: SourceFile,
    rope: Rope,
    /// The tree of the current text, edited and reparsed on every change.
    tree: Tree,
}

pub struct Host {
    db: Database,
    open: HashMap<PathBuf, Document>,
}

impl Host {
    pub fn new(loader: Arc<dyn FileLoader>, options: ShapeOptions) -> Host {
        Host {
            db: Database::new(loader, options),
            open: HashMap::new(),
        }
    }

    pub fn db(&self) -> &Database {
        &self.db
    }

    /// A database to read from on another thread; the next edit cancels
    /// what it is computing (and waits until it is dropped).
    pub fn snapshot(&self) -> Database {
        self.db.clone()
    }

    /// Opens a document, or replaces all of its text.
    pub fn set_text(&mut self, path: &Path, text: &str) -> SourceFile {
        let rope = Rope::from_str(text);
        let language = Language::of_path(path);
        let tree = front_end::parse_tree(language, text, None);
        self.db.follow_imports(path, &tree, text);
        let existing = self.file(path);
        let file = match existing.or_else(|| self.db.stored_file(path)) {
            Some(file) => {
                self.replace_text(file, text, tree.clone());
                self.db.set_present(path, true);
                file
            }
            None => self
                .db
                .add_parsed_file(path.to_owned(), Arc::from(text), tree),
        };
        if existing.is_none() {
            // An import that missed this path finds the document now.
            self.bump_file_system();
        }
        let tree = file.tree(&self.db).0.as_ref().clone();
        self.open
            .insert(path.to_owned(), Document { file, rope, tree });
        file
    }

    fn replace_text(&mut self, file: SourceFile, text: &str, tree: tree_sitter::Tree) {
        let tree = SyntaxTree(Arc::new(tree));
        self.write(|db| {
            file.set_text(db).to(Arc::from(text));
            file.set_tree(db).to(tree);
        });
    }

    /// Applies editor changes in order to an open document, reparsing
    /// incrementally. `None` (and nothing changes) when it is not open.
    pub fn apply_changes(&mut self, path: &Path, changes: &[TextChange]) -> Option<SourceFile> {
        let language = Language::of_path(path);
        let document = self.open.get_mut(path)?;
        for change in changes {
            let edit = byte_edit(&document.rope, change);
            match change.range {
                None => document.tree = front_end::parse_tree(language, &change.text, None),
                Some(_) => document.tree.edit(&input_edit(
                    &document.rope,
                    edit.start as usize,
                    edit.end as usize,
                    &change.text,
                )),
            }
            replace(&mut document.rope, edit, &change.text);
        }
        let text = document.rope.to_string();
        let incremental = front_end::parse_tree(language, &text, Some(&document.tree));
        // Around a syntax error, tree-sitter's recovery can differ between
        // an incremental parse (which reuses the old tree's nodes) and a
        // fresh one, so the diagnostics would depend on the editing history
        // rather than on the text. A text with an error is parsed afresh.
        document.tree = if incremental.root_node().has_error() {
            front_end::parse_tree(language, &text, None)
        } else {
            incremental
        };
        let file = document.file;
        let tree = SyntaxTree(Arc::new(document.tree.clone()));
        self.write(|db| {
            file.set_text(db).to(Arc::from(text));
            file.set_tree(db).to(tree);
        });
        Some(file)
    }

    /// Changes what every analysis is asked for (the solver's time limit):
    /// everything is checked again, so only a real change is applied.
    pub fn set_options(&mut self, options: ShapeOptions) {
        let settings = self.db.settings();
        if settings.options(&self.db) != options {
            self.write(|db| settings.set_options(db).to(options));
        }
    }

    /// Makes diagnostics come before the shapes shown (see
    /// [`crate::Settings::diagnostics_first`]).
    pub fn set_diagnostics_first(&mut self, first: bool) {
        let settings = self.db.settings();
        if settings.diagnostics_first(&self.db) != first {
            self.write(|db| settings.set_diagnostics_first(db).to(first));
        }
    }

    /// Replaces the prelude every file sees (the built-in one to begin
    /// with). Only a different prelude is applied: everything that reads
    /// it (name checks, every analysis) runs again.
    pub fn set_prelude(&mut self, prelude: Arc<Prelude>) {
        let input = self.db.prelude_input();
        if *input.prelude(&self.db) != *prelude {
            self.write(|db| input.set_prelude(db).to(prelude));
        }
    }

    /// Sets the directories absolute Python imports are looked for in
    /// besides the importer's project (site-packages; see
    /// [`crate::python_modules`]). Only a change is applied: the imports
    /// of Python files are resolved again.
    /// Parses the files a Python document imports from its package ahead,
    /// on another thread (see `Database::prefetch_imports`).
    pub fn prefetch_imports(&mut self) {
        self.db.prefetch_imports();
    }

    pub fn set_python_paths(&mut self, dirs: impl Into<crate::search_paths::SearchPaths>) {
        let dirs = dirs.into();
        let input = self.db.python_paths();
        if *input.dirs(&self.db) != dirs {
            self.write(|db| input.set_dirs(db).to(dirs));
        }
    }

    /// Changes inputs. A setter waits until every snapshot is dropped;
    /// salsa cancels their work at its next query, but a Z3 query runs up
    /// to its time limit (seconds) without asking salsa. So the database's
    /// running Z3 queries are interrupted first, and new ones refused,
    /// until the change is made: an edit never waits for the solver.
    fn write<R>(&mut self, change: impl FnOnce(&mut Database) -> R) -> R {
        struct Resume(Arc<tensorfit_solver::Interrupts>);
        impl Drop for Resume {
            fn drop(&mut self) {
                self.0.resume();
            }
        }
        let interrupts = self.db.interrupts().clone();
        interrupts.stop();
        let _resume = Resume(interrupts);
        change(&mut self.db)
    }

    /// Forgets a closed document's edits: the file is what the loader
    /// gives again (or stays as it was if the loader cannot read it).
    pub fn close(&mut self, path: &Path) {
        if self.open.remove(path).is_none() {
            return;
        }
        if let Ok(text) = self.db.load(path) {
            self.set_text(path, &text);
            self.open.remove(path);
        }
    }

    /// A file changed on disk (the editor's file watcher says so). An open
    /// document's buffer wins over the disk and is left alone; otherwise
    /// the file's text is read again, and a file created or deleted makes
    /// the imports that missed or found it be resolved again.
    pub fn disk_changed(&mut self, path: &Path, change: DiskChange) {
        let path = &crate::imports::normalize(path);
        if self.is_open(path) {
            return;
        }
        let language = Language::of_path(path);
        let known = self.db.known_file(path);
        let text = match change {
            DiskChange::Deleted => None,
            DiskChange::Created | DiskChange::Changed => self.db.load(path).ok(),
        };
        match (known, text) {
            (Some(file), Some(text)) => {
                if **file.text(&self.db) != *text {
                    let tree = front_end::parse_tree(language, &text, None);
                    self.replace_text(file, &text, tree);
                }
            }
            // Deleted once and back: its old input gets the new text.
            (None, Some(text)) => {
                let revived = self.db.stored_file(path);
                if let Some(file) = revived {
                    let tree = front_end::parse_tree(language, &text, None);
                    self.replace_text(file, &text, tree);
                    self.db.set_present(path, true);
                }
                // An import that missed it finds it now.
                if revived.is_some() || change == DiskChange::Created {
                    self.bump_file_system();
                }
            }
            (Some(file), None) => {
                // The text is dropped with the file; the input stays for
                // the path (see `Database::files`).
                self.replace_text(file, "", front_end::parse_tree(language, "", None));
                self.db.set_present(path, false);
                self.bump_file_system();
            }
            (None, None) => {}
        }
    }

    fn bump_file_system(&mut self) {
        let file_system = self.db.file_system();
        let revision = file_system.revision(&self.db);
        self.write(|db| file_system.set_revision(db).to(revision + 1));
    }

    pub fn is_open(&self, path: &Path) -> bool {
        self.open.contains_key(path)
    }

    pub fn file(&self, path: &Path) -> Option<SourceFile> {
        self.open
            .get(path)
            .map(|d| d.file)
            .or_else(|| self.db.known_file(path))
    }
}

/// The byte offset of an editor position; positions past the end of a line
/// or of the text are clamped to it (as LSP asks).
/// Applies an editor's change to `rope` (a copy of an open document's
/// text kept elsewhere, as [`Host::apply_changes`] applies it to its own):
/// what it replaced, in bytes.
pub fn edit_rope(rope: &mut Rope, change: &TextChange) -> ByteEdit {
    let edit = byte_edit(rope, change);
    replace(rope, edit, &change.text);
    edit
}

/// The bytes of `rope` a change replaces (all of them without a range).
fn byte_edit(rope: &Rope, change: &TextChange) -> ByteEdit {
    let bytes = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let (start, end) = match change.range {
        None => (0, rope.len_bytes()),
        Some((start, end)) => {
            let start = byte_offset(rope, start);
            (start, byte_offset(rope, end).max(start))
        }
    };
    ByteEdit {
        start: bytes(start),
        end: bytes(end),
        inserted: bytes(change.text.len()),
    }
}

fn replace(rope: &mut Rope, edit: ByteEdit, text: &str) {
    let start = rope.byte_to_char(edit.start as usize);
    let end = rope.byte_to_char(edit.end as usize);
    rope.remove(start..end);
    rope.insert(start, text);
}

/// The position (line, UTF-16 column) of a byte offset of `rope`, clamped
/// to its text (an offset inside a character is its start).
pub fn position_in(rope: &Rope, offset: usize) -> Position {
    let offset = offset.min(rope.len_bytes());
    let line = rope.byte_to_line(offset);
    let char_at = rope.byte_to_char(offset);
    let units = rope.char_to_utf16_cu(char_at) - rope.char_to_utf16_cu(rope.line_to_char(line));
    Position {
        line: line as u32,
        character: units as u32,
    }
}

/// The positions of many offsets of one rope, as [`position_in`] gives
/// them, cheapest when asked in ascending order (inlay hints for a whole
/// file: thousands of offsets): the line found for one offset is kept for
/// the next, and on a line of ASCII text the column is the byte distance.
pub struct PositionCursor<'a> {
    rope: &'a Rope,
    line: usize,
    /// Byte range of `line`, up to the start of the next line.
    start: usize,
    end: usize,
    ascii: bool,
}

impl<'a> PositionCursor<'a> {
    pub fn new(rope: &'a Rope) -> PositionCursor<'a> {
        PositionCursor {
            rope,
            line: 0,
            start: 0,
            end: 0, // empty: the first offset finds its line
            ascii: false,
        }
    }

    pub fn position(&mut self, offset: usize) -> Position {
        let offset = offset.min(self.rope.len_bytes());
        if !(self.start <= offset && offset < self.end) {
            self.seek(offset);
        }
        if !self.ascii {
            return position_in(self.rope, offset);
        }
        Position {
            line: self.line as u32,
            character: (offset - self.start) as u32,
        }
    }

    fn seek(&mut self, offset: usize) {
        let rope = self.rope;
        self.line = rope.byte_to_line(offset);
        self.start = rope.line_to_byte(self.line);
        // The last line runs to the end of the text, which is an offset too.
        self.end = if self.line + 1 < rope.len_lines() {
            rope.line_to_byte(self.line + 1)
        } else {
            usize::MAX
        };
        let line = rope.line(self.line);
        self.ascii = line.len_bytes() == line.len_chars();
    }
}

pub fn byte_offset(rope: &Rope, position: Position) -> usize {
    let line = position.line as usize;
    if line >= rope.len_lines() {
        return rope.len_bytes();
    }
    let line_start = rope.line_to_char(line);
    // A column past the end of its line is the end of the line, before
    // its break (as LSP asks): past the break, the text would land on the
    // next line and the document would part from the editor's.
    let slice = rope.line(line);
    let mut content = slice.len_chars();
    while content > 0 && matches!(slice.char(content - 1), '\n' | '\r') {
        content -= 1;
    }
    let line_end = line_start + content;
    let start_units = rope.char_to_utf16_cu(line_start);
    let end_units = rope.char_to_utf16_cu(line_end);
    let units = (start_units + position.character as usize).min(end_units);
    rope.char_to_byte(rope.utf16_cu_to_char(units))
}

/// The tree-sitter edit replacing `start..end` of `rope` by `text`.
fn input_edit(rope: &Rope, start: usize, end: usize, text: &str) -> InputEdit {
    let point = |byte: usize| {
        let row = rope.byte_to_line(byte);
        Point::new(row, byte - rope.line_to_byte(row))
    };
    let start_position = point(start);
    let new_end_position = match text.rfind('\n') {
        Some(last) => Point::new(
            start_position.row + text.matches('\n').count(),
            text.len() - last - 1,
        ),
        None => Point::new(start_position.row, start_position.column + text.len()),
    };
    InputEdit {
        start_byte: start,
        old_end_byte: end,
        new_end_byte: start + text.len(),
        start_position,
        old_end_position: point(end),
        new_end_position,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn columns_past_the_end_stay_on_their_line() {
        for text in [
            "let a = 1\nlet b = 2\n",
            "let a = 1\r\nlet b = 2\r\n",
            "let a = 1\rlet b = 2\r",
        ] {
            let rope = Rope::from_str(text);
            assert_eq!(byte_offset(&rope, at(0, 14)), 9, "{text:?}");
            assert_eq!(byte_offset(&rope, at(0, 9)), 9, "{text:?}");
            assert_eq!(
                byte_offset(&rope, at(1, 99)),
                text.len() - text.ends_with("\r\n") as usize - 1
            );
            assert_eq!(byte_offset(&rope, at(7, 0)), text.len());
        }
        // The last line has no break.
        let rope = Rope::from_str("let a = 1");
        assert_eq!(byte_offset(&rope, at(0, 14)), 9);
    }

    /// A document opened once is parsed once, for its editor and the
    /// database alike.
    #[test]
    fn an_opened_document_is_parsed_once() {
        let options = ShapeOptions {
            limits: tensorfit_semantics::Limits::default(),
            questions: false,
            language: tensorfit_semantics::Language::Python,
        };
        let mut host = Host::new(Arc::new(crate::NoImports), options);
        let parses = || crate::front_end::PARSES.with(|p| p.get());
        let before = parses();
        host.set_text(Path::new("net.py"), "import torch\nx = torch.zeros(2, 3)\n");
        assert_eq!(parses() - before, 1);
    }

    #[test]
    fn unicode_line_separators_are_not_line_breaks() {
        // LSP breaks lines at \n, \r\n and \r only.
        let rope = Rope::from_str("let a = 1\u{2028}\u{b}\u{c}\u{85}let b = zz\nx");
        assert_eq!(rope.len_lines(), 2);
        assert_eq!(byte_offset(&rope, at(1, 0)), rope.len_bytes() - 1);
    }

    /// The cursor gives what `position_in` gives at every offset, asked in
    /// order, backwards and at random, on ASCII, non-ASCII (astral
    /// characters are two UTF-16 units) and every kind of line break.
    #[test]
    fn the_position_cursor_agrees_with_position_in() {
        for text in [
            "let a = 1\nlet b = 2\n",
            "let a = 1\r\nlet β = 2\r\nx",
            "é\r😀x\n\n\u{2028}y = 1",
            "",
            "no break at all",
        ] {
            let rope = Rope::from_str(text);
            let offsets: Vec<usize> = (0..=text.len() + 2).collect();
            let mut shuffled = offsets.clone();
            shuffled.reverse();
            shuffled.extend(offsets.iter().map(|o| o * 7 % (text.len() + 3)));
            for order in [&offsets, &shuffled] {
                let mut cursor = PositionCursor::new(&rope);
                for &offset in order {
                    assert_eq!(
                        cursor.position(offset),
                        position_in(&rope, offset),
                        "{text:?} at {offset}"
                    );
                }
            }
        }
    }

    /// The position of a byte offset (the texts here are ASCII).
    fn position_of(text: &str, offset: usize) -> Position {
        let line = text[..offset].matches('\n').count() as u32;
        let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        at(line, (offset - start) as u32)
    }

    /// Whatever the editing history, a document's tree is the tree of its
    /// text: deleting spans of each example model and typing them back
    /// character by character, the tree after every keystroke is a fresh
    /// parse's. (The case that showed an incremental parse recovering from
    /// an error differently came from the session fuzzer, whose CI smoke
    /// reproduces it; these simple edits do not.)
    #[test]
    fn the_tree_after_each_keystroke_is_the_texts_own() {
        let models = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/models");
        let mut keystrokes = 0;
        let mut names: Vec<String> = std::fs::read_dir(models)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        for (name, width) in names.iter().flat_map(|n| [(n, 3), (n, 13)]) {
            let original = std::fs::read_to_string(format!("{models}/{name}")).unwrap();
            let path = Path::new("model.tensor");
            let options = ShapeOptions {
                limits: tensorfit_semantics::Limits::default(),
                questions: false,
                language: tensorfit_semantics::Language::Tensor,
            };
            let mut host = Host::new(Arc::new(crate::NoImports), options);
            host.set_text(path, &original);
            for start in (0..original.len().saturating_sub(width + 1)).step_by(97) {
                let span = original[start..start + width].to_owned();
                let mut text = original.clone();
                let change = |text: &str, from: usize, to: usize, new: &str| TextChange {
                    range: Some((position_of(text, from), position_of(text, to))),
                    text: new.to_owned(),
                };
                host.apply_changes(path, &[change(&text, start, start + width, "")]);
                text.replace_range(start..start + width, "");
                for (k, c) in span.char_indices() {
                    let typed = change(&text, start + k, start + k, &c.to_string());
                    host.apply_changes(path, &[typed]);
                    text.insert(start + k, c);
                    let tree = &host.open[path].tree;
                    let fresh = tensorfit_syntax::parse_tree(&text, None);
                    assert_eq!(
                        tree.root_node().to_sexp(),
                        fresh.root_node().to_sexp(),
                        "{name}: after typing {:?} at {start}",
                        &span[..=k]
                    );
                    keystrokes += 1;
                }
                assert_eq!(text, original);
            }
        }
        assert!(keystrokes > 100, "{keystrokes} keystrokes");
    }
}
