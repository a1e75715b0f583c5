//! Fresh variables, and the names the program gives them (for display).

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};

use tensorfit_base::TextRange;
use tensorfit_solver::VarId;

/// Holes have ids of their own, made from where they are written, above
/// those a [`VarGen`] hands out. Every analysis of the file (there is one
/// per function) then means the same unknown by the same hole, as a hole is
/// a constant of the program.
const FIRST_HOLE_VAR: VarId = 1 << 31;

/// The unknown of the hole written at `range`.
pub fn hole_var(range: TextRange) -> VarId {
    FIRST_HOLE_VAR | (range.start as VarId & !FIRST_HOLE_VAR)
}

pub fn is_hole(var: VarId) -> bool {
    var >= FIRST_HOLE_VAR
}

/// Hands out variable ids for one analysis (one function, or the script);
/// shared by everything that analysis summarises so that ids never collide.
#[derive(Default)]
pub struct VarGen {
    next: Cell<VarId>,
    names: RefCell<HashMap<VarId, String>>,
}

impl VarGen {
    pub fn fresh(&self) -> VarId {
        let id = self.next.get();
        debug_assert!(!is_hole(id), "variable ids ran into the holes' ids");
        self.next.set(id + 1);
        id
    }

    /// A fresh variable shown as `name` (a parameter, a dimension name).
    pub fn named(&self, name: &str) -> VarId {
        let id = self.fresh();
        self.names.borrow_mut().insert(id, name.to_owned());
        id
    }

    /// A fresh copy of `var` for another instantiation, with its name.
    pub fn fresh_like(&self, var: VarId) -> VarId {
        let name = self.names.borrow().get(&var).cloned();
        self.fresh_with(name)
    }

    /// A fresh variable with `name`, if any (a copy of a variable of another
    /// analysis, whose names are not this one's).
    pub fn fresh_with(&self, name: Option<String>) -> VarId {
        let id = self.fresh();
        if let Some(name) = name {
            self.names.borrow_mut().insert(id, name);
        }
        id
    }

    /// The hole at `range`, known by name to this analysis.
    pub fn hole(&self, range: TextRange) -> VarId {
        let id = hole_var(range);
        self.names.borrow_mut().insert(id, "__".to_owned());
        id
    }

    pub fn name(&self, var: VarId) -> Option<String> {
        self.names.borrow().get(&var).cloned()
    }

    /// The names of the variables `since..until`, for a summary that leaves
    /// this analysis.
    pub fn names_between(&self, since: VarId, until: VarId) -> BTreeMap<VarId, String> {
        self.names
            .borrow()
            .iter()
            .filter(|(v, _)| (since..until).contains(*v))
            .map(|(v, n)| (*v, n.clone()))
            .collect()
    }

    /// Ids handed out so far: `since..now` are the ones created meanwhile.
    pub fn now(&self) -> VarId {
        self.next.get()
    }
}
