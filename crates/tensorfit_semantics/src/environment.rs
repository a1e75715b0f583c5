//! What a file sees besides its own items: the prelude's operations and the
//! items of the files it imports.

use crate::prelude::Prelude;
use crate::resolved_import::ResolvedImport;

/// The prelude and imports an analysis of one file reads. The database
/// passes the prelude it holds as an input; everything else uses the
/// built-in one ([`Environment::builtin`]).
#[derive(Clone, Copy, Debug)]
pub struct Environment<'a> {
    pub prelude: &'a Prelude,
    /// The file's imports, in the order the file states them.
    pub imports: &'a [ResolvedImport],
}

impl<'a> Environment<'a> {
    pub fn new(prelude: &'a Prelude, imports: &'a [ResolvedImport]) -> Environment<'a> {
        Environment { prelude, imports }
    }

    /// The built-in prelude with `imports`.
    pub fn builtin(imports: &'a [ResolvedImport]) -> Environment<'a> {
        Environment::new(Prelude::builtin(), imports)
    }
}
