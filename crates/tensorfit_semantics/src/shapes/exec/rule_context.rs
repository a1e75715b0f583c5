//! The executor as the rules see it ([`RuleContext`]): the few things a
//! built-in shape rule asks of the analysis running it.

use tensorfit_base::TextRange;
use tensorfit_solver::{Formula, Term};

use super::Frame;
use crate::shapes::fact::{Explain, FactKind};
use crate::shapes::rules::RuleContext;
use crate::shapes::value::{Shape, Value};

impl RuleContext for Frame<'_, '_> {
    fn require(&mut self, formula: Formula, kind: FactKind, range: TextRange, explain: Explain) {
        Frame::require(self, formula, kind, range, explain);
    }

    fn refine_shape(&self, shape: &Shape) -> Shape {
        Frame::refine_shape(self, shape)
    }

    fn known(&self, term: &Term) -> Term {
        Frame::known(self, term)
    }

    fn fresh_int(&self) -> Term {
        Frame::fresh_int(self)
    }

    fn fresh_dim(&mut self, range: TextRange) -> Term {
        Frame::fresh_dim(self, range)
    }

    fn fresh_shape(&self) -> Shape {
        Shape::opaque(self.analysis.vars.fresh())
    }

    fn named_if_large(&mut self, term: &Term, range: TextRange) -> Term {
        Frame::named_if_large(self, term, range)
    }

    fn note_ranks_decide(&mut self) {
        self.ranks_decide = true;
    }

    fn defer(&mut self, op: &str, args: Vec<(String, Value, String)>, range: TextRange) -> Value {
        Frame::defer(self, op, args, range)
    }

    fn has_opaque_tensor(&self, args: &[(String, Value, String)]) -> bool {
        Frame::has_opaque_tensor(self, args)
    }

    fn apply_to(
        &mut self,
        target: &Value,
        callee: &str,
        input: Value,
        text: &str,
        range: TextRange,
    ) -> Value {
        Frame::apply_to(self, target, callee, input, text, range)
    }

    fn pytorch_operations(&self) -> bool {
        self.analysis.semantics.pytorch_operations
    }

    fn spelled(&self, op: &str) -> Option<String> {
        Frame::spelled(self, op)
    }
}
