//! Fresh variables, and the names the program gives them (for display).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use tensorfit_solver::VarId;

/// Hands out variable ids for one analysis (one file); shared by every
/// entry point and summary so that ids never collide.
#[derive(Default)]
pub struct VarGen {
    next: Cell<VarId>,
    names: RefCell<HashMap<VarId, String>>,
}

impl VarGen {
    pub fn fresh(&self) -> VarId {
        let id = self.next.get();
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
        let id = self.fresh();
        let name = self.names.borrow().get(&var).cloned();
        if let Some(name) = name {
            self.names.borrow_mut().insert(id, name);
        }
        id
    }

    pub fn name(&self, var: VarId) -> Option<String> {
        self.names.borrow().get(&var).cloned()
    }

    /// Ids handed out so far: `since..now` are the ones created meanwhile.
    pub fn now(&self) -> VarId {
        self.next.get()
    }
}
