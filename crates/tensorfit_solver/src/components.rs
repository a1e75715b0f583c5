//! Independent groups of facts: facts that share no variable (directly or
//! through other facts) can be solved apart. A script of a thousand
//! unrelated lines is a thousand small problems, not one large one.

use std::collections::HashMap;

use crate::term::{Formula, Term, VarId};

/// The variables (integer, boolean, opaque shapes) a formula mentions.
pub fn variables(formula: &Formula) -> Vec<VarId> {
    let mut found = Vec::new();
    formula.visit_atoms(&mut |atom| match atom {
        Term::Var(v) | Term::Rank(v) | Term::Dim(v, _) => found.push(*v),
        _ => {}
    });
    formula.visit_bool_vars(&mut |v| found.push(v));
    found.sort_unstable();
    found.dedup();
    found
}

struct UnionFind(Vec<usize>);

impl UnionFind {
    fn find(&mut self, i: usize) -> usize {
        let mut root = i;
        while self.0[root] != root {
            root = self.0[root];
        }
        let mut node = i;
        while self.0[node] != root {
            let next = self.0[node];
            self.0[node] = root;
            node = next;
        }
        root
    }

    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.0[b] = a;
        }
    }
}

/// The indices of `formulas`, grouped into independent components, each in
/// increasing order; components ordered by their first index.
pub fn components<'f>(formulas: impl IntoIterator<Item = &'f Formula>) -> Vec<Vec<usize>> {
    group_by_shared_keys(formulas.into_iter().map(variables))
}

/// The indices of `items`, grouped so that items sharing a key (directly
/// or through other items) are together: each group in increasing order,
/// the groups ordered by their first index. Facts grouped by their
/// variables, statements by the names they mention.
pub fn group_by_shared_keys<K: std::hash::Hash + Eq>(
    items: impl IntoIterator<Item = impl IntoIterator<Item = K>>,
) -> Vec<Vec<usize>> {
    let mut sets = UnionFind(Vec::new());
    let mut owner: HashMap<K, usize> = HashMap::new();
    for (i, keys) in items.into_iter().enumerate() {
        sets.0.push(i);
        for key in keys {
            match owner.get(&key) {
                Some(&j) => sets.union(j, i),
                None => {
                    owner.insert(key, i);
                }
            }
        }
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut group_of_root: HashMap<usize, usize> = HashMap::new();
    for i in 0..sets.0.len() {
        let root = sets.find(i);
        let group = *group_of_root.entry(root).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[group].push(i);
    }
    groups
}

/// Facts grouped once into components, to hand each question only the
/// facts that can matter to it.
pub struct Partition {
    groups: Vec<Vec<usize>>,
    group_of_var: HashMap<VarId, usize>,
}

impl Partition {
    pub fn new(facts: &[crate::Fact]) -> Partition {
        let groups = components(facts.iter().map(|f| &f.formula));
        let mut group_of_var = HashMap::new();
        for (g, members) in groups.iter().enumerate() {
            for i in members {
                for v in variables(&facts[*i].formula) {
                    group_of_var.insert(v, g);
                }
            }
        }
        Partition {
            groups,
            group_of_var,
        }
    }

    /// The facts that share a component with `term` (none when it has no
    /// variable in any fact).
    pub fn facts_about(&self, facts: &[crate::Fact], term: &Term) -> Vec<crate::Fact> {
        let mut wanted: Vec<usize> = variables(&Formula::eq(term, &Term::int(0)))
            .into_iter()
            .filter_map(|v| self.group_of_var.get(&v).copied())
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        let mut result: Vec<crate::Fact> = wanted
            .into_iter()
            .flat_map(|g| self.groups[g].iter().map(|i| facts[*i].clone()))
            .collect();
        result.sort_by_key(|f| f.id);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_sharing_variables_are_grouped() {
        let (x, y, z) = (Term::var(1), Term::var(2), Term::var(3));
        let facts = [
            Formula::eq(&x, &Term::int(3)),
            Formula::eq(&z, &Term::int(4)),
            Formula::eq(&x, &y),
            Formula::truth(false),
            Formula::eq(&Term::dim(7, Term::int(0)), &z),
        ];
        assert_eq!(components(&facts), vec![vec![0, 2], vec![1, 4], vec![3]]);
    }
}
