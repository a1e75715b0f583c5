//! Operation names in messages as the program spells them (PYTHON.md §6):
//! in a Python file, `` `torch.cat` needs equal sizes `` and `` `nn.Linear`
//! gets the wrong number of input features `` where the Tensor language
//! says `cat` and `Linear`.
//!
//! The rules write the operation's own name; while one runs for a Python
//! file, its requirements pass through [`Spelled`], which rewrites that
//! name (and only it: a name is rewritten only where it stands alone in
//! backticks) in their messages. The rules stay language-blind.

use tensorfit_base::TextRange;
use tensorfit_solver::{Formula, Term};

use super::RuleContext;
use crate::shapes::fact::{Explain, FactKind};
use crate::shapes::value::{Shape, Value};

/// Runs `rule` with the operation `op` spelt as the file spells it.
pub(super) fn with_spelling<R>(
    frame: &mut dyn RuleContext,
    op: &str,
    rule: impl FnOnce(&mut dyn RuleContext) -> R,
) -> R {
    match frame.spelled(op) {
        Some(spelled) => rule(&mut Spelled {
            frame,
            written: format!("`{op}`"),
            spelled: format!("`{spelled}`"),
        }),
        None => rule(frame),
    }
}

struct Spelled<'f> {
    frame: &'f mut dyn RuleContext,
    /// `` `cat` ``
    written: String,
    /// `` `torch.cat` ``
    spelled: String,
}

impl Spelled<'_> {
    fn respell(&self, text: &mut String) {
        if text.contains(&self.written) {
            *text = text.replace(&self.written, &self.spelled);
        }
    }
}

impl RuleContext for Spelled<'_> {
    fn require(&mut self, formula: Formula, kind: FactKind, range: TextRange, explain: Explain) {
        let mut explain = explain;
        match &mut explain {
            Explain::Equal { what, .. } => self.respell(what),
            Explain::Text { template, .. } => self.respell(template),
            Explain::Shape { .. } => {}
        }
        self.frame.require(formula, kind, range, explain);
    }

    fn refine_shape(&self, shape: &Shape) -> Shape {
        self.frame.refine_shape(shape)
    }

    fn known(&self, term: &Term) -> Term {
        self.frame.known(term)
    }

    fn fresh_int(&self) -> Term {
        self.frame.fresh_int()
    }

    fn fresh_dim(&mut self, range: TextRange) -> Term {
        self.frame.fresh_dim(range)
    }

    fn fresh_shape(&self) -> Shape {
        self.frame.fresh_shape()
    }

    fn named_if_large(&mut self, term: &Term, range: TextRange) -> Term {
        self.frame.named_if_large(term, range)
    }

    fn note_ranks_decide(&mut self) {
        self.frame.note_ranks_decide();
    }

    fn defer(&mut self, op: &str, args: Vec<(String, Value, String)>, range: TextRange) -> Value {
        self.frame.defer(op, args, range)
    }

    fn has_opaque_tensor(&self, args: &[(String, Value, String)]) -> bool {
        self.frame.has_opaque_tensor(args)
    }

    fn apply_to(
        &mut self,
        target: &Value,
        callee: &str,
        input: Value,
        text: &str,
        range: TextRange,
    ) -> Value {
        self.frame.apply_to(target, callee, input, text, range)
    }

    fn pytorch_operations(&self) -> bool {
        self.frame.pytorch_operations()
    }

    fn spelled(&self, op: &str) -> Option<String> {
        self.frame.spelled(op)
    }
}
