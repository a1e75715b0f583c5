//! Built-in shape rules of prelude operations whose rule the contract
//! language cannot state: PyTorch's broadcasting, `matmul`, `reshape` with
//! `-1`, convolution and pooling arithmetic, reductions with `dim` and
//! `keepdim`, joins of lists, and the layers. Each rule states the
//! operation's requirements as preconditions and returns the result's shape.
//! Everything else is a contract in `prelude.tensor`.
//!
//! The rules are grouped by the family of their operation in the registry
//! (`crate::registry`), one module each, as the interpreter's operations
//! are (`tensorfit_run/src/ops/`); this module holds what they share and
//! hands a call to its family's module.

use tensorfit_base::TextRange;
use tensorfit_solver::{Formula, Term};

use super::fact::{Explain, FactKind};
use super::value::{Layer, Shape, Value};
use crate::registry::{self, Family};

mod algebra;
mod creation;
mod elementwise;
mod indexing;
mod layers;
mod linalg;
mod nn;
mod products;
mod recurrent;
mod reduce;
mod shape;
mod spelling;

pub use layers::DEFERRED_LAYER;
pub use shape::reshape_target;

/// A layer's `forward` applied to its inputs; `callee` is how the program
/// names the layer (`self.features`), for messages about what happens
/// inside it.
pub fn call_layer(
    frame: &mut dyn RuleContext,
    layer: &Layer,
    callee: &str,
    args: Vec<(Value, String)>,
    range: TextRange,
) -> Value {
    spelling::with_spelling(frame, &layer.kind, |frame| {
        layers::call_layer(frame, layer, callee, args, range)
    })
}

/// What a layer's constructor requires of its arguments.
pub fn check_construction(frame: &mut dyn RuleContext, kind: &str, args: &Args, range: TextRange) {
    spelling::with_spelling(frame, kind, |frame| {
        layers::check_construction(frame, kind, args, range)
    })
}

/// What a rule may ask of the analysis running it. The executor
/// (`shapes/exec`) calls the rules and implements this; the rules see
/// nothing else of it, so neither depends on the other's insides.
pub trait RuleContext {
    /// Requires `formula` at `range`, explained by `explain` when it fails.
    fn require(&mut self, formula: Formula, kind: FactKind, range: TextRange, explain: Explain);
    /// `shape` with the ranks the path has learnt filled in.
    fn refine_shape(&self, shape: &Shape) -> Shape;
    /// `term` with the integers the path has fixed (`where d == 3 * k`)
    /// spelt out: for rules whose result's structure depends on a value
    /// (how many parts a `split` makes).
    fn known(&self, term: &Term) -> Term;
    /// A new unknown integer.
    fn fresh_int(&self) -> Term;
    /// A new unknown dimension (positive).
    fn fresh_dim(&mut self, range: TextRange) -> Term;
    /// A new shape of unknown rank.
    fn fresh_shape(&self) -> Shape;
    /// `term`, or past `limits::MAX_JOINED_DIM` nodes a new unknown
    /// assumed equal to it.
    fn named_if_large(&mut self, term: &Term, range: TextRange) -> Term;
    /// Notes that a result is unknown only for want of an input's rank,
    /// which a call may know (see `Summary::ranks_decide`).
    fn note_ranks_decide(&mut self);
    /// The operation `op` applied later, where its arguments' ranks are
    /// known (at each call of the function being analysed).
    fn defer(&mut self, op: &str, args: Vec<(String, Value, String)>, range: TextRange) -> Value;
    /// Whether an argument is a tensor of unknown rank.
    fn has_opaque_tensor(&self, args: &[(String, Value, String)]) -> bool;
    /// `target(input)`: a layer, or a struct instance's `forward`;
    /// `callee` names the target, `text` the input.
    fn apply_to(
        &mut self,
        target: &Value,
        callee: &str,
        input: Value,
        text: &str,
        range: TextRange,
    ) -> Value;
    /// PyTorch's rules, not the Tensor language's prelude's, where they
    /// differ (`Semantics::pytorch_operations`).
    fn pytorch_operations(&self) -> bool;
    /// How the file spells the operation `op` when not as the Tensor
    /// language does (`torch.cat` in Python), for messages.
    fn spelled(&self, op: &str) -> Option<String>;
}

/// A call's arguments by parameter name, with the source text of each.
pub struct Args {
    items: Vec<(String, Value, String)>,
}

impl Args {
    pub fn new(items: Vec<(String, Value, String)>) -> Args {
        Args { items }
    }

    /// The argument bound to parameter `name`; `None` (as not given) when
    /// the operation has no such parameter, so its default applies.
    pub fn get(&self, name: &str) -> &Value {
        self.items
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, v, _)| v)
            .unwrap_or(&Value::None)
    }

    pub fn items(&self) -> &[(String, Value, String)] {
        &self.items
    }

    pub fn text(&self, name: &str) -> String {
        self.items
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, _, t)| t.clone())
            .unwrap_or_else(|| name.to_owned())
    }

    fn int(&self, name: &str) -> Option<Term> {
        self.get(name).as_int().cloned()
    }

    fn shape(&self, name: &str) -> Option<Shape> {
        match self.get(name) {
            Value::Tensor(shape) => Some(shape.clone()),
            _ => None,
        }
    }

    pub fn into_pairs(self) -> Vec<(String, Value)> {
        self.items.into_iter().map(|(n, v, _)| (n, v)).collect()
    }

    pub fn into_triples(self) -> Vec<(String, Value, String)> {
        self.items
    }
}

/// Requires `a == b`, explained as `{what}: {left} = a but {right} = b`.
pub(super) fn require_equal(
    frame: &mut dyn RuleContext,
    a: &Term,
    b: &Term,
    what: &str,
    left: String,
    right: String,
    range: TextRange,
) {
    frame.require(
        Formula::eq(a, b),
        FactKind::Precondition,
        range,
        Explain::Equal {
            what: what.to_owned(),
            left: (left, a.clone()),
            right: (right, b.clone()),
        },
    );
}

pub(super) fn require(
    frame: &mut dyn RuleContext,
    formula: Formula,
    range: TextRange,
    template: String,
    terms: Vec<Term>,
) {
    frame.require(
        formula,
        FactKind::Precondition,
        range,
        Explain::Text { template, terms },
    );
}

/// Reports what the call does wrong whatever the values: an operation it
/// cannot be (`permute` given too few dimensions, `pad` an odd number of
/// amounts).
pub(super) fn refuse(frame: &mut dyn RuleContext, range: TextRange, message: String) {
    require(frame, Formula::truth(false), range, message, vec![]);
}

/// Requires `shape` to have at least `rank` dimensions; `what` says why,
/// with `{}` for the rank it has.
pub(super) fn require_rank_at_least(
    frame: &mut dyn RuleContext,
    shape: &Shape,
    rank: i64,
    range: TextRange,
    what: String,
) {
    require(
        frame,
        Formula::ge(&shape.rank(), &Term::int(rank)),
        range,
        what,
        vec![shape.rank()],
    );
}

/// Normalises a dimension argument (negative counts from the end).
fn axis(
    frame: &mut dyn RuleContext,
    dim: &Term,
    rank: usize,
    op: &str,
    range: TextRange,
) -> Option<usize> {
    let d = dim.as_const()?;
    let rank_i = rank as i64;
    if d < -rank_i.max(1) || d >= rank_i.max(1) {
        refuse(
            frame,
            range,
            format!("dimension {d} is out of range for `{op}` on a tensor of rank {rank}"),
        );
        return None;
    }
    // A scalar takes dimensions -1 and 0 as PyTorch does, but has no
    // dimension to index: the callers index the dimensions with the axis,
    // so a scalar's result is left unknown (never wrong, never a panic).
    if rank == 0 {
        return None;
    }
    Some(if d < 0 {
        (d + rank_i) as usize
    } else {
        d as usize
    })
}

pub(super) fn dims_of(frame: &dyn RuleContext, shape: &Shape) -> Option<Vec<Term>> {
    frame.refine_shape(shape).dims().map(<[Term]>::to_vec)
}

fn product(dims: &[Term]) -> Term {
    dims.iter().fold(Term::int(1), |p, d| Term::mul(&p, d))
}

/// Requires `shape` to have one of `ranks`; false when its rank is a number
/// that is not: the rule then stops, stating nothing more about dimensions
/// that do not exist (and the call has no result, `Frame::unless_refused`).
#[must_use]
fn require_rank(
    frame: &mut dyn RuleContext,
    shape: &Shape,
    ranks: &[i64],
    op: &str,
    text: &str,
    range: TextRange,
) -> bool {
    let rank = shape.rank();
    let allowed: Vec<String> = ranks.iter().map(i64::to_string).collect();
    require(
        frame,
        Formula::or(
            ranks
                .iter()
                .map(|r| Formula::eq(&rank, &Term::int(*r)))
                .collect::<Vec<_>>(),
        ),
        range,
        format!(
            "`{op}` expects an input of rank {}, but `{text}` has rank {{}}",
            allowed.join(" or ")
        ),
        vec![rank.clone()],
    );
    rank.as_const().is_none_or(|r| ranks.contains(&r))
}

/// Requires the channel dimension (at `index`) to be `in_channels`; false
/// when the input has no such dimension.
fn require_channels(
    frame: &mut dyn RuleContext,
    input: &Shape,
    index: i64,
    in_channels: &Term,
    op: &str,
    text: &str,
    range: TextRange,
) -> bool {
    let Some(channels) = input.dim(index) else {
        return false;
    };
    let what = format!("`{op}` gets the wrong number of input channels");
    require_equal(
        frame,
        &channels,
        in_channels,
        &what,
        format!("{text}.shape[{index}]"),
        "in_channels".to_owned(),
        range,
    );
    true
}

/// `input` without its last `count` dimensions (the batch before the
/// dimensions an operation works on), or an unknown shape where that
/// cannot be written: a shape known at the front and of unknown rank
/// after (`x[:, 58:]` of a parameter) loses an unknown part of its known
/// front (see `Shape::slice_exact`). The call's ranks decide then.
fn leading(frame: &mut dyn RuleContext, input: &Shape, count: usize) -> Shape {
    match input.slice_exact(0, count) {
        Some(leading) => leading,
        None => {
            frame.note_ranks_decide();
            frame.fresh_shape()
        }
    }
}

/// `prefix ++ dims`, or an unknown shape when that cannot be stated.
fn append(frame: &dyn RuleContext, prefix: &Shape, dims: Vec<Term>) -> Shape {
    prefix
        .concat(&Shape::known(dims))
        .unwrap_or_else(|| frame.fresh_shape())
}

/// PyTorch broadcasting of two shapes (aligned from the right).
pub fn broadcast(
    frame: &mut dyn RuleContext,
    a: &Shape,
    b: &Shape,
    texts: (&str, &str),
    range: TextRange,
) -> Shape {
    let (Some(x), Some(y)) = (dims_of(frame, a), dims_of(frame, b)) else {
        if dims_of(frame, a).is_some_and(|d| d.is_empty()) {
            return b.clone();
        }
        if dims_of(frame, b).is_some_and(|d| d.is_empty()) {
            return a.clone();
        }
        return if a == b {
            a.clone()
        } else {
            frame.fresh_shape()
        };
    };
    let n = x.len().max(y.len());
    let mut result = Vec::with_capacity(n);
    for i in 0..n {
        let p = (i + x.len()).checked_sub(n).map(|k| x[k].clone());
        let q = (i + y.len()).checked_sub(n).map(|k| y[k].clone());
        let dim = match (p, q) {
            (Some(p), None) => p,
            (None, Some(q)) => q,
            (Some(p), Some(q)) => {
                let one = Term::int(1);
                if p == q || q == one {
                    p
                } else if p == one {
                    q
                } else {
                    // Each side's own dimension, and the result's as
                    // PyTorch counts it ("at non-singleton dimension 1").
                    let (ka, kb) = (i + x.len() - n, i + y.len() - n);
                    frame.require(
                        Formula::or([Formula::eq(&p, &q), Formula::eq(&p, &one), Formula::eq(&q, &one)]),
                        FactKind::Precondition,
                        range,
                        Explain::Text {
                            template: format!(
                                "cannot broadcast `{a}` with `{b}` at dimension {i}: {a}.shape[{ka}] = {{}} but {b}.shape[{kb}] = {{}}",
                                a = texts.0,
                                b = texts.1
                            ),
                            terms: vec![p.clone(), q.clone()],
                        },
                    );
                    joined_dim(frame, &p, &q, range)
                }
            }
            (None, None) => Term::int(1),
        };
        result.push(dim);
    }
    Shape::known(result)
}

/// The dimension two broadcast dimensions `p` and `q` give: `q` where `p`
/// is 1, else `p`. Written out as that choice while it is small; past
/// [`limits::MAX_JOINED_DIM`] nodes, a new dimension defined by it, so that
/// a chain of residual additions of dimensions not known to be equal (a
/// transformer's `x = x + attention(x)`, once per layer) does not double
/// the expression at each step.
fn joined_dim(frame: &mut dyn RuleContext, p: &Term, q: &Term, range: TextRange) -> Term {
    let joined = Term::ite(&Formula::eq(p, &Term::int(1)), q, p);
    frame.named_if_large(&joined, range)
}

/// Dimensions from a size argument: `zeros(2, 3)`, `zeros([2, 3])`.
fn size_dims(
    frame: &mut dyn RuleContext,
    value: &Value,
    op: &str,
    range: TextRange,
) -> Option<Vec<Term>> {
    let dims = value.as_dims()?;
    let dims = frame.refine_shape(&dims).dims()?.to_vec();
    // PyTorch makes empty tensors (`torch.zeros(0, 4)`); the Tensor
    // language's sizes are positive. Dimensions are positive everywhere
    // else in the analysis, so an empty tensor's shape is not followed.
    let least = match frame.pytorch_operations() {
        true => 0,
        false => 1,
    };
    for (i, d) in dims.iter().enumerate() {
        require(
            frame,
            Formula::ge(d, &Term::int(least)),
            range,
            match least {
                0 => {
                    format!("`{op}` cannot create a tensor with negative dimension {{}} (size {i})")
                }
                _ => format!("`{op}` needs positive sizes, but size {i} is {{}}"),
            },
            vec![d.clone()],
        );
    }
    if least == 0 && dims.iter().any(|d| d.as_const().is_some_and(|k| k < 1)) {
        return None;
    }
    Some(dims)
}

/// A pair argument (`3` or `(3, 5)`) for the two spatial dimensions.
fn pair(value: &Value, default: i64, count: usize) -> Option<Vec<Term>> {
    match value {
        Value::Int(t) => Some(vec![t.clone(); count]),
        Value::Tuple(items) | Value::List(items) if items.len() == count => {
            items.iter().map(|v| v.as_int().cloned()).collect()
        }
        Value::None => Some(vec![Term::int(default); count]),
        // Unknown (a missing argument, a value not modelled) is not the
        // default: guessing it would show wrong shapes and report clashes
        // that exist only because of the guess.
        _ => None,
    }
}

/// A per-dimension argument (`kernel_size: 3` or `(3, 3)`) of an operation
/// over `count` spatial dimensions, as [`pair`] reads it; a list of another
/// length is refused, as PyTorch refuses it when the layer runs.
fn sizes(
    frame: &mut dyn RuleContext,
    value: &Value,
    default: i64,
    count: usize,
    (op, what): (&str, &str),
    range: TextRange,
) -> Option<Vec<Term>> {
    if let Value::Tuple(items) | Value::List(items) = value {
        if items.len() != count {
            refuse(
                frame,
                range,
                format!(
                    "`{op}` works on {count} spatial dimension{}: `{what}` must be one integer or {count}, but it has {}",
                    if count == 1 { "" } else { "s" },
                    items.len()
                ),
            );
            return None;
        }
    }
    pair(value, default, count)
}

/// Requires each of `terms` (a kernel size, a stride) to be positive, as
/// PyTorch does when the operation runs. `false` when one is a constant
/// that is not: the output sizes would be nonsense, so the caller answers
/// unknown.
fn require_positive(
    frame: &mut dyn RuleContext,
    terms: &[Term],
    (op, what): (&str, &str),
    range: TextRange,
) -> bool {
    for term in terms {
        let not_positive = term.as_const().is_some_and(|v| v < 1);
        require(
            frame,
            Formula::ge(term, &Term::int(1)),
            range,
            format!("`{op}`: the {what} must be greater than zero, but it is {{}}"),
            vec![term.clone()],
        );
        if not_positive {
            return false;
        }
    }
    true
}

/// Rules answer with a tensor of this shape, or unknown.
fn tensor(shape: Option<Shape>) -> Option<Value> {
    Some(shape.map(Value::Tensor).unwrap_or(Value::Unknown))
}

/// The built-in rule of a prelude function, if it has one: in the module of
/// its family.
pub fn apply(
    frame: &mut dyn RuleContext,
    name: &str,
    args: &Args,
    range: TextRange,
) -> Option<Value> {
    spelling::with_spelling(frame, name, |frame| apply_rule(frame, name, args, range))
}

fn apply_rule(
    frame: &mut dyn RuleContext,
    name: &str,
    args: &Args,
    range: TextRange,
) -> Option<Value> {
    if name == DEFERRED_LAYER {
        return layers::apply(frame, name, args, range);
    }
    match registry::operation(name).map(|op| op.family) {
        Some(Family::Creation) => creation::apply(frame, name, args, range),
        Some(Family::Elementwise) => elementwise::apply(frame, name, args, range),
        Some(Family::Linalg) => linalg::apply(frame, name, args, range),
        Some(Family::Shape) => shape::apply(frame, name, args, range),
        Some(Family::Indexing) => indexing::apply(frame, name, args, range),
        Some(Family::Reduce) => reduce::apply(frame, name, args, range),
        Some(Family::Nn) => nn::apply(frame, name, args, range),
        Some(Family::Algebra) => algebra::apply(frame, name, args, range),
        // Layers are called (`call_layer`), not applied.
        Some(Family::Layers) => None,
        // Operations of the engine's own, not the prelude's.
        None => match name {
            "select" => {
                let (Value::Bool(c), a, b) =
                    (args.get("condition"), args.get("input"), args.get("other"))
                else {
                    return Some(Value::Unknown);
                };
                Some(match c.as_const() {
                    Some(true) => a.clone(),
                    Some(false) => b.clone(),
                    None => Value::Tensor(frame.fresh_shape()),
                })
            }
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    /// The rules reach the executor only through [`super::RuleContext`]:
    /// no rule module names `exec` in a path, so no module cycle returns.
    #[test]
    fn no_rule_module_uses_the_executor() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/shapes/rules");
        let mut dirs = vec![root];
        let mut offenders = Vec::new();
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("the rules directory") {
                let path = entry.expect("an entry").path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).expect("readable");
                    // Built here, so that this test does not find itself.
                    let paths = [["::", "exec"].concat(), ["exec", "::"].concat()];
                    if paths.iter().any(|p| text.contains(p.as_str())) {
                        offenders.push(path.display().to_string());
                    }
                }
            }
        }
        assert!(
            offenders.is_empty(),
            "rule modules using `exec`: {offenders:?}"
        );
    }
}
