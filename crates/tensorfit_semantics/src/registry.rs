//! The operation registry: every operation of the prelude, declared once
//! with what the rest of tensorfit needs to know about it beside its
//! signature (which the prelude's contract gives).
//!
//! - the **family** it belongs to, which is also the module of the
//!   interpreter that runs it (`tensorfit_run/src/ops/<family>.rs`, the
//!   layers in `tensorfit_run/src/layers.rs`);
//! - how the analysis gets its **shape**: from the contract as written, or
//!   from a built-in rule where the contract language cannot say it;
//! - whether that rule needs the **ranks** of its tensor arguments (applied
//!   to a tensor of unknown rank, it is kept for each call instead);
//! - the **PyTorch names** it has (`torch.add`, `Tensor.add`,
//!   `torch.nn.functional.conv2d`, `torch.nn.Conv2d`): a tensor method is
//!   one PyTorch has, and a layer constructor is one of `torch.nn`.
//!
//! For a layer constructor, also the parameters of the layer's `forward`,
//! which calls of its instances are bound to.
//!
//! Name checks, the analysis, the interpreter, completion and the table of
//! supported operations (`docs/operations.md`, generated from here) read
//! this table; tests check that it and the prelude name the same
//! operations and that each has a test line.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::signature::{Parameter, Signature, SignatureParam};

/// The prefix under which the Python front end names the operation
/// `name` where the file gives `name` another meaning: a parameter
/// (`dropout: float` beside `F.dropout(...)` in Swin's attention), a
/// local, a constant or a class or function of its own (`def relu(x)`
/// beside `F.relu(x)`, `class Linear` beside `nn.Linear`). Not an
/// identifier, so only the operation answers it.
pub const OPERATION_PREFIX: &str = "torch.operation.";

/// The unshadowable name of the operation `name` ([`OPERATION_PREFIX`]).
pub fn operation_reference(name: &str) -> String {
    format!("{OPERATION_PREFIX}{name}")
}

/// The operation an unshadowable name refers to.
pub fn referenced_operation(name: &str) -> Option<&str> {
    name.strip_prefix(OPERATION_PREFIX)
}

/// A whole exponent up to this is written out as a product (`n ** 3` is
/// `n * n * n`), which keeps a symbolic `int` exact.
pub const MAX_EXPONENT_AS_PRODUCT: u32 = 8;

/// `nn.Module`'s methods that return the module itself, changing no
/// shape (`model = Net().to(device)`; `eval()`/`train(mode)` set its
/// `training` flag): the analysis returns the receiver, and the Python
/// front end counts them among the methods that keep a module's layers.
pub const MODULE_METHODS_RETURNING_ITSELF: &[&str] = &[
    "to",
    "cuda",
    "cpu",
    "float",
    "double",
    "half",
    "bfloat16",
    "type",
    "requires_grad_",
    "share_memory",
    "eval",
    "train",
];

/// The types `isinstance` (`ast::Builtin::IsInstance`) decides.
pub const INSTANCE_TYPES: &[&str] = &[
    "int", "float", "bool", "str", "list", "tuple", "dict", "Sequence", "Tensor",
];

/// The group an operation belongs to (and the interpreter module it runs
/// in).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    Creation,
    Elementwise,
    Linalg,
    Shape,
    /// Gathering, selecting, repeating and sorting elements.
    Indexing,
    Reduce,
    /// `torch.nn.functional`: convolutions, pooling, normalisation.
    Nn,
    /// `torch.nn` layer constructors.
    Layers,
    /// Rink's model language and TeIL: contraction, diagonal, projection.
    Algebra,
}

impl Family {
    pub const ALL: [Family; 9] = [
        Family::Creation,
        Family::Elementwise,
        Family::Linalg,
        Family::Shape,
        Family::Indexing,
        Family::Reduce,
        Family::Nn,
        Family::Layers,
        Family::Algebra,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Family::Creation => "Creation",
            Family::Elementwise => "Element-wise",
            Family::Linalg => "Linear algebra",
            Family::Shape => "Shape and properties",
            Family::Indexing => "Indexing, repeating and sorting",
            Family::Reduce => "Reductions",
            Family::Nn => "Functional (torch.nn.functional)",
            Family::Layers => "Layers (torch.nn)",
            Family::Algebra => "Tensor algebra",
        }
    }
}

/// Where the analysis takes an operation's result shape from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeBy {
    /// The prelude contract, as written.
    Contract,
    /// A built-in rule (`shapes/rules/<family>.rs`; layers in `rules/layers.rs`).
    Rule,
}

/// What the rule needs of its tensor arguments' ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ranks {
    /// Nothing: it applies to a tensor of unknown rank too.
    Any,
    /// Known ranks: on a tensor of unknown rank it is kept, to be applied
    /// at each call of the function where the rank is known.
    Known,
    /// Known ranks when a size is inferred (`reshape(x, -1, 4)`); a
    /// shape given in full needs none.
    KnownToInferASize,
    /// Known ranks to check an argument (`dim` of `softmax`); the result
    /// has the input's shape whatever the rank, so on a tensor of unknown
    /// rank the result is the input's shape and the check is kept for
    /// each call where the rank is known.
    KnownToCheck,
}

/// A PyTorch namespace an operation lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Namespace {
    /// `torch.X`
    Torch,
    /// `torch.nn.functional.X`
    Functional,
    /// `Tensor.X`: a method (`x.X(...)` binds `x` to the first parameter).
    Tensor,
    /// `torch.nn.X`: a layer constructor (a module).
    Module,
}

impl Namespace {
    pub fn prefix(self) -> &'static str {
        match self {
            Namespace::Torch => "torch.",
            Namespace::Functional => "torch.nn.functional.",
            Namespace::Tensor => "Tensor.",
            Namespace::Module => "torch.nn.",
        }
    }
}

/// One operation.
#[derive(Clone, Copy, Debug)]
pub struct Operation {
    pub name: &'static str,
    pub family: Family,
    pub shape: ShapeBy,
    pub ranks: Ranks,
    /// Empty for the model language's own operations.
    pub pytorch: &'static [Namespace],
    /// Its name in PyTorch, where the Tensor language cannot use it (a
    /// keyword: `var`); else `name`.
    pub pytorch_name: &'static str,
    /// A layer's `forward` parameters, as PyTorch 1.13 names them. Empty
    /// for operations.
    pub forward: &'static [ForwardParam],
}

/// A parameter of a layer's `forward`.
#[derive(Clone, Copy, Debug)]
pub struct ForwardParam {
    pub name: &'static str,
    pub required: bool,
}

impl Parameter for ForwardParam {
    fn name(&self) -> &str {
        self.name
    }
    fn variadic(&self) -> bool {
        false
    }
    fn required(&self) -> bool {
        self.required
    }
}

impl Operation {
    /// Whether `x.name(...)` is a call of this operation.
    pub fn is_method(&self) -> bool {
        self.pytorch.contains(&Namespace::Tensor)
    }

    /// Whether its rule needs its tensor arguments' ranks, given whether
    /// the call infers a size (`-1` in a shape).
    pub fn needs_known_ranks(&self, infers_a_size: bool) -> bool {
        match self.ranks {
            Ranks::Any => false,
            Ranks::Known | Ranks::KnownToCheck => true,
            Ranks::KnownToInferASize => infers_a_size,
        }
    }

    /// Whether it constructs a layer (a `torch.nn` module).
    pub fn is_layer(&self) -> bool {
        self.family == Family::Layers
    }

    /// A layer's `forward` as a signature, for messages about a call.
    pub fn forward_signature(&self) -> Signature {
        Signature {
            display_name: self.name.to_owned(),
            params: self
                .forward
                .iter()
                .map(|p| SignatureParam {
                    name: p.name.to_owned(),
                    required: p.required,
                    variadic: false,
                    keywords: false,
                })
                .collect(),
        }
    }

    /// Its PyTorch names, in namespace order (`torch.add`, `Tensor.add`).
    pub fn pytorch_names(&self) -> impl Iterator<Item = String> + '_ {
        self.pytorch
            .iter()
            .map(move |ns| format!("{}{}", ns.prefix(), self.pytorch_name))
    }

    /// How Python code usually calls it, for messages: `nn.Linear`,
    /// `torch.cat`, `F.conv2d`. `None` for a tensor method (its name alone
    /// reads as `x.view`) and for the model language's own operations.
    pub fn python_spelling(&self) -> Option<String> {
        let has = |namespace| self.pytorch.contains(&namespace);
        // `F.relu`, `F.conv2d` rather than `torch.relu`: what model code
        // usually writes.
        let prefix = if has(Namespace::Module) {
            "nn."
        } else if has(Namespace::Functional) {
            "F."
        } else if has(Namespace::Torch) {
            "torch."
        } else {
            return None;
        };
        Some(format!("{prefix}{}", self.pytorch_name))
    }

    /// The same operation, called `name` in PyTorch.
    const fn named_in_pytorch(mut self, name: &'static str) -> Operation {
        self.pytorch_name = name;
        self
    }
}

/// The operation called `name`, if the prelude has one. (Asked at every
/// call the analysis and the interpreter meet: a table, not a search.)
pub fn operation(name: &str) -> Option<&'static Operation> {
    static BY_NAME: OnceLock<HashMap<&'static str, &'static Operation>> = OnceLock::new();
    BY_NAME
        .get_or_init(|| OPERATIONS.iter().map(|op| (op.name, op)).collect())
        .get(name)
        .copied()
}

/// The operation a qualified PyTorch name calls (`torch.cat`,
/// `torch.nn.functional.relu`, `torch.nn.Linear`), for the Python front
/// end. Tensor methods (`Tensor.view`) are called on a value, not by name,
/// so they are not looked up here.
pub fn operation_by_pytorch_name(qualified: &str) -> Option<&'static Operation> {
    static BY_PYTORCH_NAME: OnceLock<HashMap<String, &'static Operation>> = OnceLock::new();
    BY_PYTORCH_NAME
        .get_or_init(|| {
            OPERATIONS
                .iter()
                .flat_map(|op| {
                    op.pytorch
                        .iter()
                        .filter(|ns| **ns != Namespace::Tensor)
                        .map(move |ns| (format!("{}{}", ns.prefix(), op.pytorch_name), op))
                })
                .collect()
        })
        .get(qualified)
        .copied()
}

/// Whether the rule of `name` needs its tensor arguments' ranks, given
/// whether the call infers a size (`-1` in a shape).
pub fn needs_known_ranks(name: &str, infers_a_size: bool) -> bool {
    operation(name).is_some_and(|op| op.needs_known_ranks(infers_a_size))
}

/// Whether `name` constructs a layer.
pub fn is_layer_constructor(name: &str) -> bool {
    operation(name).is_some_and(Operation::is_layer)
}

use Family::*;
use Namespace::{Functional as F, Module, Tensor as T, Torch};
use Ranks::{Any, Known, KnownToCheck, KnownToInferASize};
use ShapeBy::{Contract, Rule};

const fn op(
    name: &'static str,
    family: Family,
    shape: ShapeBy,
    ranks: Ranks,
    pytorch: &'static [Namespace],
) -> Operation {
    Operation {
        name,
        family,
        shape,
        ranks,
        pytorch,
        pytorch_name: name,
        forward: &[],
    }
}

const fn given(name: &'static str) -> ForwardParam {
    ForwardParam {
        name,
        required: true,
    }
}

const fn optional(name: &'static str) -> ForwardParam {
    ForwardParam {
        name,
        required: false,
    }
}

/// The `forward` of most layers.
const ONE_INPUT: &[ForwardParam] = &[given("input")];

/// `MultiheadAttention.forward`.
const ATTENTION_FORWARD: &[ForwardParam] = &[
    given("query"),
    given("key"),
    given("value"),
    optional("key_padding_mask"),
    optional("need_weights"),
    optional("attn_mask"),
    optional("average_attn_weights"),
];

/// `LSTM.forward` and `GRU.forward`: a sequence and an initial state.
const RECURRENT_FORWARD: &[ForwardParam] = &[given("input"), optional("hx")];

/// `torch.nn.LSTM` or `torch.nn.GRU`.
const fn recurrent_layer(name: &'static str) -> Operation {
    let mut layer = op(name, Layers, Rule, Known, &[Module]);
    layer.forward = RECURRENT_FORWARD;
    layer
}

/// A layer constructor of `torch.nn` whose `forward` takes one tensor;
/// `ranks` as its call's rule needs.
const fn layer(name: &'static str, ranks: Ranks) -> Operation {
    let mut layer = op(name, Layers, Rule, ranks, &[Module]);
    layer.forward = ONE_INPUT;
    layer
}

/// `torch.nn.MultiheadAttention`, whose `forward` takes three tensors and
/// optional masks.
const fn attention_layer() -> Operation {
    let mut layer = op("MultiheadAttention", Layers, Rule, Known, &[Module]);
    layer.forward = ATTENTION_FORWARD;
    layer
}

/// Every operation, in the prelude's order.
pub static OPERATIONS: &[Operation] = &[
    // creation
    op("zeros", Creation, Rule, Any, &[Torch]),
    op("ones", Creation, Rule, Any, &[Torch]),
    op("randn", Creation, Rule, Any, &[Torch]),
    op("rand", Creation, Rule, Any, &[Torch]),
    op("empty", Creation, Rule, Any, &[Torch]),
    op("full", Creation, Rule, Any, &[Torch]),
    op("arange", Creation, Rule, Any, &[Torch]),
    op("eye", Creation, Rule, Any, &[Torch]),
    op("randint", Creation, Rule, Any, &[Torch]),
    op("randperm", Creation, Contract, Any, &[Torch]),
    op("zeros_like", Creation, Contract, Any, &[Torch]),
    op("ones_like", Creation, Contract, Any, &[Torch]),
    op("randn_like", Creation, Contract, Any, &[Torch]),
    op("rand_like", Creation, Contract, Any, &[Torch]),
    op("empty_like", Creation, Contract, Any, &[Torch]),
    op("full_like", Creation, Contract, Any, &[Torch]),
    op("randint_like", Creation, Contract, Any, &[Torch]),
    op("linspace", Creation, Contract, Any, &[Torch]),
    op("new_zeros", Creation, Rule, Any, &[T]),
    op("new_ones", Creation, Rule, Any, &[T]),
    op("new_empty", Creation, Rule, Any, &[T]),
    op("new_full", Creation, Rule, Any, &[T]),
    // element-wise, binary (broadcasting)
    op("add", Elementwise, Rule, Known, &[Torch, T]),
    op("sub", Elementwise, Rule, Known, &[Torch, T]),
    op("mul", Elementwise, Rule, Known, &[Torch, T]),
    op("div", Elementwise, Rule, Known, &[Torch, T]),
    op("divide", Elementwise, Rule, Known, &[Torch, T]),
    op("pow", Elementwise, Rule, Known, &[Torch, T]),
    op("maximum", Elementwise, Rule, Known, &[Torch, T]),
    op("minimum", Elementwise, Rule, Known, &[Torch, T]),
    // `Tensor.where(condition, other)` binds the tensor to `input`, not to
    // the first parameter: not a method here.
    op("where", Elementwise, Rule, Known, &[Torch]),
    op("eq", Elementwise, Rule, Known, &[Torch, T]),
    op("ne", Elementwise, Rule, Known, &[Torch, T]),
    op("lt", Elementwise, Rule, Known, &[Torch, T]),
    op("le", Elementwise, Rule, Known, &[Torch, T]),
    op("gt", Elementwise, Rule, Known, &[Torch, T]),
    op("ge", Elementwise, Rule, Known, &[Torch, T]),
    op("masked_fill", Elementwise, Rule, Known, &[Torch, T]),
    // element-wise, unary
    op("relu", Elementwise, Contract, Any, &[Torch, F, T]),
    op("gelu", Elementwise, Contract, Any, &[F]),
    op("relu6", Elementwise, Contract, Any, &[F]),
    op("hardswish", Elementwise, Contract, Any, &[F]),
    op("hardsigmoid", Elementwise, Contract, Any, &[F]),
    op("leaky_relu", Elementwise, Contract, Any, &[F]),
    op("silu", Elementwise, Contract, Any, &[F]),
    op("sigmoid", Elementwise, Contract, Any, &[Torch, F, T]),
    op("tanh", Elementwise, Contract, Any, &[Torch, F, T]),
    op("exp", Elementwise, Contract, Any, &[Torch, T]),
    op("log", Elementwise, Contract, Any, &[Torch, T]),
    op("sqrt", Elementwise, Contract, Any, &[Torch, T]),
    op("abs", Elementwise, Contract, Any, &[Torch, T]),
    op("neg", Elementwise, Contract, Any, &[Torch, T]),
    op("round", Elementwise, Contract, Any, &[Torch, T]),
    op("dropout", Elementwise, Contract, Any, &[F]),
    // The shape stays; the rule checks `dim`.
    op("softmax", Reduce, Rule, KnownToCheck, &[Torch, F, T]),
    op("log_softmax", Reduce, Rule, KnownToCheck, &[Torch, F, T]),
    op("contiguous", Elementwise, Contract, Any, &[T]),
    op("clone", Elementwise, Contract, Any, &[Torch, T]),
    op("detach", Elementwise, Contract, Any, &[Torch, T]),
    op("tril", Elementwise, Contract, Any, &[Torch, T]),
    op("triu", Elementwise, Contract, Any, &[Torch, T]),
    op("clamp", Elementwise, Contract, Any, &[Torch, T]),
    op("type_as", Elementwise, Contract, Any, &[T]),
    op("to", Elementwise, Contract, Any, &[T]),
    op("float", Elementwise, Contract, Any, &[T]),
    op("half", Elementwise, Contract, Any, &[T]),
    op("double", Elementwise, Contract, Any, &[T]),
    op("long", Elementwise, Contract, Any, &[T]),
    op("int", Elementwise, Contract, Any, &[T]),
    // linear algebra
    op("matmul", Linalg, Rule, Known, &[Torch, T]),
    op("mm", Linalg, Contract, Any, &[Torch, T]),
    op("bmm", Linalg, Contract, Any, &[Torch, T]),
    op("dot", Linalg, Contract, Any, &[Torch, T]),
    // Index notation is read by its own analysis (`shapes/einsum.rs`).
    op("einsum", Linalg, Rule, Any, &[Torch]),
    op("tensordot", Linalg, Rule, Known, &[Torch]),
    op("baddbmm", Linalg, Rule, Known, &[Torch, T]),
    op("scaled_dot_product_attention", Linalg, Rule, Known, &[F]),
    // shape
    op("reshape", Shape, Rule, KnownToInferASize, &[Torch, T]),
    op("view", Shape, Rule, KnownToInferASize, &[T]),
    op("flatten", Shape, Rule, Known, &[Torch, T]),
    op("squeeze", Shape, Rule, Known, &[Torch, T]),
    op("unsqueeze", Shape, Rule, Known, &[Torch, T]),
    op("transpose", Shape, Rule, Known, &[Torch, T]),
    op("swapdims", Shape, Rule, Known, &[Torch, T]),
    op("swapaxes", Shape, Rule, Known, &[Torch, T]),
    op("permute", Shape, Rule, Known, &[Torch, T]),
    op("t", Shape, Rule, Known, &[Torch, T]),
    op("expand", Shape, Rule, Known, &[T]),
    op("broadcast_to", Shape, Rule, Known, &[Torch, T]),
    op("cat", Shape, Rule, Known, &[Torch]),
    op("stack", Shape, Rule, Known, &[Torch]),
    op("meshgrid", Shape, Rule, Known, &[Torch]),
    op("split", Shape, Rule, Any, &[Torch, T]),
    op("chunk", Shape, Rule, Any, &[Torch, T]),
    op("narrow", Shape, Rule, Known, &[Torch, T]),
    op("diff", Shape, Rule, Known, &[Torch, T]),
    op("flip", Shape, Contract, Any, &[Torch, T]),
    op("roll", Shape, Contract, Any, &[Torch, T]),
    // indexing, repeating and sorting
    op("gather", Indexing, Rule, Known, &[Torch, T]),
    op("index_select", Indexing, Rule, Known, &[Torch, T]),
    op("repeat", Indexing, Rule, Known, &[T]),
    op("tile", Indexing, Rule, Known, &[Torch, T]),
    op("repeat_interleave", Indexing, Rule, Known, &[Torch, T]),
    op("unbind", Indexing, Rule, Known, &[Torch, T]),
    op("topk", Indexing, Rule, Known, &[Torch, T]),
    op("sort", Indexing, Rule, Known, &[Torch, T]),
    // reductions
    op("sum", Reduce, Rule, Known, &[Torch, T]),
    op("mean", Reduce, Rule, Known, &[Torch, T]),
    op("max", Reduce, Rule, Known, &[Torch, T]),
    op("min", Reduce, Rule, Known, &[Torch, T]),
    op("prod", Reduce, Rule, Known, &[Torch, T]),
    op("argmax", Reduce, Rule, Known, &[Torch, T]),
    op("norm", Reduce, Rule, Known, &[Torch, T]),
    op("argmin", Reduce, Rule, Known, &[Torch, T]),
    op("amax", Reduce, Rule, Known, &[Torch, T]),
    op("amin", Reduce, Rule, Known, &[Torch, T]),
    op("variance", Reduce, Rule, Known, &[Torch, T]).named_in_pytorch("var"),
    op("std", Reduce, Rule, Known, &[Torch, T]),
    op("any", Reduce, Rule, Known, &[Torch, T]),
    op("all", Reduce, Rule, Known, &[Torch, T]),
    // The shape stays; the rule checks `dim`.
    op("cumsum", Reduce, Rule, KnownToCheck, &[Torch, T]),
    // tensor properties
    op("size", Shape, Rule, Any, &[T]),
    op("dim", Shape, Rule, Any, &[T]),
    op("numel", Shape, Rule, Known, &[Torch, T]),
    // layers
    layer("Linear", Any),
    layer("Conv1d", Any),
    layer("Conv2d", Any),
    layer("Conv3d", Any),
    layer("ConvTranspose2d", Any),
    layer("MaxPool2d", Any),
    layer("AvgPool2d", Any),
    layer("AdaptiveAvgPool2d", Any),
    layer("MaxPool1d", Any),
    layer("AvgPool1d", Any),
    layer("AdaptiveAvgPool1d", Any),
    layer("Upsample", Any),
    layer("GroupNorm", Any),
    layer("InstanceNorm1d", Any),
    layer("InstanceNorm2d", Any),
    layer("BatchNorm1d", Any),
    layer("BatchNorm2d", Any),
    layer("LayerNorm", Any),
    layer("Embedding", Any),
    attention_layer(),
    recurrent_layer("LSTM"),
    recurrent_layer("GRU"),
    layer("Dropout", Any),
    layer("ReLU", Any),
    layer("ReLU6", Any),
    layer("Hardswish", Any),
    layer("Hardsigmoid", Any),
    layer("LeakyReLU", Any),
    layer("SiLU", Any),
    layer("GELU", Any),
    layer("Sigmoid", Any),
    layer("Tanh", Any),
    layer("Softmax", Any),
    layer("Identity", Any),
    layer("Flatten", Known),
    layer("Sequential", Any),
    // functional
    op("linear", Nn, Rule, Any, &[F]),
    op("conv1d", Nn, Rule, Any, &[Torch, F]),
    op("conv2d", Nn, Rule, Any, &[Torch, F]),
    op("conv3d", Nn, Rule, Any, &[Torch, F]),
    op("conv_transpose2d", Nn, Rule, Any, &[Torch, F]),
    op("max_pool2d", Nn, Rule, Any, &[Torch, F]),
    op("avg_pool2d", Nn, Rule, Any, &[F]),
    op("adaptive_avg_pool2d", Nn, Rule, Any, &[F]),
    op("max_pool1d", Nn, Rule, Any, &[Torch, F]),
    op("avg_pool1d", Nn, Rule, Any, &[Torch, F]),
    op("adaptive_avg_pool1d", Nn, Rule, Any, &[Torch, F]),
    op("pad", Nn, Rule, Known, &[F]),
    op("interpolate", Nn, Rule, Known, &[F]),
    op("group_norm", Nn, Rule, Any, &[Torch, F]),
    op("pixel_shuffle", Nn, Contract, Any, &[Torch, F]),
    op("batch_norm", Nn, Rule, Any, &[F]),
    op("layer_norm", Nn, Rule, Any, &[F]),
    op("embedding", Nn, Rule, Any, &[F]),
    // tensor algebra: `outer` is the model language's tensor product of
    // any ranks (PyTorch's takes vectors only).
    op("outer", Algebra, Rule, Known, &[]),
    op("contract", Algebra, Rule, Known, &[]),
    op("diag", Algebra, Rule, Known, &[]),
    op("expand_dim", Algebra, Rule, Known, &[]),
    op("project", Algebra, Rule, Known, &[]),
    op("reduce_sum", Algebra, Rule, Known, &[]),
    op("reduce_prod", Algebra, Rule, Known, &[]),
    op("reduce_max", Algebra, Rule, Known, &[]),
    op("reduce_min", Algebra, Rule, Known, &[]),
];

/// The table of supported operations (`docs/operations.md`), generated
/// from the registry and the prelude's declarations.
pub fn operations_markdown(prelude: &crate::Prelude) -> String {
    let mut out = String::from(
        "# Supported operations\n\n\
         Generated from the operation registry (`crates/tensorfit_semantics/src/registry.rs`)\n\
         and the prelude (`crates/tensorfit_semantics/prelude/prelude.tensor`); a test keeps\n\
         it in step (`UPDATE_EXPECT=1 cargo test -p tensorfit_semantics registry` rewrites it).\n\n\
         *Shape* says where the analysis takes the result's shape from: the contract as\n\
         written, or a built-in rule (docs/analysis.md), which waits for the ranks of its\n\
         tensor arguments where *ranks* says so. Every operation also runs in the\n\
         interpreter (`tensorfit run`). In Tensor programs any operation may be called as a\n\
         method (`x.f(a)` is `f(x, a)`); editors offer PyTorch's tensor methods only.\n",
    );
    for family in Family::ALL {
        out.push_str(&format!(
            "\n## {}\n\n| operation | PyTorch | shape | ranks | declaration |\n|---|---|---|---|---|\n",
            family.title()
        ));
        for op in OPERATIONS.iter().filter(|op| op.family == family) {
            let pytorch: Vec<String> = op.pytorch_names().map(|n| format!("`{n}`")).collect();
            let pytorch = if pytorch.is_empty() {
                "(the model language's own)".to_owned()
            } else {
                pytorch.join(", ")
            };
            let shape = match op.shape {
                ShapeBy::Contract => "contract",
                ShapeBy::Rule => "rule",
            };
            let ranks = match op.ranks {
                Ranks::Any => "",
                Ranks::Known => "known",
                Ranks::KnownToInferASize => "known to infer a size",
                Ranks::KnownToCheck => "known to check `dim`",
            };
            let declaration = prelude
                .function(op.name)
                .map(|f| declaration_text(&prelude.source, f))
                .unwrap_or_default();
            out.push_str(&format!(
                "| `{}` | {pytorch} | {shape} | {ranks} | `{declaration}` |\n",
                op.name
            ));
        }
    }
    out
}

/// A declaration as written, on one line, without `extern fn`.
fn declaration_text(source: &str, function: &tensorfit_syntax::ast::Function) -> String {
    let text = source
        .get(function.range.start as usize..function.range.end as usize)
        .unwrap_or_default();
    let text = text.trim_start_matches("extern").trim_start();
    let text = text.trim_start_matches("fn").trim_start();
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace("( ", "(")
        .replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::PathBuf;

    use super::*;
    use crate::Prelude;

    #[test]
    fn python_spellings_are_what_code_writes() {
        let spelled = |name: &str| operation(name).and_then(Operation::python_spelling);
        assert_eq!(spelled("Linear").as_deref(), Some("nn.Linear"));
        assert_eq!(spelled("cat").as_deref(), Some("torch.cat"));
        assert_eq!(spelled("conv2d").as_deref(), Some("F.conv2d"));
        assert_eq!(spelled("relu").as_deref(), Some("F.relu"));
        assert_eq!(spelled("variance").as_deref(), Some("torch.var"));
        // A method reads as itself; the model language has no PyTorch name.
        assert_eq!(spelled("view"), None);
        assert_eq!(spelled("contract"), None);
    }

    fn repository() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    #[test]
    fn the_registry_and_the_prelude_name_the_same_operations() {
        let prelude = Prelude::builtin();
        let declared: BTreeSet<&str> = prelude.signatures.keys().map(String::as_str).collect();
        let registered: BTreeSet<&str> = OPERATIONS.iter().map(|op| op.name).collect();
        assert_eq!(
            registered.len(),
            OPERATIONS.len(),
            "an operation registered twice"
        );
        let unregistered: Vec<_> = declared.difference(&registered).collect();
        let undeclared: Vec<_> = registered.difference(&declared).collect();
        assert!(
            unregistered.is_empty() && undeclared.is_empty(),
            "declared in the prelude only: {unregistered:?}; registered only: {undeclared:?}"
        );
        // A layer constructor returns its own type; nothing else does.
        for op in OPERATIONS {
            let function = prelude.function(op.name).unwrap();
            let returns_itself = matches!(
                function.return_type.as_ref().map(|t| &t.kind),
                Some(tensorfit_syntax::ast::TypeKind::Named(n)) if n.text == op.name
            );
            assert_eq!(returns_itself, op.is_layer(), "{}", op.name);
        }
    }

    /// A contract operation's shape is its contract's, so the contract must
    /// say one: a shaped tensor (a bare `Tensor` would say nothing).
    #[test]
    fn contract_operations_have_shaped_contracts() {
        let prelude = Prelude::builtin();
        for op in OPERATIONS.iter().filter(|op| op.shape == ShapeBy::Contract) {
            let function = prelude.function(op.name).unwrap();
            assert!(
                matches!(
                    function.return_type.as_ref().map(|t| &t.kind),
                    Some(tensorfit_syntax::ast::TypeKind::Tensor { dims: Some(_) })
                ),
                "`{}` takes its shape from a contract that states none",
                op.name
            );
        }
    }

    /// Every operation is called on a line of the test programs that states
    /// what the analysis must find there (`//~ shape`, an error...); the
    /// expectation suite checks it, and the differential suite runs it.
    #[test]
    fn every_operation_has_a_test_line() {
        let mut lines = Vec::new();
        let mut dirs = vec![repository().join("tests/programs")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("tests/programs") {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "tensor") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    lines.extend(
                        text.lines()
                            .filter(|l| l.contains("//~"))
                            .map(str::to_owned),
                    );
                }
            }
        }
        let calls = |line: &str, name: &str| {
            line.match_indices(name).any(|(at, _)| {
                let before = line[..at].chars().next_back();
                let after = line[at + name.len()..].trim_start().chars().next();
                !before.is_some_and(|c| c.is_alphanumeric() || c == '_') && after == Some('(')
            })
        };
        let untested: Vec<&str> = OPERATIONS
            .iter()
            .map(|op| op.name)
            .filter(|name| !lines.iter().any(|line| calls(line, name)))
            .collect();
        assert!(untested.is_empty(), "no test line calls {untested:?}");
    }

    #[test]
    fn the_table_of_operations_is_generated_from_the_registry() {
        let path = repository().join("docs/operations.md");
        let generated = operations_markdown(Prelude::builtin());
        if std::env::var_os("UPDATE_EXPECT").is_some() {
            std::fs::write(&path, &generated).unwrap();
        }
        let written = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            written == generated,
            "docs/operations.md is out of date: run `UPDATE_EXPECT=1 cargo test -p tensorfit_semantics registry`"
        );
    }
}
