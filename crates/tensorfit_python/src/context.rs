//! What every piece of a Python file needs to know about the rest of it:
//! the names its imports bind, and the names its top level defines.
//!
//! Pieces are lowered one by one (see the crate's docs), but what
//! `nn.Linear` or `Block` means depends on the imports and definitions
//! elsewhere in the file. This table is read off the tree's top level only,
//! so it is cheap to make at every edit and equal across edits that touch
//! no import or top-level name.

use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::{Node, Tree};

use crate::class_functions::{
    is_classmethod, own_class_functions, qualified, ClassFunctions, OwnClassFunctions,
    MAX_BASE_DEPTH,
};
use crate::lower::syntax::{
    child_by_field, decorators, definition_of, descendants_with_parents, is_field, named_children,
    text_of, Placed,
};

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ModuleContext {
    /// Each name an import binds, with the dotted path it stands for:
    /// `nn` → `torch.nn`, `F` → `torch.nn.functional`, `Conv2d` →
    /// `torch.nn.Conv2d`, `Bottleneck` → `.blocks.Bottleneck`.
    pub imported: BTreeMap<String, String>,
    /// Functions defined at the top level.
    pub functions: BTreeSet<String>,
    /// Classes that are modules (`nn.Module` or another module class among
    /// their bases), lowered to structs.
    pub modules: BTreeSet<String>,
    /// Module classes that only build an `nn.Sequential` (their bases lead
    /// to it, and `__init__` is their only method: torchvision's
    /// `Conv2dNormActivation`), with the base each `super().__init__`
    /// calls: lowered to functions that return the `nn.Sequential` (see
    /// `lower::sequential_builder`). They are in `functions`, not
    /// `modules`.
    pub sequential_builders: BTreeMap<String, String>,
    /// Classes that would be Sequential builders if their base, imported
    /// from another file, is a class or function there (ViT's
    /// `MLPBlock(MLP)`): the database promotes them once it knows
    /// ([`Self::promote_imported_builders`]). A base that is a plain module
    /// class there is then what the class's instances are, with the
    /// attributes its `__init__` sets.
    pub imported_builder_candidates: BTreeMap<String, String>,
    /// Other classes without bases (config objects, dataclasses), or
    /// derived from one of those, lowered to structs too.
    pub classes: BTreeSet<String>,
    /// Classes derived from another struct class of the file, with that
    /// base: their `super().__init__(...)` makes the base's instance, whose
    /// members and methods the class's own do not hide (see
    /// `crate::inheritance`).
    pub inherits: BTreeMap<String, String>,
    /// Top-level names assigned once, to a value made of literals and other
    /// such constants: lowered to constants that functions can read, as
    /// Python functions read module globals.
    pub constants: BTreeSet<String>,
    /// Every other name assigned at the top level (the script's variables).
    pub script_names: BTreeSet<String>,
    /// Top-level names a function of the file may change whenever it
    /// runs (`REGISTRY[name] = cls` in a decorator), with why: the script
    /// reads them as unknown (`crate::changed_names`).
    pub changed_elsewhere: BTreeMap<String, String>,
    /// The script's names that share a value with another
    /// (`crate::changed_names::Alias`), and those a change through
    /// another name may forget.
    pub(crate) script_aliases: Vec<crate::changed_names::Alias>,
    pub(crate) script_changed_through_aliases: BTreeSet<String>,
    /// Attributes the file assigns on an object other than `self`
    /// (`m.bias = ...`; `lower::init::attributes_set_on_others`).
    pub(crate) attributes_set_on_others: BTreeSet<String>,
    /// Names imported from the workspace's own files that those files
    /// define (`from .blocks import Bottleneck`): filled in by the
    /// database, which can look at other files ([`Self::modules_imported_from`]).
    pub workspace_items: BTreeSet<String>,
    /// The files those names come from, as paths relative to this file's
    /// directory (`blocks.py`, `../models/resnet.py`).
    pub workspace_files: BTreeSet<String>,
    /// For each of those files, the names this file imports from it by
    /// name: they are found there first, whatever the other files define
    /// (two packages' `data_utils.py` may both define `gen_config_yaml`).
    pub names_by_file: BTreeMap<String, BTreeSet<String>>,
    /// The modules imported with `from module import *`, whose names the
    /// database follows when another file imports them through this one
    /// (`torchvision/models/__init__.py` re-exports every builder so).
    pub star_imports: BTreeSet<String>,
    /// Attribute chains through an imported module that may name an item
    /// of another file (`models.resnet50` → `torchvision.models.resnet50`
    /// after `import torchvision.models as models`), resolved: for the
    /// database to look up as `from torchvision.models import resnet50`.
    pub module_attributes: BTreeSet<String>,
    /// Those the database found defined in a file it reads: the lowering
    /// names them by their own (last) name, as that file's items.
    pub qualified_items: BTreeSet<String>,
    /// Each top-level class's bases as written (`WeightsEnum`, `nn.Module`).
    pub class_bases: BTreeMap<String, Vec<String>>,
    /// The class functions each class of the file defines in its own body
    /// (see [`crate::class_functions`]).
    pub own_class_functions: OwnClassFunctions,
    /// Which of them are class methods, by their lowered name
    /// (`BlockParams::from_init_params`): a call through the class passes
    /// the class ([`tensorfit_syntax::ast::CLASS_ARGUMENT`]).
    pub own_class_methods: BTreeSet<String>,
    /// Those that classes imported from files the database reads answer,
    /// by the imported name: filled in by the database.
    pub imported_class_functions: BTreeMap<String, ClassFunctions>,
}

/// How many attribute chains through imported modules a file's context
/// keeps: a model file names a few dozen.
const MAX_MODULE_ATTRIBUTES: usize = 256;

/// How many directories above a file an absolute import (`from
/// models.resnet import ResNet`) is looked for: the project's root is
/// rarely further up.
const MAX_PACKAGE_DEPTH: usize = 4;

impl ModuleContext {
    /// The dotted path an imported name stands for.
    pub fn import_of(&self, name: &str) -> Option<&str> {
        self.imported.get(name).map(String::as_str)
    }

    /// Whether any import reaches into PyTorch.
    pub fn imports_torch(&self) -> bool {
        self.imported
            .values()
            .any(|path| path == "torch" || path.starts_with("torch."))
    }

    /// Whether `name` is a top-level definition of the file (or one it
    /// imports from the workspace) that the lowered tree keeps under its
    /// own name.
    pub fn is_item(&self, name: &str) -> bool {
        self.defines(name) || self.workspace_items.contains(name)
    }

    /// Whether the file itself defines `name` at its top level as a
    /// function, a class or a constant.
    pub fn defines(&self, name: &str) -> bool {
        self.functions.contains(name)
            || self.modules.contains(name)
            || self.classes.contains(name)
            || self.constants.contains(name)
    }

    /// The function that answers `class.method` called through the class
    /// (`ResNet50_Weights.verify`): see [`Self::class_functions`].
    pub fn class_function(&self, class: &str, method: &str) -> Option<String> {
        self.class_functions(class).remove(method)
    }

    /// Every class function `class` answers, each by the function that
    /// answers it: the class's own, then along its bases in order (the
    /// nearest definition wins, as Python's method resolution mostly
    /// gives), those of a base imported from another file as that file
    /// resolved them.
    pub fn class_functions(&self, class: &str) -> ClassFunctions {
        let mut functions = ClassFunctions::new();
        let mut pending = vec![(class, 0)];
        while let Some((class, depth)) = pending.pop() {
            for method in self.own_class_functions.get(class).into_iter().flatten() {
                functions
                    .entry(method.clone())
                    .or_insert_with(|| qualified(class, method));
            }
            for (method, function) in self
                .imported_class_functions
                .get(class)
                .into_iter()
                .flatten()
            {
                functions
                    .entry(method.clone())
                    .or_insert_with(|| function.clone());
            }
            if depth < MAX_BASE_DEPTH {
                // Bases are searched in order: push them reversed.
                for base in self.class_bases.get(class).into_iter().flatten().rev() {
                    pending.push((base, depth + 1));
                }
            }
        }
        functions
    }

    /// Once [`Self::workspace_items`] is known: the candidates whose base
    /// is an item of another file become Sequential builders (functions
    /// that return what the base's call makes).
    pub fn promote_imported_builders(&mut self) {
        let promoted: Vec<(String, String)> = self
            .imported_builder_candidates
            .iter()
            .filter(|(_, base)| self.workspace_items.contains(*base))
            .map(|(name, base)| (name.clone(), base.clone()))
            .collect();
        for (name, base) in promoted {
            self.modules.remove(&name);
            self.inherits.remove(&name);
            self.functions.insert(name.clone());
            self.sequential_builders.insert(name, base);
        }
    }

    /// The modules the file imports names from (`from .blocks import
    /// Bottleneck, conv3x3` gives `.blocks` with both names; a name
    /// imported `as` another by its own), for the database to look for in
    /// the workspace. `from . import x` (a module, not a name) is left out.
    pub fn modules_imported_from(&self) -> BTreeMap<String, Vec<String>> {
        let mut modules: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (alias, path) in &self.imported {
            let Some((module, name)) = path.rsplit_once('.') else {
                continue;
            };
            let names_a_module = module.trim_start_matches('.').is_empty();
            if names_a_module || self.looked_up_name(alias).is_none() {
                continue;
            }
            modules
                .entry(module.to_owned())
                .or_default()
                .push(name.to_owned());
        }
        modules
    }

    /// The item of another file an imported name stands for under a name
    /// of its own (`from ..ops.misc import SqueezeExcitation as SElayer`):
    /// `SqueezeExcitation`, which the lowering names it by.
    pub fn renamed_item(&self, alias: &str) -> Option<&str> {
        self.looked_up_name(alias)
            .filter(|name| *name != alias && self.workspace_items.contains(*name))
    }

    /// The name an imported name is looked up by in its file: its own, or
    /// for `import X as Y` `X`, where nothing else of this file is named
    /// `X` and no other import brings another `X` (detectron2's
    /// `LVIS_CATEGORIES as LVIS_V0_5_CATEGORIES` beside `LVIS_CATEGORIES
    /// as LVIS_V1_CATEGORIES`, which would both name one of them). `None`
    /// where the file defines the name itself.
    fn looked_up_name(&self, alias: &str) -> Option<&str> {
        let path = self.imported.get(alias)?;
        let (_, name) = path.rsplit_once('.')?;
        let other = self.imported.get(name).is_some_and(|p| p != path);
        let same_name_elsewhere = self.imported.iter().any(|(a, p)| {
            a != alias && p != path && p.rsplit_once('.').is_some_and(|(_, n)| n == name)
        });
        let hidden = name != alias && (self.defines(name) || other || same_name_elsewhere);
        (!hidden && !self.defines(alias)).then_some(name)
    }
}

/// The files a module may be, relative to the importing file's directory,
/// in the order Python would find them: `.blocks` is `blocks.py` or
/// `blocks/__init__.py`; `..a.b` is `../a/b.py`; an absolute `models.resnet`
/// is looked for in this directory and the few above it, unless tensorfit
/// models it ([`is_modelled_module`]: `torch.nn` inside torch's own tree).
pub fn module_candidates(module: &str) -> Vec<String> {
    let Some((dots, path)) = module_path(module) else {
        return Vec::new();
    };
    let ups: Vec<usize> = match dots {
        0 => (0..=MAX_PACKAGE_DEPTH).collect(),
        n => vec![n - 1],
    };
    ups.into_iter()
        .flat_map(|up| files_of(&"../".repeat(up), &path))
        .collect()
}

/// The files an absolute module may be below a search path (a
/// site-packages directory): `torchvision.models` is
/// `torchvision/models.py` or `torchvision/models/__init__.py`. None for a
/// relative module, which only its importer's package has, and for the
/// modules tensorfit models itself ([`is_modelled_module`]).
pub fn package_candidates(module: &str) -> Vec<String> {
    match module_path(module) {
        Some((0, path)) => files_of("", &path).to_vec(),
        _ => Vec::new(),
    }
}

/// A module's leading dots and its path (`..a.b` is `(2, "a/b")`); `None`
/// for a malformed name or an absolute module tensorfit models itself.
fn module_path(module: &str) -> Option<(usize, String)> {
    let dots = module.len() - module.trim_start_matches('.').len();
    if dots == 0 && is_modelled_module(module) {
        return None;
    }
    let segments: Vec<&str> = module[dots..].split('.').collect();
    if segments.iter().any(|s| s.is_empty()) {
        return None;
    }
    Some((dots, segments.join("/")))
}

/// A module's file and its package's `__init__.py`, below `prefix`.
fn files_of(prefix: &str, path: &str) -> [String; 2] {
    [
        format!("{prefix}{path}.py"),
        format!("{prefix}{path}/__init__.py"),
    ]
}

/// Whether names imported from `module` mean what the operation table
/// says (`torch.nn.functional.relu` is the prelude's `relu`, not the
/// Python function of that name in an installed torch): such modules are
/// never read from a search path.
pub fn is_modelled_module(module: &str) -> bool {
    let package = module.split('.').next().unwrap_or(module);
    MODELLED_PACKAGES.contains(&package)
}

/// The packages whose names the front end resolves itself
/// (`torch_names`, the lowering of `partial`, dataclasses and jaxtyping).
const MODELLED_PACKAGES: &[&str] = &[
    "torch",
    "jaxtyping",
    "math",
    "functools",
    "dataclasses",
    "collections",
    "typing",
    "numpy",
];

/// The relative modules the file's top-level imports name (`._api`,
/// `..transforms._presets`, `.functional`), each imported name's module
/// and the name itself as a module (`from . import functional`), read off
/// the import statements alone: what a worker parses ahead
/// (`tensorfit_db`'s prefetch) before the module context is made.
pub fn relative_imports(tree: &Tree, text: &str) -> Vec<String> {
    let mut imported = BTreeMap::new();
    for node in named_children(tree.root_node()) {
        collect_imports(node, text, &mut imported);
    }
    let mut modules: Vec<String> = Vec::new();
    for path in imported.into_values().filter(|p| p.starts_with('.')) {
        let parent = path
            .rsplit_once('.')
            .map(|(module, _)| module.to_owned())
            .filter(|module| !module.trim_start_matches('.').is_empty());
        for module in parent.into_iter().chain([path]) {
            if !modules.contains(&module) {
                modules.push(module);
            }
        }
    }
    modules
}

/// The context of a parsed file.
pub fn module_context(tree: &Tree, text: &str) -> ModuleContext {
    let mut context = ModuleContext::default();
    let root = tree.root_node();
    let top: Vec<Node<'_>> = named_children(root);
    // Classes first: a module class may derive from one defined below it.
    let mut classes: Vec<(String, Vec<String>, Node<'_>)> = Vec::new();
    let mut assigned: BTreeMap<String, (usize, bool)> = BTreeMap::new();
    for node in &top {
        collect_imports(*node, text, &mut context.imported);
        if let Some(module) = star_import(*node, text) {
            context.star_imports.insert(module);
        }
        let definition = definition_of(*node);
        match (definition.kind(), child_by_field(definition, "name")) {
            ("function_definition", Some(name)) => {
                context.functions.insert(text_of(name, text).to_owned());
            }
            ("class_definition", Some(name)) => {
                classes.push((
                    text_of(name, text).to_owned(),
                    bases(definition, text),
                    definition,
                ));
            }
            _ => {}
        }
        if node.kind() == "expression_statement" {
            for statement in named_children(*node) {
                if statement.kind() == "assignment" {
                    count_assignment(statement, text, &mut assigned);
                }
            }
        } else if is_compound_statement(node.kind()) {
            // A name assigned in an `if` or a loop of the script is a
            // variable of the script, never a constant.
            for name in crate::lower::locals::locals_of_statement(*node, text) {
                let entry = assigned.entry(name).or_insert((0, false));
                entry.0 += 1;
                entry.1 = false;
            }
        }
    }
    // A name a function declares `global` may be assigned whenever that
    // function runs: never a constant (detectron2's `_LOCAL_PROCESS_GROUP
    // = None`, set by `create_local_process_group`).
    // One walk finds them, the attribute chains (`module_attributes`), the
    // assignments (`attributes_set_on_others`), the functions and lambdas
    // (`changed_elsewhere`) and the lists and dicts used other than by
    // reading an item (below).
    let containers = container_constants(&top, text);
    let mut globals = Vec::new();
    let mut attributes = Vec::new();
    let mut assignments = Vec::new();
    let mut functions = Vec::new();
    let mut used_otherwise = BTreeSet::new();
    for placed in descendants_with_parents(root) {
        match placed.node.kind() {
            "global_statement" => globals.push(placed.node),
            "attribute" => attributes.push(placed.node),
            "assignment" => assignments.push(placed.node),
            "function_definition" | "lambda" => functions.push(placed.node),
            "identifier" if !containers.is_empty() => {
                let name = text_of(placed.node, text);
                if containers.contains(name) && !only_reads_an_item(placed) {
                    used_otherwise.insert(name.to_owned());
                }
            }
            _ => {}
        }
    }
    for statement in globals {
        for name in named_children(statement) {
            let entry = assigned
                .entry(text_of(name, text).to_owned())
                .or_insert((0, false));
            entry.0 += 1;
            entry.1 = false;
        }
    }
    // A class is a module if a base is `torch.nn.Module` (or any layer of
    // `torch.nn`), or a module class of the file: repeat until no change.
    loop {
        let before = context.modules.len();
        for (name, bases, _) in &classes {
            let is_module = bases.iter().any(|base| {
                let resolved = resolve_dotted(base, &context.imported);
                resolved.starts_with("torch.nn.") || context.modules.contains(base)
            });
            if is_module {
                context.modules.insert(name.clone());
            }
        }
        if context.modules.len() == before {
            break;
        }
    }
    for (name, bases, _) in &classes {
        let plain = bases.iter().all(|b| b == "object");
        if plain && !context.modules.contains(name) {
            context.classes.insert(name.clone());
        }
    }
    // Sequential builders, bases first.
    loop {
        let before = context.sequential_builders.len();
        for (name, bases, class) in &classes {
            if context.sequential_builders.contains_key(name) {
                continue;
            }
            let [base] = bases.as_slice() else { continue };
            let path = resolve_dotted(base, &context.imported);
            let builds_sequential =
                path == "torch.nn.Sequential" || context.sequential_builders.contains_key(base);
            if builds_sequential && only_init(*class, text) {
                context
                    .sequential_builders
                    .insert(name.clone(), base.clone());
            }
            let imported_class = context.imported.contains_key(base)
                && path != "torch"
                && !path.starts_with("torch.");
            // The base's own code may read what the class sets before
            // `super().__init__` or as a class attribute: not followed.
            if imported_class && only_init(*class, text) && !sets_what_base_reads(*class, text) {
                context
                    .imported_builder_candidates
                    .insert(name.clone(), base.clone());
            }
        }
        if context.sequential_builders.len() == before {
            break;
        }
    }
    for name in context.sequential_builders.keys() {
        context.modules.remove(name);
        context.functions.insert(name.clone());
    }
    crate::inheritance::find_inheritance(&classes, text, &mut context);
    for (name, bases, class) in classes {
        let functions = own_class_functions(class, text);
        for (method, member) in &functions {
            if is_classmethod(&decorators(*member, text)) {
                context.own_class_methods.insert(qualified(&name, method));
            }
        }
        let own: BTreeSet<String> = functions.into_iter().map(|(method, _)| method).collect();
        if !own.is_empty() {
            context.own_class_functions.insert(name.clone(), own);
        }
        if !bases.is_empty() {
            context.class_bases.insert(name, bases);
        }
    }
    // A value changed through another name (`lst = store["a"];
    // lst.append(2)`) is no constant either.
    context.script_changed_through_aliases =
        crate::changed_names::changed_through_aliases(root, text);
    // A list or dict is a constant only while nothing can change it in
    // place: every use of its name reads an item (`cfgs["A"]`).
    for (name, (count, constant)) in assigned {
        let unchanged = || !used_otherwise.contains(&name);
        let shared = context.script_changed_through_aliases.contains(&name);
        if count == 1 && constant && !context.is_item(&name) && unchanged() && !shared {
            context.constants.insert(name);
        } else {
            context.script_names.insert(name);
        }
    }
    context.module_attributes = module_attributes(&attributes, text, &context.imported);
    context.changed_elsewhere =
        crate::changed_names::with_why(crate::changed_names::changed_by_functions(
            functions,
            text,
            crate::changed_names::MODULE_FUNCTION_CHANGES,
        ));
    context.script_aliases = crate::changed_names::aliases_of(root, text);
    context.attributes_set_on_others =
        crate::lower::init::attributes_set_on_others(&assignments, text);
    context
}

/// The attribute chains of the file (`attributes`, every `attribute` node)
/// rooted at an imported name (`models.resnet50`), resolved through the
/// imports, but for the modules tensorfit models itself.
fn module_attributes(
    attributes: &[Node<'_>],
    text: &str,
    imported: &BTreeMap<String, String>,
) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for &node in attributes {
        if found.len() >= MAX_MODULE_ATTRIBUTES {
            break;
        }
        let chain = text_of(node, text);
        let simple = chain
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.');
        let root_name = chain.split('.').next().unwrap_or(chain);
        if simple && imported.contains_key(root_name) {
            let path = resolve_dotted(chain, imported);
            if !is_modelled_module(&path) {
                found.insert(path);
            }
        }
    }
    found
}

/// `nn.Module` → `torch.nn.Module` through the imports.
pub(crate) fn resolve_dotted(dotted: &str, imported: &BTreeMap<String, String>) -> String {
    let (head, rest) = match dotted.split_once('.') {
        Some((head, rest)) => (head, Some(rest)),
        None => (dotted, None),
    };
    match (imported.get(head), rest) {
        (Some(path), Some(rest)) => format!("{path}.{rest}"),
        (Some(path), None) => path.clone(),
        (None, _) => dotted.to_owned(),
    }
}

fn bases(class: Node<'_>, text: &str) -> Vec<String> {
    let Some(list) = child_by_field(class, "superclasses") else {
        return Vec::new();
    };
    named_children(list)
        .into_iter()
        .filter(|b| matches!(b.kind(), "identifier" | "attribute"))
        .map(|b| dotted(b, text))
        .collect()
}

fn collect_imports(node: Node<'_>, text: &str, imported: &mut BTreeMap<String, String>) {
    match node.kind() {
        // `import torch`, `import torch.nn as nn`, `import torch.nn` (binds
        // `torch`).
        "import_statement" => {
            for name in named_children(node) {
                match name.kind() {
                    "dotted_name" => {
                        let dotted = text_of(name, text);
                        let head = dotted.split('.').next().unwrap_or(dotted).trim();
                        imported.insert(head.to_owned(), head.to_owned());
                    }
                    "aliased_import" => {
                        if let (Some(path), Some(alias)) =
                            (child_by_field(name, "name"), child_by_field(name, "alias"))
                        {
                            imported.insert(text_of(alias, text).to_owned(), dotted(path, text));
                        }
                    }
                    _ => {}
                }
            }
        }
        // `from torch import nn`, `from torch.nn import functional as F`,
        // `from .blocks import Bottleneck`.
        "import_from_statement" => {
            let Some(module) = child_by_field(node, "module_name") else {
                return;
            };
            let module = dotted(module, text);
            let mut cursor = node.walk();
            for name in node.children_by_field_name("name", &mut cursor) {
                let (path, alias) = match name.kind() {
                    "aliased_import" => {
                        match (child_by_field(name, "name"), child_by_field(name, "alias")) {
                            (Some(path), Some(alias)) => (dotted(path, text), text_of(alias, text)),
                            _ => continue,
                        }
                    }
                    _ => (dotted(name, text), text_of(name, text)),
                };
                let separator = if module.ends_with('.') { "" } else { "." };
                imported.insert(alias.to_owned(), format!("{module}{separator}{path}"));
            }
        }
        _ => {}
    }
}

/// The module of `from module import *`.
fn star_import(node: Node<'_>, text: &str) -> Option<String> {
    if node.kind() != "import_from_statement" {
        return None;
    }
    let mut cursor = node.walk();
    let star = node
        .children(&mut cursor)
        .any(|child| child.kind() == "wildcard_import");
    star.then(|| child_by_field(node, "module_name").map(|m| dotted(m, text)))?
}

fn dotted(node: Node<'_>, text: &str) -> String {
    text_of(node, text)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

/// Whether a class body defines `__init__` and nothing else but a
/// docstring: no other method, no class attribute.
fn only_init(class: Node<'_>, text: &str) -> bool {
    let Some(body) = child_by_field(class, "body") else {
        return false;
    };
    let mut has_init = false;
    for member in named_children(body) {
        let definition = definition_of(member);
        match definition.kind() {
            "function_definition" => {
                let name = child_by_field(definition, "name").map(|n| text_of(n, text));
                // A hook that only renames the checkpoint's keys (ViT's
                // `MLPBlock`) changes no layer.
                if name == Some("_load_from_state_dict") && !changes_self(definition, text) {
                    continue;
                }
                if name != Some("__init__") || member.kind() == "decorated_definition" {
                    return false;
                }
                has_init = true;
            }
            // A docstring, or a class attribute of a literal value
            // (`_version = 2`, which only `state_dict` reads).
            "expression_statement"
                if named_children(member).iter().all(|c| {
                    matches!(c.kind(), "string" | "concatenated_string")
                        || (c.kind() == "assignment"
                            && child_by_field(*c, "right").is_some_and(|r| {
                                matches!(
                                    r.kind(),
                                    "integer" | "float" | "string" | "true" | "false" | "none"
                                )
                            }))
                }) => {}
            _ => return false,
        }
    }
    has_init
}

/// Whether a class gives itself a class attribute (but `_version`, which
/// only `state_dict` reads) or uses `self` before its
/// `super().__init__(...)`: its base's code would read what it sets.
fn sets_what_base_reads(class: Node<'_>, text: &str) -> bool {
    let Some(body) = child_by_field(class, "body") else {
        return false;
    };
    let members = named_children(body);
    let attribute = members.iter().any(|member| {
        named_children(*member).into_iter().any(|c| {
            c.kind() == "assignment"
                && child_by_field(c, "left").is_some_and(|l| text_of(l, text) != "_version")
        })
    });
    let Some(init) = crate::lower::syntax::init_method(class, text) else {
        return attribute;
    };
    let mut before_super = child_by_field(init, "body")
        .map(named_children)
        .unwrap_or_default()
        .into_iter()
        .take_while(|statement| !text_of(*statement, text).contains("super().__init__"));
    attribute || before_super.any(|statement| uses_self(init, statement, text))
}

/// Whether a method uses its `self` at all, but as its parameter (a
/// state-dict hook that only renames keys calls `super()...`).
fn changes_self(method: Node<'_>, text: &str) -> bool {
    child_by_field(method, "body").is_none_or(|body| uses_self(method, body, text))
}

/// Whether `self` (the first parameter of `method`) is used in `node`.
fn uses_self(method: Node<'_>, node: Node<'_>, text: &str) -> bool {
    match crate::lower::syntax::first_parameter(method, text) {
        Some(self_name) => crate::lower::syntax::uses_of(node, self_name, text)
            .next()
            .is_some(),
        None => true,
    }
}

/// The statements that hold blocks of their own (a class or a function
/// is an item, not a statement).
pub(crate) fn is_compound_statement(kind: &str) -> bool {
    matches!(
        kind,
        "if_statement" | "for_statement" | "while_statement" | "with_statement" | "try_statement"
    )
}

/// Counts a top-level `name = value`, and whether the value is a constant
/// (literals and arithmetic only).
fn count_assignment(node: Node<'_>, text: &str, assigned: &mut BTreeMap<String, (usize, bool)>) {
    let Some(left) = child_by_field(node, "left") else {
        return;
    };
    let constant = child_by_field(node, "right").is_some_and(is_constant);
    if left.kind() == "identifier" {
        let entry = assigned
            .entry(text_of(left, text).to_owned())
            .or_insert((0, constant));
        entry.0 += 1;
        entry.1 &= constant;
    } else {
        for name in crate::lower::locals::pattern_names(left, text) {
            let entry = assigned.entry(name).or_insert((0, false));
            entry.0 += 1;
            entry.1 = false;
        }
    }
}

/// The top-level names assigned a list or dict literal.
fn container_constants(top: &[Node<'_>], text: &str) -> BTreeSet<String> {
    top.iter()
        .filter(|n| n.kind() == "expression_statement")
        .flat_map(|n| named_children(*n))
        .filter(|a| a.kind() == "assignment")
        .filter(|a| {
            child_by_field(*a, "right").is_some_and(|r| matches!(r.kind(), "list" | "dictionary"))
        })
        .filter_map(|a| child_by_field(a, "left"))
        .filter(|l| l.kind() == "identifier")
        .map(|l| text_of(l, text).to_owned())
        .collect()
}

/// Whether every use of `name` in the file, but its assignments, reads an
/// item of it (`name[key]` not assigned to).
/// Whether this use of a name reads an item of its value (`cfgs["A"]`,
/// not assigned to) or assigns the name itself.
fn only_reads_an_item(
    Placed {
        node,
        parent,
        grandparent,
    }: Placed<'_>,
) -> bool {
    let assigned = |p: Node<'_>, target: Node<'_>| {
        matches!(p.kind(), "assignment" | "augmented_assignment") && is_field(p, "left", target)
    };
    let read_item = parent.kind() == "subscript"
        && is_field(parent, "value", node)
        && grandparent.is_none_or(|p| !assigned(p, parent));
    read_item || (parent.kind() == "assignment" && is_field(parent, "left", node))
}

/// Literals and arithmetic of literals: what a module-level constant such
/// as `N_EMBD = 768` or `HIDDEN = 4 * 768` holds, and lists, tuples and
/// string-keyed dicts of them (VGG's `cfgs = {"A": [64, "M", 128]}`).
/// Walked with an explicit stack: `N = 1 + 1 + ... + 1` nests as deep as
/// the line is long.
fn is_constant(node: Node<'_>) -> bool {
    let mut stack = vec![node];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "integer" | "float" | "true" | "false" | "none" => {}
            "string" => {
                if named_children(node)
                    .iter()
                    .any(|c| c.kind() == "interpolation")
                {
                    return false;
                }
            }
            "list" | "tuple" => stack.extend(named_children(node)),
            "dictionary" => {
                for pair in named_children(node) {
                    let key = child_by_field(pair, "key");
                    let value = child_by_field(pair, "value");
                    match (pair.kind(), key, value) {
                        ("pair", Some(key), Some(value)) if key.kind() == "string" => {
                            stack.push(key);
                            stack.push(value);
                        }
                        _ => return false,
                    }
                }
            }
            // Their operators are unnamed tokens: the named children are
            // the operands.
            "unary_operator" | "binary_operator" | "parenthesized_expression" => {
                let operands = named_children(node);
                if operands.is_empty() {
                    return false;
                }
                stack.extend(operands);
            }
            _ => return false,
        }
    }
    true
}
