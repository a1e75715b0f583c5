//! What every piece of a Python file needs to know about the rest of it:
//! the names its imports bind, and the names its top level defines.
//!
//! Pieces are lowered one by one (see the crate's docs), but what
//! `nn.Linear` or `Block` means depends on the imports and definitions
//! elsewhere in the file. This table is made from what each top-level
//! statement tells it ([`crate::statement_facts`]), which the database
//! keeps for every statement an edit leaves as it was; it is equal across
//! edits that touch no import or top-level name, so they lower no other
//! piece again.

use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::Tree;

use crate::changed_names::Alias;
use crate::class_functions::{qualified, ClassFunctions, OwnClassFunctions, MAX_BASE_DEPTH};
use crate::enumerations::ClassOutline;
use crate::lower::syntax::named_children;
use crate::statement_facts::{
    class_details, statement_facts, ClassDetails, ClassFacts, StatementFacts,
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
    /// Classes derived from `enum.Enum` (or another enumeration of the
    /// file), lowered to structs whose class fields are their members
    /// (see [`crate::enumerations`]).
    pub enums: BTreeMap<String, crate::enumerations::EnumFacts>,
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
    /// The script's names bound once, by a plain `name = value` of the
    /// top level, and not changed in place: a function the script makes
    /// after it takes its value (`lower::closures`).
    pub(crate) script_bound_once: BTreeSet<String>,
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
            || self.enums.contains_key(name)
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
    "enum",
    "inspect",
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
    let imported = crate::statement_facts::imports_of(tree.root_node(), text);
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
    let root = tree.root_node();
    let statements = named_children(root);
    let facts: Vec<StatementFacts> = statements
        .iter()
        .map(|statement| statement_facts(root, *statement, text))
        .collect();
    let details: Vec<OnceCell<ClassDetails>> = statements.iter().map(|_| OnceCell::new()).collect();
    let details_of = |i: usize| details[i].get_or_init(|| class_details(statements[i], text));
    ModuleContext::from_statements(&facts.iter().collect::<Vec<_>>(), &details_of)
}

impl ModuleContext {
    /// The context of a file made of statements with these facts, in
    /// order (see [`crate::statement_facts`]); `class_details` gives the
    /// details of the class the statement of an index defines, asked only
    /// for the classes inheritance needs.
    pub fn from_statements<'a>(
        statements: &[&'a StatementFacts],
        class_details: &dyn Fn(usize) -> &'a ClassDetails,
    ) -> ModuleContext {
        let mut context = ModuleContext::default();
        let mut assigned: BTreeMap<&str, (usize, bool)> = BTreeMap::new();
        // A value changed in place anywhere in the script is not the one a
        // function took when it was made.
        let changed_in_place: BTreeSet<&str> = statements
            .iter()
            .flat_map(|f| &f.objects_changed)
            .filter_map(|path| path.first())
            .map(String::as_str)
            .collect();
        let simply_bound: BTreeSet<&str> = statements
            .iter()
            .flat_map(|f| &f.simply_bound)
            .map(String::as_str)
            .collect();
        let mut classes: Vec<(usize, &ClassFacts)> = Vec::new();
        for (index, facts) in statements.iter().enumerate() {
            for (name, path) in &facts.imports {
                context.imported.insert(name.clone(), path.clone());
            }
            context
                .star_imports
                .extend(facts.star_import.iter().cloned());
            context.functions.extend(facts.function.iter().cloned());
            classes.extend(facts.class.iter().map(|class| (index, class)));
            // A name is a constant when it is assigned once, a constant.
            for (name, constant) in &facts.assignments {
                let entry = assigned.entry(name).or_insert((0, true));
                entry.0 += 1;
                entry.1 &= constant;
            }
        }
        context.find_modules(&classes);
        let outlines: Vec<ClassOutline<'_>> = classes
            .iter()
            .map(|(_, class)| ClassOutline {
                name: &class.name,
                bases: &class.bases,
                makes_its_values: class
                    .class_functions
                    .iter()
                    .any(|(name, _)| name == "_generate_next_value_"),
            })
            .collect();
        let imported = &context.imported;
        context.enums = crate::enumerations::find_enumerations(&outlines, &|base| {
            resolve_dotted(base, imported)
        });
        crate::inheritance::find_inheritance(&classes, class_details, &mut context);
        for (_, class) in &classes {
            for (method, class_method) in &class.class_functions {
                if *class_method {
                    context
                        .own_class_methods
                        .insert(qualified(&class.name, method));
                }
            }
            let own: BTreeSet<String> = class
                .class_functions
                .iter()
                .map(|(method, _)| method.clone())
                .collect();
            if !own.is_empty() {
                context.own_class_functions.insert(class.name.clone(), own);
            }
            if !class.bases.is_empty() {
                context
                    .class_bases
                    .insert(class.name.clone(), class.bases.clone());
            }
        }
        // What was read by walking the statements is joined in the order
        // a walk of the whole file meets it: the last statement first.
        let walked = || statements.iter().rev();
        let aliases: Vec<Alias> = walked().flat_map(|f| f.aliases.iter().cloned()).collect();
        // A value changed through another name (`lst = store["a"];
        // lst.append(2)`) is no constant either. Without aliases no change
        // reaches another name.
        if !aliases.is_empty() {
            let mut changed: Vec<Vec<String>> = Vec::new();
            for path in walked().flat_map(|f| &f.objects_changed) {
                if !changed.contains(path) {
                    changed.push(path.clone());
                }
            }
            context.script_changed_through_aliases =
                crate::changed_names::reached_through_aliases(&aliases, changed)
                    .into_keys()
                    .collect();
        }
        context.script_aliases = aliases;
        // A list or dict is a constant only while nothing can change it in
        // place: every use of its name reads an item (`cfgs["A"]`).
        let containers: BTreeSet<&str> = statements
            .iter()
            .flat_map(|f| &f.containers)
            .map(String::as_str)
            .collect();
        let used_otherwise: BTreeSet<&str> = statements
            .iter()
            .flat_map(|f| &f.used_otherwise)
            .map(String::as_str)
            .filter(|name| containers.contains(name))
            .collect();
        for (name, (count, constant)) in assigned {
            let shared = context.script_changed_through_aliases.contains(name);
            if count == 1 && simply_bound.contains(name) && !changed_in_place.contains(name) {
                context.script_bound_once.insert(name.to_owned());
            }
            if count == 1
                && constant
                && !context.is_item(name)
                && !used_otherwise.contains(name)
                && !shared
            {
                context.constants.insert(name.to_owned());
            } else {
                context.script_names.insert(name.to_owned());
            }
        }
        context.module_attributes = module_attributes(
            walked().flat_map(|f| &f.attribute_chains),
            &context.imported,
        );
        let mut changed_elsewhere = BTreeMap::new();
        for (name, function) in walked().flat_map(|f| &f.changed_by_functions) {
            changed_elsewhere
                .entry(name.clone())
                .or_insert_with(|| function.clone());
        }
        context.changed_elsewhere = crate::changed_names::with_why(changed_elsewhere);
        context.attributes_set_on_others = statements
            .iter()
            .flat_map(|f| f.attributes_set_on_others.iter().cloned())
            .collect();
        context
    }

    /// Which classes are modules, Sequential builders, plain classes, or
    /// candidates to be builders of a class imported from another file.
    fn find_modules(&mut self, classes: &[(usize, &ClassFacts)]) {
        // A class is a module if a base is `torch.nn.Module` (or any layer
        // of `torch.nn`), or a module class of the file: repeat until no
        // change. Classes first: a module class may derive from one
        // defined below it.
        loop {
            let before = self.modules.len();
            for (_, class) in classes {
                let is_module = class.bases.iter().any(|base| {
                    let resolved = resolve_dotted(base, &self.imported);
                    resolved.starts_with("torch.nn.") || self.modules.contains(base)
                });
                if is_module {
                    self.modules.insert(class.name.clone());
                }
            }
            if self.modules.len() == before {
                break;
            }
        }
        for (_, class) in classes {
            let plain = class.bases.iter().all(|b| b == "object");
            if plain && !self.modules.contains(&class.name) {
                self.classes.insert(class.name.clone());
            }
        }
        // Sequential builders, bases first.
        loop {
            let before = self.sequential_builders.len();
            for (_, class) in classes {
                let name = &class.name;
                if self.sequential_builders.contains_key(name) {
                    continue;
                }
                let [base] = class.bases.as_slice() else {
                    continue;
                };
                let path = resolve_dotted(base, &self.imported);
                let builds_sequential =
                    path == "torch.nn.Sequential" || self.sequential_builders.contains_key(base);
                if builds_sequential && class.only_init {
                    self.sequential_builders.insert(name.clone(), base.clone());
                }
                let imported_class = self.imported.contains_key(base)
                    && path != "torch"
                    && !path.starts_with("torch.");
                // The base's own code may read what the class sets before
                // `super().__init__` or as a class attribute: not followed.
                if imported_class && class.only_init && !class.sets_what_base_reads {
                    self.imported_builder_candidates
                        .insert(name.clone(), base.clone());
                }
            }
            if self.sequential_builders.len() == before {
                break;
            }
        }
        for name in self.sequential_builders.keys() {
            self.modules.remove(name);
            self.functions.insert(name.clone());
        }
    }
}

/// The attribute chains of the file (`attributes`, every `attribute` node)
/// rooted at an imported name (`models.resnet50`), resolved through the
/// imports, but for the modules tensorfit models itself.
fn module_attributes<'a>(
    chains: impl Iterator<Item = &'a String>,
    imported: &BTreeMap<String, String>,
) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for chain in chains {
        if found.len() >= MAX_MODULE_ATTRIBUTES {
            break;
        }
        let root_name = chain.split('.').next().unwrap_or(chain);
        if imported.contains_key(root_name) {
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
