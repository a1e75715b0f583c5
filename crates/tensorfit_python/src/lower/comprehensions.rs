//! List comprehensions (`[f(d) for d in depths]`, `[w for w, t in
//! zip(ws, ts) if t]`, `[torch.zeros(i) for i in range(n)]`): a list built
//! by loops run before the statement the comprehension is in.
//!
//! `[body for t1 in s1 if c1 for t2 in s2]` becomes
//!
//! ```text
//! var $items = []
//! let $s = s1
//! for $i in 0..$s.__len__() {
//!     let t1 = $s[$i]
//!     if c1 { ...the next clause..., $items = $items + [body] }
//! }
//! ```
//!
//! with a counted loop for `range(...)`. The targets are `let`s of the
//! loop body, so that they hide a local of the same name only inside the
//! comprehension, as Python's own scope for comprehensions does.

use tensorfit_base::TextRange;
use tensorfit_syntax::ast::*;
use tree_sitter::Node;

use super::locals::pattern_names;
use super::syntax::{child_by_field, named_children};
use super::Lowerer;

impl Lowerer<'_> {
    /// The list a comprehension builds, as a temporary assigned before the
    /// statement. `None` for a form not followed (an `async` clause, a
    /// target that is no plain name or tuple of names) or where there is
    /// no statement to put the loops before.
    pub(super) fn comprehension(&mut self, node: Node<'_>) -> Option<Expr> {
        self.pending.as_ref()?;
        // Loops put before the statement must run exactly where the
        // comprehension is evaluated (not inside `a if c else b`).
        if !super::containers::runs_once_before_statement_in_loops(node) {
            return None;
        }
        let parts = named_children(node);
        let (body, clauses) = parts.split_first()?;
        if clauses.first()?.kind() != "for_in_clause" {
            return None;
        }
        let range = self.range(node);
        let at = TextRange::empty(range.start as usize);
        let items = self.temporary();
        // The comprehension's targets are names of its own while its
        // clauses and body are lowered.
        let before = self.scope.locals.all.clone();
        let outer_total = std::mem::replace(&mut self.comprehension_clauses_total, clauses.len());
        let loops = self.comprehension_clauses(clauses, *body, &items, range);
        self.comprehension_clauses_total = outer_total;
        self.scope.locals.all = before;
        let loops = loops?;
        let pending = self.pending.as_mut()?;
        pending.push(Stmt {
            kind: StmtKind::Var {
                pattern: Pattern::Name(Name {
                    text: items.clone(),
                    range: at,
                }),
                ty: None,
                value: Some(Expr {
                    kind: ExprKind::List(Vec::new()),
                    range: at,
                }),
            },
            range: at,
        });
        pending.extend(loops);
        Some(Expr {
            kind: ExprKind::Name(items),
            range: at,
        })
    }

    /// The statements of `clauses` (the first one outermost) around the
    /// innermost `items = items + [body]`. What an expression inside the
    /// loops needs run first (a nested comprehension's loops) is put just
    /// before it, inside them.
    fn comprehension_clauses(
        &mut self,
        clauses: &[Node<'_>],
        body: Node<'_>,
        items: &str,
        range: TextRange,
    ) -> Option<Vec<Stmt>> {
        let at = TextRange::empty(range.start as usize);
        let name = |text: &str| Expr {
            kind: ExprKind::Name(text.to_owned()),
            range: at,
        };
        let first = clauses.len() == self.comprehension_clauses_total;
        let Some((clause, rest)) = clauses.split_first() else {
            let (mut stmts, element) = self.lowered_in_loop(body);
            let grown = Expr {
                kind: ExprKind::Binary {
                    op: BinaryOp::Add,
                    lhs: Box::new(name(items)),
                    rhs: Box::new(Expr {
                        kind: ExprKind::List(vec![element]),
                        range,
                    }),
                },
                range,
            };
            stmts.push(Stmt {
                kind: StmtKind::Assign {
                    target: name(items),
                    op: AssignOp::Assign,
                    value: grown,
                },
                range,
            });
            return Some(stmts);
        };
        let block = |stmts: Vec<Stmt>| Block { stmts, range };
        match clause.kind() {
            "if_clause" => {
                let (mut stmts, condition) =
                    self.lowered_in_loop(*named_children(*clause).first()?);
                let inner = self.comprehension_clauses(rest, body, items, range)?;
                stmts.push(Stmt {
                    kind: StmtKind::If {
                        condition,
                        then_branch: block(inner),
                        else_branch: None,
                    },
                    range,
                });
                Some(stmts)
            }
            "for_in_clause" => {
                let target = child_by_field(*clause, "left")?;
                let iterable = child_by_field(*clause, "right")?;
                let pattern = self.comprehension_target(target)?;
                // The iterable is read before the target is bound: the
                // first one where the comprehension is, the others inside
                // the loops around them.
                let outer = (!first).then(|| self.pending.replace(Vec::new()));
                let bounds = match target.kind() {
                    "identifier" => self.range_bounds(iterable),
                    _ => None,
                };
                // `for i, x in enumerate(xs)`: the index and the item.
                let enumerated = self.enumerated(iterable).filter(
                    |_| matches!(&pattern, Pattern::Tuple { elements, .. } if elements.len() == 2),
                );
                let sequence = bounds
                    .is_none()
                    .then(|| self.expr(enumerated.unwrap_or(iterable)));
                let mut stmts = match outer {
                    Some(outer) => std::mem::replace(&mut self.pending, outer).unwrap_or_default(),
                    None => Vec::new(),
                };
                self.bind_targets(target);
                let Some(sequence) = sequence else {
                    let (start, end) = bounds?;
                    let inner = self.comprehension_clauses(rest, body, items, range)?;
                    stmts.push(Stmt {
                        kind: StmtKind::For {
                            variable: Some(self.name(target)),
                            start,
                            end,
                            body: block(inner),
                        },
                        range,
                    });
                    return Some(stmts);
                };
                let (items_of, index) = (self.temporary(), self.temporary());
                let item = Expr {
                    kind: ExprKind::Subscript {
                        value: Box::new(name(&items_of)),
                        indices: vec![name(&index)],
                    },
                    range: self.range(target),
                };
                let value = match enumerated {
                    Some(_) => Expr {
                        kind: ExprKind::Tuple(vec![name(&index), item]),
                        range: self.range(target),
                    },
                    None => item,
                };
                let mut inner = vec![Stmt {
                    kind: StmtKind::Let {
                        pattern,
                        ty: None,
                        value,
                    },
                    range,
                }];
                inner.extend(self.comprehension_clauses(rest, body, items, range)?);
                stmts.push(self.let_temporary(&items_of, sequence, range));
                stmts.push(super::statements::over_indices(
                    &items_of,
                    index,
                    block(inner),
                    range,
                ));
                Some(stmts)
            }
            _ => None,
        }
    }

    /// An expression inside the comprehension's loops, with what it needs
    /// run before it (a nested comprehension's loops) kept to put there.
    fn lowered_in_loop(&mut self, node: Node<'_>) -> (Vec<Stmt>, Expr) {
        let outer = self.pending.replace(Vec::new());
        let expr = self.expr(node);
        let before = std::mem::replace(&mut self.pending, outer).unwrap_or_default();
        (before, expr)
    }

    /// A comprehension's target as a pattern: a name or a tuple of them
    /// (`w, b` and `(w, (b, g))`). `None` for anything else (`*rest`, an
    /// attribute).
    fn comprehension_target(&self, target: Node<'_>) -> Option<Pattern> {
        match target.kind() {
            "identifier" => Some(Pattern::Name(self.name(target))),
            "pattern_list"
            | "tuple_pattern"
            | "tuple"
            | "parenthesized_expression"
            | "list_pattern"
            | "list" => {
                let elements = named_children(target)
                    .into_iter()
                    .map(|element| self.comprehension_target(element))
                    .collect::<Option<Vec<Pattern>>>()?;
                Some(match (target.kind(), elements.as_slice()) {
                    ("parenthesized_expression", [_]) => elements.into_iter().next()?,
                    _ => Pattern::Tuple {
                        elements,
                        range: self.range(target),
                    },
                })
            }
            _ => None,
        }
    }

    /// The names a comprehension's target binds are locals from here on
    /// (until the comprehension ends).
    fn bind_targets(&mut self, target: Node<'_>) {
        for name in pattern_names(target, self.text) {
            self.scope.locals.all.insert(name);
        }
    }
}
