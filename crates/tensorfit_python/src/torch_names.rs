//! What a qualified PyTorch name means to the analysis: an operation of the
//! registry (`torch.cat` → `cat`), a wrapper that keeps its argument's
//! shape (`nn.Parameter`), or something not modelled, which is unknown.

use tensorfit_semantics::registry;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Resolved {
    /// The prelude operation of this name.
    Operation(&'static str),
    /// Returns its first argument's value: `nn.Parameter(t)` is `t`.
    FirstArgument,
    /// A `Lazy*` layer: this prelude layer with its first argument (the
    /// input size) left to infer (PYTHON.md §5).
    Lazy(&'static str),
    /// `functools.partial`: a callable with some arguments given.
    Partial,
    /// Not modelled: the reason hover gives.
    Unknown(String),
}

/// Wrappers whose result has the shape of their first argument.
const FIRST_ARGUMENT: &[&str] = &["torch.nn.Parameter", "torch.nn.parameter.Parameter"];

/// Tensor methods that convert the device, the dtype or autograd state,
/// or change the values in place, and keep the shape. The registry models
/// the ones the Tensor language has (`to`, `float`, `detach`, ...); these
/// are the rest, which only PyTorch code uses.
pub(crate) const SHAPE_KEEPING_METHODS: &[&str] = &[
    "cuda",
    "cpu",
    "bool",
    "byte",
    "short",
    "bfloat16",
    "requires_grad_",
    "pin_memory",
    "share_memory_",
    // Filled in place with random or given values.
    "bernoulli_",
    "uniform_",
    "normal_",
    "random_",
    "exponential_",
    "geometric_",
    "cauchy_",
    "log_normal_",
    "zero_",
    "fill_",
    // Changed in place elementwise: the other operand is broadcast to the
    // receiver's shape (PyTorch refuses one it cannot be; that error is
    // not reported here).
    "add_",
    "sub_",
    "mul_",
    "div_",
    "clamp_",
    "clamp_min_",
    "clamp_max_",
    "masked_fill_",
    "relu_",
    "sigmoid_",
    "tanh_",
    "exp_",
    "neg_",
    "abs_",
    "sqrt_",
    "floor_",
    "round_",
];

/// Python floats by name: the `math` functions and constants a model uses
/// for scales (`1 / math.sqrt(d)`). Their value never changes a shape;
/// that they are floats keeps `x * scale` a tensor of `x`'s shape.
pub(crate) fn is_float_valued(qualified: &str) -> bool {
    matches!(
        qualified,
        "math.sqrt"
            | "math.log"
            | "math.log2"
            | "math.log10"
            | "math.exp"
            | "math.cos"
            | "math.sin"
            | "math.tan"
            | "math.tanh"
            | "math.erf"
            | "math.pow"
            | "math.pi"
            | "math.e"
            | "math.inf"
            | "math.nan"
            | "math.tau"
    )
}

/// The value of a `math` constant.
pub(crate) fn math_constant(qualified: &str) -> Option<f64> {
    match qualified {
        "math.pi" => Some(std::f64::consts::PI),
        "math.e" => Some(std::f64::consts::E),
        "math.tau" => Some(std::f64::consts::TAU),
        _ => None,
    }
}

/// Questions about how the code runs whose answer is `False` when it runs
/// as written, in eager mode (`if torch.jit.is_scripting():` guards a
/// TorchScript-only return of GoogLeNet and Inception): the checker
/// follows the code PyTorch runs when the file is imported and called.
pub(crate) fn is_false_when_checked(qualified: &str) -> bool {
    matches!(
        qualified,
        "torch.jit.is_scripting"
            | "torch.jit.is_tracing"
            | "torch.onnx.is_in_onnx_export"
            | "torch._jit_internal.is_scripting"
            | "torch.fx._symbolic_trace.is_fx_tracing"
    )
}

/// The meaning of a dotted path such as `torch.nn.functional.relu`.
pub(crate) fn resolve(qualified: &str) -> Resolved {
    if let Some(op) = registry::operation_by_pytorch_name(qualified) {
        return Resolved::Operation(op.name);
    }
    // `torch.nn.modules.linear.Linear` and the like: the public name.
    if let Some(rest) = qualified.strip_prefix("torch.nn.modules.") {
        if let Some((_, name)) = rest.rsplit_once('.') {
            if let Some(op) = registry::operation_by_pytorch_name(&format!("torch.nn.{name}")) {
                return Resolved::Operation(op.name);
            }
        }
    }
    if FIRST_ARGUMENT.contains(&qualified) {
        return Resolved::FirstArgument;
    }
    if qualified == "functools.partial" {
        return Resolved::Partial;
    }
    // `nn.LazyLinear` is `nn.Linear` without `in_features`.
    let public = qualified
        .strip_prefix("torch.nn.modules.")
        .and_then(|rest| rest.rsplit_once('.'))
        .map_or(qualified, |(_, name)| name);
    let lazy = public.strip_prefix("torch.nn.Lazy").or_else(|| {
        (public != qualified)
            .then(|| public.strip_prefix("Lazy"))
            .flatten()
    });
    if let Some(concrete) = lazy {
        if let Some(op) = registry::operation_by_pytorch_name(&format!("torch.nn.{concrete}")) {
            return Resolved::Lazy(op.name);
        }
    }
    if qualified == "torch" || qualified.starts_with("torch.") {
        Resolved::Unknown(format!("`{qualified}` is not modelled"))
    } else {
        Resolved::Unknown(format!("`{qualified}` is outside what tensorfit reads"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_names_resolve_in_every_namespace() {
        assert_eq!(resolve("torch.cat"), Resolved::Operation("cat"));
        assert_eq!(
            resolve("torch.nn.functional.relu"),
            Resolved::Operation("relu")
        );
        assert_eq!(resolve("torch.nn.Linear"), Resolved::Operation("Linear"));
        assert_eq!(
            resolve("torch.nn.modules.conv.Conv2d"),
            Resolved::Operation("Conv2d")
        );
        assert_eq!(resolve("torch.nn.Parameter"), Resolved::FirstArgument);
        assert_eq!(resolve("torch.nn.LazyLinear"), Resolved::Lazy("Linear"));
        assert_eq!(
            resolve("torch.nn.modules.conv.LazyConv2d"),
            Resolved::Lazy("Conv2d")
        );
        assert_eq!(resolve("functools.partial"), Resolved::Partial);
        assert!(
            matches!(resolve("torch.fft.fft"), Resolved::Unknown(why) if why.contains("not modelled"))
        );
        assert!(matches!(resolve("numpy.zeros"), Resolved::Unknown(_)));
    }
}
