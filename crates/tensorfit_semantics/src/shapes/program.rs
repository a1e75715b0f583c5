//! The items an analysis can call: the file's, its imports' and the prelude's.

use std::collections::HashMap;

use tensorfit_syntax::ast;

use crate::module_scope::{ImportOutcome, ResolvedImport};
use crate::prelude::Prelude;

/// A function the analysis can summarise: a user function, a method (with
/// its struct), or a prelude contract.
#[derive(Clone, Copy)]
pub struct FunctionRef<'a> {
    pub function: &'a ast::Function,
    pub owner: Option<&'a ast::Struct>,
    /// Declared in the checked file (its ranges are this file's).
    pub local: bool,
}

impl FunctionRef<'_> {
    /// `name`, or `Struct.name` for a method.
    pub fn key(&self) -> String {
        let name = self
            .function
            .name
            .as_ref()
            .map(|n| n.text.as_str())
            .unwrap_or("?");
        match self.owner.and_then(|s| s.name.as_ref()) {
            Some(owner) => format!("{}.{name}", owner.text),
            None => name.to_owned(),
        }
    }
}

pub struct Program<'a> {
    pub functions: HashMap<String, FunctionRef<'a>>,
    pub structs: HashMap<String, (&'a ast::Struct, bool)>,
    pub consts: HashMap<String, &'a ast::Const>,
    pub prelude: HashMap<String, &'static ast::Function>,
}

impl<'a> Program<'a> {
    pub fn new(file: &'a ast::SourceFile, imports: &'a [ResolvedImport]) -> Program<'a> {
        let mut program = Program {
            functions: HashMap::new(),
            structs: HashMap::new(),
            consts: HashMap::new(),
            prelude: HashMap::new(),
        };
        for item in &Prelude::get().file.items {
            if let ast::Item::Function(f) = item {
                if let Some(name) = &f.name {
                    program.prelude.insert(name.text.clone(), f);
                }
            }
        }
        for import in imports {
            if let ImportOutcome::Loaded(imported) = &import.outcome {
                program.add_items(&imported.items, false);
            }
        }
        program.add_items(&file.items, true);
        program
    }

    fn add_items(&mut self, items: &'a [ast::Item], local: bool) {
        for item in items {
            match item {
                ast::Item::Function(f) => {
                    if let Some(name) = &f.name {
                        self.functions.insert(
                            name.text.clone(),
                            FunctionRef {
                                function: f,
                                owner: None,
                                local,
                            },
                        );
                    }
                }
                ast::Item::Struct(s) => {
                    if let Some(name) = &s.name {
                        self.structs.insert(name.text.clone(), (s, local));
                    }
                }
                ast::Item::Const(c) => {
                    if let Some(name) = &c.name {
                        self.consts.insert(name.text.clone(), c);
                    }
                }
                ast::Item::Import(_) => {}
            }
        }
    }

    pub fn method(&self, struct_name: &str, method: &str) -> Option<FunctionRef<'a>> {
        let (owner, local) = *self.structs.get(struct_name)?;
        let function = owner
            .methods
            .iter()
            .find(|m| m.name.as_ref().is_some_and(|n| n.text == method))?;
        Some(FunctionRef {
            function,
            owner: Some(owner),
            local,
        })
    }

    /// The function or method with this key (see [`FunctionRef::key`]).
    pub fn by_key(&self, key: &str) -> Option<FunctionRef<'a>> {
        match key.split_once('.') {
            Some((owner, method)) => self.method(owner, method),
            None => self.functions.get(key).copied(),
        }
    }

    /// Whether the function or method with this key (see [`FunctionRef::key`])
    /// is declared in the checked file, so that its ranges are this file's.
    pub fn is_local(&self, key: &str) -> bool {
        match key.split_once('.') {
            Some((owner, _)) => self.structs.get(owner).is_some_and(|(_, local)| *local),
            None => self.functions.get(key).is_some_and(|f| f.local),
        }
    }

    /// Every function and method of the checked file, in source order.
    pub fn local_entry_points(file: &'a ast::SourceFile) -> Vec<FunctionRef<'a>> {
        let mut entries = Vec::new();
        for item in &file.items {
            match item {
                ast::Item::Function(f) if !f.is_extern => entries.push(FunctionRef {
                    function: f,
                    owner: None,
                    local: true,
                }),
                ast::Item::Struct(s) => {
                    for m in &s.methods {
                        entries.push(FunctionRef {
                            function: m,
                            owner: Some(s),
                            local: true,
                        });
                    }
                }
                _ => {}
            }
        }
        entries
    }
}
