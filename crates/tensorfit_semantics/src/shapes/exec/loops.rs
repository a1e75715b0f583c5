//! Loops (section 3.2 of the Tensors Fitting Perfectly paper): skipped, or
//! entered for a first iteration with the values from before the loop and
//! a last iteration with fresh values for what the loop assigns.

use std::collections::{HashMap, HashSet};

use tensorfit_base::TextRange;
use tensorfit_solver::{Formula, Term};
use tensorfit_syntax::ast::{self, ElseBranch, ExprKind, StmtKind};

use super::{truth, BranchOrigin, Frame, Slot, PATH_NOTE};
use crate::shapes::fact::Guard;
use crate::shapes::value::{Shape, Value};

/// A frame's state, to undo a speculative run of a loop body.
pub(super) struct Checkpoint {
    facts: usize,
    records: usize,
    conditions: usize,
    deferred: usize,
    returns: usize,
    scopes: Vec<HashMap<String, Slot>>,
    guard: Guard,
    learnt: super::learnt::Learnt,
    returned: bool,
}

impl<'f, 'a> Frame<'f, 'a> {
    /// A loop: skipped, or entered with a first iteration and a last one
    /// whose loop-carried variables are fresh (section 3.2 of the paper).
    ///
    /// A tensor the first iteration leaves at its rank gets fresh dimensions
    /// of that rank for the last iteration. That is sound when the last
    /// iteration, run from any state of those ranks, keeps them: then by
    /// induction every iteration does. Otherwise the last iteration is run
    /// again with shapes of unknown rank.
    ///
    /// When the first iteration changes the shape of what the loop carries,
    /// a second iteration runs from its values, under `again` (evaluated
    /// after the first): a body that fails only from the second iteration
    /// on (`h = cat([h, h], dim: 1)` then `h @ w`) fails there.
    pub(super) fn run_loop(
        &mut self,
        entered: Formula,
        range: TextRange,
        body_stmts: &[ast::Stmt],
        mut again: impl FnMut(&mut Self) -> Formula,
        mut body: impl FnMut(&mut Self, Iteration),
    ) {
        if entered.as_const() == Some(false) {
            return;
        }
        // The scopes are copied for the iterations and the checkpoint.
        if !self.step(self.slots()) {
            return;
        }
        let before_returned = self.returned;
        let before_loop = self.scopes.clone();
        let outer_guard = self.guard.clone();
        let mut assigned = HashSet::new();
        assigned_names(body_stmts, &mut assigned);
        let origin = BranchOrigin {
            at: range,
            when_true: "the loop runs".to_owned(),
            when_false: "the loop is skipped".to_owned(),
        };
        self.branch(
            entered,
            origin,
            |this| {
                body(this, Iteration::First);
                this.returned = false;
                if this.carried_values_changed(&assigned, &before_loop) {
                    this.second_iteration(range, &mut again, &mut body);
                }
                let checkpoint = this.checkpoint();
                let kept = this.freshen_scopes(&assigned, &before_loop, range, true);
                let fresh = this.kept_dims(&kept);
                body(this, Iteration::Last);
                let after = this.kept_dims(&kept);
                let ranks_kept = kept
                    .iter()
                    .zip(&after)
                    .all(|((_, _, rank), dims)| dims.as_ref().map(Vec::len) == Some(*rank));
                let all =
                    |dims: Vec<Option<Vec<Term>>>| dims.into_iter().collect::<Option<Vec<_>>>();
                if let (true, Some(fresh), Some(after)) = (ranks_kept, all(fresh), all(after)) {
                    this.assume_kept_dims(&kept, &fresh, &after, &before_loop, &outer_guard, range);
                } else {
                    this.rollback(checkpoint);
                    this.freshen_scopes(&assigned, &before_loop, range, false);
                    body(this, Iteration::Last);
                }
                this.returned = false;
            },
            |_| {},
        );
        // A `return` inside a loop ends only the paths that enter the loop:
        // what follows the loop is still analysed.
        self.returned = before_returned;
    }

    /// Whether a variable the loop assigns has another value after the
    /// first iteration than before it.
    fn carried_values_changed(
        &self,
        assigned: &HashSet<String>,
        before_loop: &[HashMap<String, Slot>],
    ) -> bool {
        self.scopes.iter().zip(before_loop).any(|(now, before)| {
            now.iter()
                .filter(|(name, _)| assigned.contains(*name))
                .any(|(name, slot)| before.get(name).is_some_and(|b| b.value != slot.value))
        })
    }

    /// The second iteration, from the first one's values, on the path where
    /// the loop runs again. Its facts stay; its values are dropped (the
    /// last iteration stands for it and every later one).
    fn second_iteration(
        &mut self,
        range: TextRange,
        again: &mut impl FnMut(&mut Self) -> Formula,
        body: &mut impl FnMut(&mut Self, Iteration),
    ) {
        let condition = again(self);
        if truth(&condition) == Some(false) {
            return;
        }
        let scopes = self.scopes.clone();
        let guard = self.guard.clone();
        let learnt = self.learnt.clone();
        let facts_before = self.facts.len();
        self.guard.push(condition);
        body(self, Iteration::Second);
        for fact in &mut self.facts[facts_before..] {
            fact.sides
                .push((range, format!("{PATH_NOTE}the loop runs a second time")));
        }
        self.scopes = scopes;
        self.guard = guard;
        self.learnt = learnt;
        self.returned = false;
    }

    /// Fresh values for the variables the loop assigns. With
    /// `keep_ranks`, tensors whose rank the first iteration kept keep it;
    /// returns those (scope depth, name, rank).
    fn freshen_scopes(
        &mut self,
        assigned: &HashSet<String>,
        before_loop: &[HashMap<String, Slot>],
        range: TextRange,
        keep_ranks: bool,
    ) -> Vec<(usize, String, usize)> {
        let mut kept = Vec::new();
        let mut scopes = std::mem::take(&mut self.scopes);
        for (depth, scope) in scopes.iter_mut().enumerate() {
            for (name, slot) in scope.iter_mut().filter(|(n, _)| assigned.contains(*n)) {
                slot.value = match &slot.value {
                    Value::Int(_) => Value::Int(self.fresh_int()),
                    Value::Tensor(now) => {
                        let before = before_loop
                            .get(depth)
                            .and_then(|s| s.get(name))
                            .and_then(|s| s.value.tensor_shape());
                        let rank = now.dims().map(<[Term]>::len).filter(|r| {
                            before.and_then(|b| b.dims().map(<[Term]>::len)) == Some(*r)
                        });
                        match rank.filter(|_| keep_ranks) {
                            Some(rank) => {
                                kept.push((depth, name.clone(), rank));
                                let dims = (0..rank).map(|_| self.fresh_dim(range)).collect();
                                Value::Tensor(Shape::known(dims))
                            }
                            None => {
                                let base = self.analysis.vars.fresh();
                                let shape = Shape::opaque(base);
                                self.assume(shape.well_formed(), range);
                                Value::Tensor(shape)
                            }
                        }
                    }
                    // A list, dict or object the loop changed (`xs.append(i)`)
                    // holds what an unknown number of iterations made of it:
                    // unknown (it held the first two iterations' items).
                    other => {
                        let before = before_loop
                            .get(depth)
                            .and_then(|s| s.get(name))
                            .map(|s| &s.value);
                        match (before == Some(other), other) {
                            (true, _) => other.clone(),
                            (false, Value::Float(_)) => Value::Float(None),
                            (false, _) => Value::Unknown,
                        }
                    }
                };
            }
        }
        self.scopes = scopes;
        kept
    }

    /// The dimensions the tensors in `kept` have now (`None`: not a tensor
    /// of known rank any more).
    fn kept_dims(&self, kept: &[(usize, String, usize)]) -> Vec<Option<Vec<Term>>> {
        kept.iter()
            .map(|(depth, name, _)| self.slot_dims(&self.scopes, *depth, name))
            .collect()
    }

    /// The dimensions of the tensor `name` at scope `depth` of `scopes`.
    fn slot_dims(
        &self,
        scopes: &[HashMap<String, Slot>],
        depth: usize,
        name: &str,
    ) -> Option<Vec<Term>> {
        let shape = scopes.get(depth)?.get(name)?.value.tensor_shape()?;
        self.refine_shape(&shape).dims().map(<[Term]>::to_vec)
    }

    /// A dimension the last iteration gives back unchanged, whatever its
    /// fresh value, is the same in every iteration: by induction from the
    /// first, it is the value from before the loop (`for … { x = relu(x) }`
    /// keeps `x`'s shape). Assumed on the path outside the loop, so that
    /// what follows the loop sees the invariant shape: the fresh dimensions
    /// mean nothing on the path that skips the loop. `fresh` and `after`
    /// are the dimensions of `kept` at the start and end of the last
    /// iteration, of the kept ranks.
    fn assume_kept_dims(
        &mut self,
        kept: &[(usize, String, usize)],
        fresh: &[Vec<Term>],
        after: &[Vec<Term>],
        before_loop: &[HashMap<String, Slot>],
        outer_guard: &Guard,
        range: TextRange,
    ) {
        let inner_guard = std::mem::replace(&mut self.guard, outer_guard.clone());
        for (((depth, name, _), fresh), after) in kept.iter().zip(fresh).zip(after) {
            let Some(before) = self.slot_dims(before_loop, *depth, name) else {
                continue;
            };
            if before.len() != fresh.len() {
                continue;
            }
            let mut invariant = after.clone();
            for (((f, a), b), kept) in fresh.iter().zip(after).zip(&before).zip(&mut invariant) {
                if f == a {
                    self.assume(Formula::eq(f, b), range);
                    *kept = b.clone();
                }
            }
            // The value after the loop says so too, to be shown as it is
            // (`n`, not the fresh dimension equal to it).
            if let Some(slot) = self.scopes.get_mut(*depth).and_then(|s| s.get_mut(name)) {
                slot.value = Value::Tensor(Shape::known(invariant));
            }
        }
        self.guard = inner_guard;
    }

    fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            facts: self.facts.len(),
            records: self.records.len(),
            conditions: self.conditions.len(),
            deferred: self.deferred.len(),
            returns: self.returns.len(),
            scopes: self.scopes.clone(),
            guard: self.guard.clone(),
            learnt: self.learnt.clone(),
            returned: self.returned,
        }
    }

    /// How many names the scopes hold: what copying or joining them costs,
    /// in steps.
    pub(super) fn slots(&self) -> u64 {
        self.scopes.iter().map(|scope| scope.len() as u64).sum()
    }

    /// What an iteration of a loop may leave otherwise for the next one
    /// (values, `self`, the path), taken before it runs.
    pub(super) fn loop_state(&mut self) -> LoopState {
        self.step(self.slots());
        LoopState {
            scopes: self.scopes.clone(),
            self_value: self.self_value.clone(),
            guard: self.guard.clone(),
        }
    }

    /// Whether the state is `before` again: the next iteration, if it reads
    /// nothing else that changes, does again what this one did.
    pub(super) fn loop_state_is(&self, before: &LoopState) -> bool {
        self.guard == before.guard
            && self.self_value == before.self_value
            && self.scopes.len() == before.scopes.len()
            && self.scopes.iter().zip(&before.scopes).all(|(now, then)| {
                now.len() == then.len()
                    && now.iter().all(|(name, slot)| {
                        then.get(name).is_some_and(|old| {
                            old.value == slot.value && old.defined == slot.defined
                        })
                    })
            })
    }

    /// Whether the statements read the name `name` anywhere (a nested
    /// function or lambda included), charged a step per expression.
    pub(super) fn reads_name(&mut self, stmts: &[ast::Stmt], name: &str) -> bool {
        let mut stack: Vec<&ast::Stmt> = stmts.iter().collect();
        let mut walked = 0u64;
        let mut found = false;
        'walk: while let Some(stmt) = stack.pop() {
            for expr in stmt.exprs() {
                for inner in expr.descendants() {
                    walked += 1;
                    if matches!(&inner.kind, ExprKind::Name(n) if n == name) {
                        found = true;
                        break 'walk;
                    }
                }
            }
            stack.extend(stmt.nested());
        }
        self.step(walked);
        found
    }

    /// Forgets everything done since the checkpoint.
    fn rollback(&mut self, checkpoint: Checkpoint) {
        self.facts.truncate(checkpoint.facts);
        self.records.truncate(checkpoint.records);
        self.conditions.truncate(checkpoint.conditions);
        self.deferred.truncate(checkpoint.deferred);
        self.returns.truncate(checkpoint.returns);
        self.scopes = checkpoint.scopes;
        self.guard = checkpoint.guard;
        self.learnt = checkpoint.learnt;
        self.returned = checkpoint.returned;
    }
}

/// A frame's state before an iteration of a loop (see
/// [`Frame::loop_state`]).
pub(super) struct LoopState {
    scopes: Vec<HashMap<String, Slot>>,
    self_value: Option<Value>,
    guard: Guard,
}

/// Which iteration of a loop body is being run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Iteration {
    /// From the values before the loop.
    First,
    /// From the first iteration's values, when they differ from those.
    Second,
    /// From fresh values: every iteration after the first.
    Last,
}

/// The variables a loop body may change: the targets of its assignments
/// (`x = ...`, `C[i, j] = ...`), at any depth.
pub(super) fn assigned_names(stmts: &[ast::Stmt], names: &mut HashSet<String>) {
    for stmt in stmts {
        match &stmt.kind {
            StmtKind::Assign { target, .. } => {
                let mut base = target;
                while let ExprKind::Subscript { value, .. } = &base.kind {
                    base = value;
                }
                if let ExprKind::Name(name) = &base.kind {
                    names.insert(name.clone());
                }
            }
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                assigned_names(&then_branch.stmts, names);
                match else_branch {
                    Some(ElseBranch::Block(block)) => assigned_names(&block.stmts, names),
                    Some(ElseBranch::If(stmt)) => {
                        assigned_names(std::slice::from_ref(stmt.as_ref()), names)
                    }
                    None => {}
                }
            }
            StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
                assigned_names(&body.stmts, names)
            }
            _ => {}
        }
    }
}
