//! The file cut into its pieces (items and script statements), each lowered
//! on its own at its place (see [`Layout`]).
//!
//! Every edit reparses the file's tree (incrementally) and cuts it again,
//! which only reads the root's children. A piece is a tracked struct named
//! by its key, whose text and places are tracked fields: a piece whose text
//! did not change keeps its lowering, and what is built from the pieces
//! (the interface, each function's definition, the script) is rebuilt only
//! from the pieces that changed, and compared equal when they did not.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use tensorfit_base::{Diagnostic, Language, TextRange};
use tensorfit_python::ModuleContext;
use tensorfit_semantics::{Environment, NameScope, ResolvedImport};
use tensorfit_syntax::{ast, LoweredPiece, Outline};

use crate::imports::resolve_imports;
use crate::layout::{ItemSpan, Layout};
use crate::{Db, SourceFile};

/// The file's items and statements, read off its tree.
#[salsa::tracked(returns(ref))]
pub fn outline(db: &dyn Db, file: SourceFile) -> Outline {
    let context = module_context(db, file).as_deref();
    crate::front_end::outline(&file.tree(db).0, file.text(db), context)
}

/// What every piece of a Python file needs from the rest of it (its
/// imports and top-level names); `None` for a Tensor file. Equal across
/// edits that change neither, so that they lower no other piece again.
///
/// Names imported from the workspace's own Python files are looked up
/// there (PYTHON.md §1): those the file found defines become items of this
/// one, and the file an import (see [`interface`]).
#[salsa::tracked(returns(ref))]
pub fn module_context(db: &dyn Db, file: SourceFile) -> Option<Arc<ModuleContext>> {
    let mut context = plain_module_context(db, file).as_deref()?.clone();
    for (module, names) in context.modules_imported_from() {
        for name in names {
            if let Some(defining) = crate::python_modules::defining_file(db, file, &module, &name) {
                if let Some(path) =
                    crate::python_modules::path_from(file.path(db), defining.path(db))
                {
                    context
                        .names_by_file
                        .entry(path.clone())
                        .or_default()
                        .insert(name.clone());
                    context.workspace_items.insert(name.clone());
                    context.workspace_files.insert(path);
                }
            }
            // A class with class functions (`WeightsEnum.verify`), an item
            // there (an enumeration, a module) or not: the file that lowers
            // them is imported, and a class derived from it here answers
            // them too.
            let Some((defining, functions)) =
                crate::python_modules::class_functions_of(db, file, &module, &name)
            else {
                continue;
            };
            let paths: Option<Vec<String>> = defining
                .iter()
                .map(|defining| crate::python_modules::path_from(file.path(db), defining.path(db)))
                .collect();
            if let Some(paths) = paths {
                context.imported_class_functions.insert(name, functions);
                context.workspace_files.extend(paths);
            }
        }
    }
    context.promote_imported_builders();
    add_qualified_items(db, file, &mut context);
    Some(Arc::new(context))
}

/// The items reached through an imported module (`models.resnet50`), found
/// as `from torchvision.models import resnet50` would be. The lowering
/// names such an item by its own name, so one is kept only where that name
/// is unambiguous: the file neither defines nor imports it, and no other
/// chain ends in it.
fn add_qualified_items(db: &dyn Db, file: SourceFile, context: &mut ModuleContext) {
    let mut by_name: HashMap<String, Vec<String>> = HashMap::new();
    for dotted in &context.module_attributes {
        if let Some((_, name)) = dotted.rsplit_once('.') {
            by_name
                .entry(name.to_owned())
                .or_default()
                .push(dotted.clone());
        }
    }
    for (name, paths) in by_name {
        let [dotted] = paths.as_slice() else { continue };
        if context.is_item(&name) || context.import_of(&name).is_some() {
            continue;
        }
        let Some((module, _)) = dotted.rsplit_once('.') else {
            continue;
        };
        let Some(defining) = crate::python_modules::defining_file(db, file, module, &name) else {
            continue;
        };
        let Some(path) = crate::python_modules::path_from(file.path(db), defining.path(db)) else {
            continue;
        };
        context.qualified_items.insert(dotted.clone());
        context.workspace_files.insert(path);
    }
}

/// The context read off the file's own text, without looking at other
/// files: what an importing file learns of this one (reading the full
/// context of each other would loop on files that import each other).
#[salsa::tracked(returns(ref))]
pub(crate) fn plain_module_context(db: &dyn Db, file: SourceFile) -> Option<Arc<ModuleContext>> {
    match file.language(db) {
        Language::Tensor => None,
        Language::Python => Some(Arc::new(crate::top_statements::context_of_statements(
            db, file,
        ))),
    }
}

/// Where each piece is placed (see [`Layout`]).
#[salsa::tracked(returns(ref))]
pub fn layout(db: &dyn Db, file: SourceFile) -> Layout {
    let mut items = Vec::new();
    let mut script = Vec::new();
    for piece in &outline(db, file).pieces {
        match &piece.item {
            Some(head) => {
                items.extend(head.methods.iter().map(|(key, range)| ItemSpan {
                    key: key.clone(),
                    range: *range,
                }));
                items.push(ItemSpan {
                    key: head.key.clone(),
                    range: piece.range,
                });
            }
            None => script.push(piece.range),
        }
    }
    Layout::new(&items, &script, file.text(db).len())
}

/// One item, or one statement of the script, of a file.
#[salsa::tracked(debug)]
pub struct Piece<'db> {
    #[returns(copy)]
    pub file: SourceFile,
    /// The item's key (see [`tensorfit_syntax::ItemHead`]); for a
    /// statement, `#k` for the k-th statement of the script, which tells it
    /// from the others by its order (see
    /// `top_statements::numbered_heads` for why not an empty key).
    #[returns(ref)]
    pub key: String,
    #[tracked]
    #[returns(ref)]
    pub source: PieceSource,
}

/// What a piece is lowered from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PieceSource {
    /// A piece without syntax errors: its text, where it starts in the
    /// analysis's offsets, and where its methods do (offset in the text,
    /// place).
    Text {
        text: String,
        base: usize,
        places: Vec<(usize, usize)>,
        /// For a Python piece, what it needs from the rest of the file.
        context: Option<Arc<ModuleContext>>,
        /// The file's tree the piece was cut from, to lower it without
        /// parsing its text again.
        cut_from: CutFrom,
    },
    /// A piece with a syntax error, lowered from the file's tree at once
    /// (see [`tensorfit_syntax::lower_piece`] for why).
    Broken(Arc<LoweredPiece>),
}

/// The file's tree and text at the version a piece was cut from, and the
/// piece's range in them. Always equal: a piece's lowering depends on its
/// text, base, places and context alone (the tree only spares a parse), so
/// a piece whose text did not change keeps its lowering. The tree and text
/// kept are those of the version where the piece's text last changed (at
/// most one version per piece; versions share their unchanged subtrees).
#[derive(Clone)]
pub struct CutFrom {
    pub tree: crate::SyntaxTree,
    pub text: Arc<str>,
    pub range: TextRange,
}

impl PartialEq for CutFrom {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for CutFrom {}

impl std::fmt::Debug for CutFrom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CutFrom({:?})", self.range)
    }
}

/// The file's pieces, in source order.
#[salsa::tracked(returns(ref))]
pub fn pieces(db: &dyn Db, file: SourceFile) -> Vec<Piece<'_>> {
    let layout = layout(db, file);
    let text = file.text(db);
    let syntax_tree = file.tree(db);
    let tree = &syntax_tree.0;
    let context = module_context(db, file);
    let place = |at: usize| layout.place(at).unwrap_or(at);
    let mut statements = 0usize;
    outline(db, file)
        .pieces
        .iter()
        .map(|piece| {
            let start = piece.range.start as usize;
            let base = place(start);
            let places: Vec<(usize, usize)> = piece
                .item
                .iter()
                .flat_map(|head| &head.methods)
                .map(|(_, method)| {
                    let at = method.start as usize;
                    (at - start, place(at))
                })
                .collect();
            let source = if piece.broken {
                // Only Tensor pieces are marked broken: a Python piece is
                // always lowered from its own text.
                PieceSource::Broken(Arc::new(tensorfit_syntax::lower_piece_in(
                    tree,
                    text,
                    piece.range,
                    base,
                    &places,
                )))
            } else {
                PieceSource::Text {
                    text: text[piece.range.as_usize()].to_owned(),
                    base,
                    places,
                    context: context.clone(),
                    cut_from: CutFrom {
                        tree: syntax_tree.clone(),
                        text: text.clone(),
                        range: piece.range,
                    },
                }
            };
            let key = match &piece.item {
                Some(head) => head.key.clone(),
                None => {
                    statements += 1;
                    format!("#{statements}")
                }
            };
            Piece::new(db, file, key, source)
        })
        .collect()
}

/// A piece lowered: re-run only when its text or places change.
#[salsa::tracked(returns(ref))]
pub fn lowered<'db>(db: &'db dyn Db, piece: Piece<'db>) -> LoweredPiece {
    match piece.source(db) {
        PieceSource::Text {
            text,
            base,
            places,
            context,
            cut_from,
        } => crate::front_end::lower_piece_in(
            &cut_from.tree.0,
            &cut_from.text,
            cut_from.range,
            *base,
            places,
            context.as_deref(),
        )
        .unwrap_or_else(|| crate::front_end::lower_piece(text, *base, places, context.as_deref())),
        PieceSource::Broken(lowered) => LoweredPiece::clone(lowered),
    }
}

/// What a piece declares: its items without function and method bodies.
/// Equal across edits inside bodies, so that such edits do not re-run
/// other functions' analyses.
#[salsa::tracked(returns(ref))]
fn declarations<'db>(db: &'db dyn Db, piece: Piece<'db>) -> Vec<ast::Item> {
    // A Python function's body is lowered only when an analysis reads it:
    // an imported file's are mostly never read.
    if let PieceSource::Text {
        base,
        places,
        context,
        cut_from,
        ..
    } = piece.source(db)
    {
        let declared = crate::front_end::declare_function_in(
            &cut_from.tree.0,
            &cut_from.text,
            cut_from.range,
            *base,
            places,
            context.as_deref(),
        );
        if let Some(function) = declared {
            return vec![ast::Item::Function(function)];
        }
    }
    let strip = without_body;
    lowered(db, piece)
        .file
        .items
        .iter()
        .map(|item| match item {
            ast::Item::Function(f) => ast::Item::Function(strip(f)),
            ast::Item::Struct(s) => ast::Item::Struct(ast::Struct {
                methods: s.methods.iter().map(strip).collect(),
                range: TextRange::empty(s.range.start as usize),
                ..s.clone()
            }),
            other => other.clone(),
        })
        .collect()
}

/// A function as it is declared: no body, its range ending where the body
/// starts (typing in a body changes its length, which must not change the
/// declarations).
pub(crate) fn without_body(f: &ast::Function) -> ast::Function {
    ast::Function {
        body: None,
        range: match &f.body {
            Some(body) => TextRange::new(f.range.start as usize, body.range.start as usize),
            None => f.range,
        },
        ..f.clone()
    }
}

/// What an analysis may see of the file's items: everything but function
/// and method bodies (whose meaning reaches callers through summaries) and
/// the script.
#[salsa::tracked(returns(ref))]
pub fn interface(db: &dyn Db, file: SourceFile) -> ast::SourceFile {
    // A Python file's imports of workspace files are in its context, not
    // in its pieces: they become the Tensor language's file imports.
    let context = module_context(db, file).as_deref();
    let python_imports = context
        .iter()
        .flat_map(|context| context.workspace_files.iter())
        .map(|path| {
            let names = context
                .and_then(|c| c.names_by_file.get(path))
                .map(|names| names.iter().cloned().collect())
                .unwrap_or_default();
            ast::Item::Import(ast::Import {
                path: Some(path.clone()),
                names,
                path_range: TextRange::empty(0),
                range: TextRange::empty(0),
            })
        });
    ast::SourceFile {
        items: python_imports
            .chain(
                pieces(db, file)
                    .iter()
                    .flat_map(|piece| declarations(db, *piece).iter().cloned()),
            )
            .collect(),
        script: Vec::new(),
        holes: Vec::new(),
    }
}

/// The paths a file imports, as written from its directory: a Python
/// file's from its context, a Tensor file's from its declarations. Cycles
/// are looked for through every file an import reaches, so this lowers no
/// Python body (torchvision's `resnet.py` reaches 10 files; lowering
/// all of them was a quarter of its check).
#[salsa::tracked(returns(ref))]
pub(crate) fn imported_paths(db: &dyn Db, file: SourceFile) -> Vec<String> {
    if let Some(context) = module_context(db, file) {
        return context.workspace_files.iter().cloned().collect();
    }
    // They stay the same while the user types in a body of that file.
    interface(db, file)
        .items
        .iter()
        .filter_map(|item| match item {
            ast::Item::Import(ast::Import {
                path: Some(path), ..
            }) => Some(path.clone()),
            _ => None,
        })
        .collect()
}

/// Where a function or method is: its piece, the item's index in the
/// piece, and the method's index in the struct.
type FunctionPlace<'db> = (Piece<'db>, usize, Option<usize>);

/// Every function and method of the file by key (`f`, `S.m`); for a
/// repeated name, the first.
#[salsa::tracked(returns(ref))]
fn function_places(db: &dyn Db, file: SourceFile) -> HashMap<String, FunctionPlace<'_>> {
    let mut places = HashMap::new();
    let name = |n: &Option<ast::Name>| n.as_ref().map(|n| n.text.clone());
    for piece in pieces(db, file) {
        for (i, item) in declarations(db, *piece).iter().enumerate() {
            match item {
                ast::Item::Function(f) => {
                    if let Some(name) = name(&f.name) {
                        places.entry(name).or_insert((*piece, i, None));
                    }
                }
                ast::Item::Struct(s) => {
                    let Some(owner) = name(&s.name) else { continue };
                    for (m, method) in s.methods.iter().enumerate() {
                        if let Some(method) = name(&method.name) {
                            places.entry(format!("{owner}.{method}")).or_insert((
                                *piece,
                                i,
                                Some(m),
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    places
}

/// The function or method with this key, body included, at its place.
pub fn function_in(db: &dyn Db, file: SourceFile, key: &str) -> Option<ast::Function> {
    let (piece, item, method) = *function_places(db, file).get(key)?;
    match (&lowered(db, piece).file.items[item], method) {
        (ast::Item::Function(f), None) => Some(f.clone()),
        (ast::Item::Struct(s), Some(method)) => Some(s.methods[method].clone()),
        _ => None,
    }
}

/// The script body (the top-level statements), in order.
#[salsa::tracked(returns(ref))]
pub fn script(db: &dyn Db, file: SourceFile) -> Vec<ast::Stmt> {
    pieces(db, file)
        .iter()
        .flat_map(|piece| lowered(db, *piece).file.script.iter().cloned())
        .collect()
}

/// Every hole `__` of the file, in the analysis's offsets, sorted.
#[salsa::tracked(returns(ref))]
pub fn holes(db: &dyn Db, file: SourceFile) -> Vec<TextRange> {
    let mut holes: Vec<TextRange> = pieces(db, file)
        .iter()
        .flat_map(|piece| lowered(db, *piece).file.holes.iter().copied())
        .collect();
    holes.sort();
    holes
}

/// Identifiers inside unparsable text anywhere in the file.
#[salsa::tracked(returns(ref))]
fn names_in_errors(db: &dyn Db, file: SourceFile) -> BTreeSet<String> {
    let mut names = outline(db, file).names_in_errors.clone();
    for piece in pieces(db, file) {
        names.extend(lowered(db, *piece).names_in_errors.iter().cloned());
    }
    names
}

/// The imports of the file as the analysis sees them: in its offsets, and
/// each imported file by its interface, so that editing a body there does
/// not change them (the analysis takes imported functions' summaries from
/// the database: see [`crate::queries::imported_summary`]).
#[salsa::tracked(returns(ref))]
pub fn imports(db: &dyn Db, file: SourceFile) -> Imports {
    let declarations =
        |db: &dyn Db, imported: SourceFile| Arc::new(interface(db, imported).clone());
    let mut found = resolve_imports(db, file, &interface(db, file).items, &declarations);
    if file.language(db).is_python() {
        let further = crate::transitive_imports::transitive_imports(db, file, &found);
        found.extend(further);
    }
    let (resolved, files) = found.into_iter().unzip();
    Imports { resolved, files }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Imports {
    pub resolved: Vec<ResolvedImport>,
    /// The file each import loaded, in the same order.
    pub files: Vec<Option<SourceFile>>,
}

/// The names every item of the file sees, and the problems of their
/// declarations. Not compared: it changes only with the declarations.
#[salsa::tracked(returns(ref), no_eq)]
fn name_scope(db: &dyn Db, file: SourceFile) -> Scope {
    let prelude = crate::prelude(db);
    let environment = Environment::new(&prelude, &imports(db, file).resolved);
    let (scope, diagnostics) = NameScope::new(interface(db, file), environment);
    Scope(Arc::new(scope), diagnostics)
}

struct Scope(Arc<NameScope>, Vec<Diagnostic>);

/// The name checks of one item piece (the script's statements are checked
/// together, by [`script_name_diagnostics`]): the piece's names are
/// resolved (`tensorfit_semantics::resolve`) only when its text, or the
/// declarations of the file and its imports, change.
#[salsa::tracked(returns(ref))]
fn piece_name_diagnostics<'db>(db: &'db dyn Db, piece: Piece<'db>) -> Vec<Diagnostic> {
    // On Python, names are the Python server's to check (PYTHON.md §6).
    if lowered(db, piece).file.items.is_empty() || piece.file(db).language(db).is_python() {
        return Vec::new();
    }
    db.count_name_resolution();
    let file = piece.file(db);
    let items = ast::SourceFile {
        items: lowered(db, piece).file.items.clone(),
        script: Vec::new(),
        holes: Vec::new(),
    };
    tensorfit_semantics::check_names_in(
        &name_scope(db, file).0,
        &crate::prelude(db),
        &items,
        names_in_errors(db, file),
    )
}

#[salsa::tracked(returns(ref))]
fn script_name_diagnostics(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    if file.language(db).is_python() {
        return Vec::new();
    }
    db.count_name_resolution();
    let statements = ast::SourceFile {
        items: Vec::new(),
        script: script(db, file).clone(),
        holes: Vec::new(),
    };
    tensorfit_semantics::check_names_in(
        &name_scope(db, file).0,
        &crate::prelude(db),
        &statements,
        names_in_errors(db, file),
    )
}

/// The diagnostics of lowering and of the name checks, in the analysis's
/// offsets.
#[salsa::tracked(returns(ref))]
pub fn placed_diagnostics(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    let mut diagnostics = match file.language(db).is_python() {
        true => Vec::new(),
        false => name_scope(db, file).1.clone(),
    };
    for piece in pieces(db, file) {
        diagnostics.extend(lowered(db, *piece).diagnostics.iter().cloned());
        diagnostics.extend(piece_name_diagnostics(db, *piece).iter().cloned());
    }
    diagnostics.extend(script_name_diagnostics(db, file).iter().cloned());
    diagnostics
}

/// The syntax errors of the file, in text offsets.
#[salsa::tracked(returns(ref))]
pub fn syntax_diagnostics(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    crate::front_end::syntax_errors(file.language(db), &file.tree(db).0, file.text(db))
}
