//! The items an analysis can call: the file's, its imports' and the prelude's.

use std::collections::HashMap;
use std::sync::Arc;

use tensorfit_syntax::ast;

use crate::environment::Environment;
use crate::prelude::Prelude;
use crate::resolved_import::ImportOutcome;

/// A function the analysis can summarise: a user function, a method (with
/// its struct), a prelude contract, or a function a body made (a closure).
#[derive(Clone)]
pub struct FunctionRef<'a> {
    pub function: Definition<'a>,
    pub owner: Option<&'a ast::Struct>,
    /// Declared in the checked file (its ranges are this file's). A
    /// closure is not: it has no report of its own, what it finds is found
    /// where it is called.
    pub local: bool,
}

/// Where a function's definition is: an item of a file the analysis reads,
/// or the closure a value holds (made while a body ran, so not borrowed
/// from any file the analysis was given).
#[derive(Clone)]
pub enum Definition<'a> {
    Item(&'a ast::Function),
    Closure(Arc<ast::Closure>),
}

impl std::ops::Deref for Definition<'_> {
    type Target = ast::Function;

    fn deref(&self) -> &ast::Function {
        match self {
            Definition::Item(function) => function,
            Definition::Closure(closure) => &closure.function,
        }
    }
}

impl<'a> FunctionRef<'a> {
    /// An item of a file, or a method of the struct `owner`.
    pub fn item(function: &'a ast::Function, owner: Option<&'a ast::Struct>, local: bool) -> Self {
        FunctionRef {
            function: Definition::Item(function),
            owner,
            local,
        }
    }

    /// `name`, or `Struct.name` for a method; a closure's name (Python's
    /// qualified name, `make.<locals>.<lambda>`) with where it starts, as
    /// one function may make several of one name.
    pub fn key(&self) -> String {
        let name = self
            .function
            .name
            .as_ref()
            .map(|n| n.text.as_str())
            .unwrap_or("?");
        if let Definition::Closure(closure) = &self.function {
            return closure_key(name, closure.function.range.start);
        }
        match self.owner.and_then(|s| s.name.as_ref()) {
            Some(owner) => format!("{}.{name}", owner.text),
            None => name.to_owned(),
        }
    }

    /// Whether it is a closure (see [`Definition::Closure`]).
    pub fn is_closure(&self) -> bool {
        matches!(self.function, Definition::Closure(_))
    }
}

/// The key of a closure named `name` that starts at `start`.
fn closure_key(name: &str, start: u32) -> String {
    format!("{name}{CLOSURE_AT}{start}")
}

/// Between a closure's name and its offset in its key.
const CLOSURE_AT: &str = "@";

/// A closure's key as a message names it: without its offset.
pub fn closure_name(key: &str) -> &str {
    match key.rsplit_once(CLOSURE_AT) {
        // No function or method name holds `@`.
        Some((name, offset)) if offset.parse::<u32>().is_ok() => name,
        _ => key,
    }
}

/// In a closure's qualified name, after the function that makes it (as
/// Python's `__qualname__` writes it).
pub const CLOSURE_SCOPE: &str = ".<locals>.";

/// Where a file's items are, by name (the last declaration of a name
/// wins). Built once per file and shared, so that analysing each of many
/// functions does not index the whole file again.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ItemIndex {
    functions: HashMap<String, usize>,
    structs: HashMap<String, usize>,
    consts: HashMap<String, usize>,
}

impl ItemIndex {
    pub fn new(file: &ast::SourceFile) -> ItemIndex {
        let mut index = ItemIndex::default();
        for (i, item) in file.items.iter().enumerate() {
            let (map, name) = match item {
                ast::Item::Function(f) => (&mut index.functions, &f.name),
                ast::Item::Struct(s) => (&mut index.structs, &s.name),
                ast::Item::Const(c) => (&mut index.consts, &c.name),
                ast::Item::Import(_) => continue,
            };
            if let Some(name) = name {
                map.insert(name.text.clone(), i);
            }
        }
        index
    }
}

/// The items of one file with their index.
struct Indexed<'a> {
    file: &'a ast::SourceFile,
    index: Arc<ItemIndex>,
    local: bool,
    /// For an imported file, its place among the imports given.
    import: Option<usize>,
    /// The names the checked file imports from it by name.
    names: &'a [String],
}

/// What an analysis can call and name: the checked file's items, its
/// imports' (shadowed by the file's own) and the prelude's.
pub struct Program<'a> {
    /// The checked file first, then the imports, last import first.
    files: Vec<Indexed<'a>>,
    /// The function being analysed with its body, when the checked file
    /// has bodies stripped (the database's interface): its key and body.
    with_body: Option<(&'a str, &'a ast::Function)>,
    prelude: &'a Prelude,
}

impl<'a> Program<'a> {
    pub fn new(file: &'a ast::SourceFile, environment: Environment<'a>) -> Program<'a> {
        Program::indexed(file, Arc::new(ItemIndex::new(file)), environment, None)
    }

    /// A program over a file already indexed; `with_body` gives the body
    /// of the function `key` when `file` has bodies stripped.
    pub fn indexed(
        file: &'a ast::SourceFile,
        index: Arc<ItemIndex>,
        environment: Environment<'a>,
        with_body: Option<(&'a str, &'a ast::Function)>,
    ) -> Program<'a> {
        let mut files = vec![Indexed {
            file,
            index,
            local: true,
            import: None,
            names: &[],
        }];
        for (i, import) in environment.imports.iter().enumerate().rev() {
            if let ImportOutcome::Loaded(imported) = &import.outcome {
                files.push(Indexed {
                    file: imported,
                    index: Arc::new(ItemIndex::new(imported)),
                    local: false,
                    import: Some(i),
                    names: &import.names,
                });
            }
        }
        Program {
            files,
            with_body,
            prelude: environment.prelude,
        }
    }

    /// The files `name` is looked up in, in order: the checked file, the
    /// imports it takes `name` from by name, then the other imports (last
    /// import first). A flat search would let another imported file's item
    /// of the same name answer the file's own `from m import name`.
    fn search_order<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'s Indexed<'a>> {
        let named = move |f: &&Indexed<'a>| f.names.iter().any(|n| n == name);
        let local = self.files.iter().filter(|f| f.local);
        let imported = self.files.iter().filter(|f| !f.local);
        local
            .chain(imported.clone().filter(named))
            .chain(imported.filter(move |f| !named(f)))
    }

    /// The body-carrying definition of `key` if it is the analysed one.
    fn body_of(&self, key: &str, function: &'a ast::Function) -> &'a ast::Function {
        match self.with_body {
            Some((with_key, definition)) if with_key == key => definition,
            _ => function,
        }
    }

    /// The function `name` (not a method).
    pub fn function(&self, name: &str) -> Option<FunctionRef<'a>> {
        self.search_order(name).find_map(|f| {
            let i = *f.index.functions.get(name)?;
            let ast::Item::Function(function) = &f.file.items[i] else {
                return None;
            };
            let function = if f.local {
                self.body_of(name, function)
            } else {
                function
            };
            Some(FunctionRef::item(function, None, f.local))
        })
    }

    /// The struct `name`, and whether the checked file declares it.
    pub fn struct_def(&self, name: &str) -> Option<(&'a ast::Struct, bool)> {
        self.search_order(name).find_map(|f| {
            let i = *f.index.structs.get(name)?;
            match &f.file.items[i] {
                ast::Item::Struct(s) => Some((s, f.local)),
                _ => None,
            }
        })
    }

    /// The module-level constant `name`.
    pub fn constant(&self, name: &str) -> Option<&'a ast::Const> {
        self.search_order(name).find_map(|f| {
            let i = *f.index.consts.get(name)?;
            match &f.file.items[i] {
                ast::Item::Const(c) => Some(c),
                _ => None,
            }
        })
    }

    /// The prelude operation `name`.
    pub fn prelude_op(&self, name: &str) -> Option<&'a ast::Function> {
        self.prelude.function(name)
    }

    /// Whether `name` is the prelude's operation: the prelude has it and no
    /// function or struct of the program takes the name.
    pub fn names_prelude_op(&self, name: &str) -> bool {
        self.function(name).is_none()
            && self.struct_def(name).is_none()
            && self.prelude_op(name).is_some()
    }

    pub fn method(&self, struct_name: &str, method: &str) -> Option<FunctionRef<'a>> {
        let (owner, local) = self.struct_def(struct_name)?;
        let function = owner
            .methods
            .iter()
            .find(|m| m.name.as_ref().is_some_and(|n| n.text == method))?;
        let function = match local {
            true => self.body_of(&format!("{struct_name}.{method}"), function),
            false => function,
        };
        Some(FunctionRef::item(function, Some(owner), local))
    }

    /// The function or method with this key (see [`FunctionRef::key`]).
    pub fn by_key(&self, key: &str) -> Option<FunctionRef<'a>> {
        match key.split_once('.') {
            Some((owner, method)) => self.method(owner, method),
            None => self.function(key),
        }
    }

    /// Which of the imports given declares `function` (`None`: the checked
    /// file, or the prelude).
    pub fn import_of(&self, function: &FunctionRef<'a>) -> Option<usize> {
        let key = function.key();
        let owner_or_name = key.split_once('.').map_or(key.as_str(), |(owner, _)| owner);
        let declaring = self.files.iter().find(|f| match function.owner {
            Some(_) => f.index.structs.contains_key(owner_or_name),
            None => f.index.functions.contains_key(owner_or_name),
        })?;
        // A prelude contract may share its name with an imported function.
        let found = self.by_key(&key)?;
        std::ptr::eq(&*found.function, &*function.function)
            .then_some(declaring.import)
            .flatten()
    }

    /// Whether the function or method with this key (see [`FunctionRef::key`])
    /// is declared in the checked file, so that its ranges are this file's.
    pub fn is_local(&self, key: &str) -> bool {
        // A closure's ranges are those of the function that makes it; one
        // a script makes may be an imported module's.
        if closure_name(key) != key {
            return match closure_name(key).split_once(CLOSURE_SCOPE) {
                Some((maker, _)) => self.is_local(maker),
                None => false,
            };
        }
        match key.split_once('.') {
            Some((owner, _)) => self.struct_def(owner).is_some_and(|(_, local)| local),
            None => self.function(key).is_some_and(|f| f.local),
        }
    }

    /// Every function and method of the checked file, in source order.
    pub fn local_entry_points(file: &'a ast::SourceFile) -> Vec<FunctionRef<'a>> {
        let mut entries = Vec::new();
        for item in &file.items {
            match item {
                ast::Item::Function(f) if !f.is_extern => {
                    entries.push(FunctionRef::item(f, None, true))
                }
                ast::Item::Struct(s) => {
                    for m in &s.methods {
                        entries.push(FunctionRef::item(m, Some(s), true));
                    }
                }
                _ => {}
            }
        }
        entries
    }
}
