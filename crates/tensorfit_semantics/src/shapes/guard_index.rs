//! Path conditions as numbers.
//!
//! Checking an entry point asks, for each path and each fact, whether the
//! path includes every literal of the fact's guard. Compared formula by
//! formula, that is the paths times the facts times the guards' lengths
//! squared: a chain of 200 `elif`s has 200 paths of up to 200 literals, and
//! took 16 s. Each distinct literal gets a number once, each guard becomes
//! its numbers, and a path a set of them.

use std::collections::HashMap;

use tensorfit_solver::Formula;

use super::fact::{Fact, Guard};

/// The literals of a list of facts' guards, numbered.
pub(super) struct GuardIndex<'f> {
    literals: HashMap<&'f Formula, u32>,
    /// Each fact's guard as numbers, in its order.
    guards: Vec<Vec<u32>>,
}

/// The literals of one path, as a set of numbers.
pub(super) struct PathLiterals {
    words: Vec<u64>,
}

impl<'f> GuardIndex<'f> {
    pub(super) fn new(facts: &'f [Fact]) -> Self {
        let mut literals: HashMap<&'f Formula, u32> = HashMap::new();
        let guards = facts
            .iter()
            .map(|fact| {
                fact.guard
                    .iter()
                    .map(|literal| {
                        let next = literals.len() as u32;
                        *literals.entry(literal).or_insert(next)
                    })
                    .collect()
            })
            .collect();
        GuardIndex { literals, guards }
    }

    /// The numbers of fact `i`'s guard, in its order: two facts have equal
    /// guards exactly when these are equal.
    pub(super) fn of_fact(&self, i: usize) -> &[u32] {
        &self.guards[i]
    }

    /// The numbers of `guard`'s literals, in its order; a literal no fact's
    /// guard has is `u32::MAX` (it is in no fact's guard, so it decides no
    /// inclusion).
    pub(super) fn numbers(&self, guard: &Guard) -> Vec<u32> {
        guard
            .iter()
            .map(|literal| self.literals.get(literal).copied().unwrap_or(u32::MAX))
            .collect()
    }

    /// The set of a path's literal numbers.
    pub(super) fn path(&self, numbers: &[u32]) -> PathLiterals {
        let mut words = vec![0u64; self.literals.len().div_ceil(64)];
        for &n in numbers {
            if let Some(word) = words.get_mut((n / 64) as usize) {
                *word |= 1 << (n % 64);
            }
        }
        PathLiterals { words }
    }

    /// Whether the path includes every literal of fact `i`'s guard.
    pub(super) fn holds_on(&self, path: &PathLiterals, i: usize) -> bool {
        self.guards[i].iter().all(|n| path.contains(*n))
    }
}

impl PathLiterals {
    fn contains(&self, n: u32) -> bool {
        self.words
            .get((n / 64) as usize)
            .is_some_and(|word| word & (1 << (n % 64)) != 0)
    }
}
