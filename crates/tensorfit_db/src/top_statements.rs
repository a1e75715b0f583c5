//! A Python file's top-level statements, each with what it tells the
//! module context (`tensorfit_python::StatementFacts`).
//!
//! The context is made from every statement's facts. A statement is a
//! tracked struct named by its first line, whose text is a tracked field:
//! typing in one class changes that statement's text alone, so only its
//! facts are read again (one walk of the class, not of the file), and the
//! context is made again only if some statement's facts changed.

use tensorfit_base::{Language, TextRange};
use tensorfit_python::{ClassDetails, ModuleContext, StatementFacts};

use crate::items::CutFrom;
use crate::{Db, SourceFile};

/// One top-level statement of a Python file (comments are not statements).
#[salsa::tracked(debug)]
pub struct TopStatement<'db> {
    #[returns(copy)]
    pub file: SourceFile,
    /// The statement's first line: what tells it from the others across
    /// edits. A repeated line is told apart by its order, written after
    /// it (see [`numbered_heads`]).
    #[returns(ref)]
    pub head: String,
    #[tracked]
    #[returns(ref)]
    pub source: StatementSource,
}

/// What a statement's facts are read from: its text, and the tree it was
/// cut from (equal whatever the tree: the facts depend on the text alone).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatementSource {
    pub text: String,
    pub cut_from: CutFrom,
}

/// The file's top-level statements, in order; none for a Tensor file.
#[salsa::tracked(returns(ref))]
pub fn top_statements(db: &dyn Db, file: SourceFile) -> Vec<TopStatement<'_>> {
    if file.language(db) != Language::Python {
        return Vec::new();
    }
    let text = file.text(db);
    let syntax_tree = file.tree(db);
    let root = syntax_tree.0.root_node();
    let mut cursor = root.walk();
    let statements: Vec<TextRange> = root
        .named_children(&mut cursor)
        .filter(|node| !node.is_extra())
        .map(|node| TextRange::new(node.start_byte(), node.end_byte()))
        .collect();
    let heads = numbered_heads(
        statements
            .iter()
            .map(|range| text[range.as_usize()].lines().next().unwrap_or_default()),
    );
    statements
        .into_iter()
        .zip(heads)
        .map(|(range, head)| {
            let statement = &text[range.as_usize()];
            let source = StatementSource {
                text: statement.to_owned(),
                cut_from: CutFrom {
                    tree: syntax_tree.clone(),
                    text: text.clone(),
                    range,
                },
            };
            TopStatement::new(db, file, head, source)
        })
        .collect()
}

/// Each first line, with `#k` after the k-th repeat of a line (`x = 1`,
/// `x = 1#1`, ...). salsa would tell repeats apart by their order as
/// well, but it finds a struct by the hash of its fields: 50,000 equal
/// lines (statements on one line, `;`-separated) made every lookup walk
/// all the others. The suffix keeps the order's meaning and makes the
/// hashes differ.
pub(crate) fn numbered_heads<'t>(heads: impl Iterator<Item = &'t str>) -> Vec<String> {
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    heads
        .map(|head| {
            let repeats = seen.entry(head).or_insert(0);
            let numbered = match *repeats {
                0 => head.to_owned(),
                k => format!("{head}#{k}"),
            };
            *repeats += 1;
            numbered
        })
        .collect()
}

/// What one statement tells the module context: read again only when the
/// statement's text changes.
#[salsa::tracked(returns(ref))]
pub fn statement_facts<'db>(db: &'db dyn Db, statement: TopStatement<'db>) -> StatementFacts {
    #[cfg(test)]
    FACTS_READ.with(|read| read.borrow_mut().push(statement.head(db).clone()));
    let CutFrom { tree, text, range } = &statement.source(db).cut_from;
    match tensorfit_syntax::root_child_at(&tree.0, *range) {
        Some(node) => tensorfit_python::statement_facts(tree.0.root_node(), node, text),
        None => StatementFacts::default(),
    }
}

/// What inheritance needs of the class a statement defines, read only
/// when the context asks (see `tensorfit_python::ClassDetails`).
#[salsa::tracked(returns(ref))]
pub fn class_details<'db>(db: &'db dyn Db, statement: TopStatement<'db>) -> ClassDetails {
    let CutFrom { tree, text, range } = &statement.source(db).cut_from;
    match tensorfit_syntax::root_child_at(&tree.0, *range) {
        Some(node) => tensorfit_python::class_details(node, text),
        None => ClassDetails::default(),
    }
}

/// The context of a Python file read off its own statements
/// (`crate::items::plain_module_context`).
pub(crate) fn context_of_statements(db: &dyn Db, file: SourceFile) -> ModuleContext {
    let statements = top_statements(db, file);
    let facts: Vec<&StatementFacts> = statements
        .iter()
        .map(|statement| statement_facts(db, *statement))
        .collect();
    let details_of = |i: usize| class_details(db, statements[i]);
    ModuleContext::from_statements(&facts, &details_of)
}

#[cfg(test)]
thread_local! {
    /// The first line of each statement whose facts were read on this
    /// thread (tests look at them).
    static FACTS_READ: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use tensorfit_semantics::{Limits, ShapeOptions};

    use super::FACTS_READ;
    use tensorfit_base::Position;

    use crate::host::{Host, TextChange};

    /// A file with what each of the context's parts reads: imports, a
    /// constant, a list used otherwise, an alias changed in place, a
    /// function changing a module-level name, and a class derived from
    /// another (whose details inheritance asks for).
    const MODEL: &str = "\
import torch
from torch import nn

SIZES = [1, 2]
HIDDEN = 4 * 8
cfg = {\"a\": 1}
alias = cfg
alias.update(b=2)
REGISTRY = {}


def register(cls):
    REGISTRY[cls.__name__] = cls
    return cls


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(HIDDEN, 2)

    def forward(self, x):
        return self.fc(x)


class Derived(Base):
    def forward(self, x):
        y = self.fc(x)
        return y
";

    fn host() -> Host {
        let options = ShapeOptions {
            limits: Limits::default(),
            questions: false,
            language: tensorfit_semantics::Language::Python,
        };
        Host::new(Arc::new(crate::NoImports), options)
    }

    fn facts_read() -> Vec<String> {
        FACTS_READ.with(|read| std::mem::take(&mut *read.borrow_mut()))
    }

    /// The context the database keeps is the one made from the whole
    /// file's tree, and typing in one statement reads that statement's
    /// facts again, no other.
    #[test]
    fn an_edit_reads_the_facts_of_the_statement_it_changes() {
        let mut host = host();
        let path = Path::new("net.py");
        let file = host.set_text(path, MODEL);
        let whole_file = |text: &str| {
            let tree = tensorfit_python::parse_tree(text, None);
            tensorfit_python::module_context(&tree, text)
        };
        let context = crate::items::plain_module_context(host.db(), file).clone();
        assert_eq!(context.as_deref(), Some(&whole_file(MODEL)));
        assert!(context
            .as_ref()
            .is_some_and(|c| c.inherits.contains_key("Derived")));
        assert_eq!(facts_read().len(), 11);

        // Typing in `Derived.forward`.
        let at = MODEL.find("return y").expect("the line");
        let line = MODEL[..at].lines().count() as u32 - 1;
        let column = (at - MODEL[..at].rfind('\n').map_or(0, |n| n + 1)) as u32;
        let position = Position {
            line,
            character: column,
        };
        let change = TextChange {
            range: Some((position, position)),
            text: "z = y + 1\n        ".to_owned(),
        };
        host.apply_changes(path, &[change]);
        let text = file.text(host.db()).to_string();
        assert!(text.contains("z = y + 1\n        return y"), "{text}");
        let context = crate::items::plain_module_context(host.db(), file).clone();
        assert_eq!(context.as_deref(), Some(&whole_file(&text)));
        assert_eq!(facts_read(), ["class Derived(Base):"]);
    }
}
