//! Completion, data-driven: each fixture marks the cursor with `$0` (often
//! at the end of half-typed text); the expectation lists the items offered,
//! one per line as `label (Kind) detail [inserts text]`. Most fixtures type
//! a prefix, which keeps the lists (the prelude has ~150 operations) short.
//! Update with `UPDATE_EXPECT=1 cargo test -p tensorfit_ide --test completion`.

use expect_test::{expect, Expect};
use tensorfit_base::TextRange;
use tensorfit_ide::{completions, CompletionItem, CompletionKind, Environment};
use tensorfit_semantics::{ImportOutcome, ResolvedImport};

fn complete(fixture: &str, imports: &[ResolvedImport]) -> Vec<CompletionItem> {
    let offset = fixture.find("$0").expect("fixture has a $0 cursor");
    let text = fixture.replace("$0", "");
    let parse = tensorfit_syntax::parse(&text);
    let (file, first_error) = (&parse.file, parse.first_syntax_error());
    completions(
        file,
        &text,
        offset,
        Environment::builtin(imports),
        first_error,
    )
}

fn render(items: &[CompletionItem]) -> String {
    if items.is_empty() {
        return "no completions\n".to_owned();
    }
    let mut out = String::new();
    for item in items {
        out.push_str(&format!("{} ({:?})", item.label, item.kind));
        if let Some(detail) = &item.detail {
            out.push_str(&format!(" {detail}"));
        }
        if let Some(insert) = &item.insert_text {
            out.push_str(&format!(" [inserts `{insert}`]"));
        }
        out.push('\n');
    }
    out
}

fn check(fixture: &str, expect: Expect) {
    expect.assert_eq(&render(&complete(fixture, &[])));
}

fn check_named_arguments(fixture: &str, expect: Expect) {
    let items: Vec<CompletionItem> = complete(fixture, &[])
        .into_iter()
        .filter(|i| i.kind == CompletionKind::NamedArgument)
        .collect();
    expect.assert_eq(&render(&items));
}

fn labels(fixture: &str) -> Vec<String> {
    complete(fixture, &[])
        .into_iter()
        .map(|i| i.label)
        .collect()
}

#[test]
fn locals_declared_before_the_cursor_and_in_scope() {
    check(
        r#"
fn f(inp: Tensor[batch, 3], k: Int) -> Tensor {
  let hidden = relu(inp)
  if k > 1 {
    let inner = hidden
  }
  let y = i$0
  let ignored = 1
}
"#,
        expect![[r#"
            inp (Parameter) Tensor[batch, 3]
            Identity (Struct) (..args) -> Identity
            InstanceNorm1d (Struct) (num_features: Int, eps: Float = 0.00001, momentum: Float = 0.1, affine: Bool = false, track_running_stats: Bool = false) -> InstanceNorm1d
            InstanceNorm2d (Struct) (num_features: Int, eps: Float = 0.00001, momentum: Float = 0.1, affine: Bool = false, track_running_stats: Bool = false) -> InstanceNorm2d
            index_select (Function) (input: Tensor, dim: Int, index: Tensor) -> Tensor
            int (Function) (input: Tensor[..s]) -> Tensor[..s]
            interpolate (Function) (input: Tensor, size = None, scale_factor = None, mode: String = "nearest", align_corners: Bool = None, recompute_scale_factor: Bool = None, antialias: Bool = false) -> Tensor
        "#]],
    );
}

#[test]
fn half_typed_function_still_has_its_locals() {
    // The text ends inside the body: the file's tree has lost the function.
    check(
        r#"
fn f(inp: Tensor[batch, 3], k: Int) -> Tensor {
  let hidden = relu(inp)
  var hits: Tensor[batch] = zeros(batch)
  let y = h$0"#,
        expect![[r#"
            hits (Variable) Tensor[batch]
            hidden (Variable)
            Hardsigmoid (Struct) (inplace: Bool = false) -> Hardsigmoid
            Hardswish (Struct) (inplace: Bool = false) -> Hardswish
            half (Function) (input: Tensor[..s]) -> Tensor[..s]
            hardsigmoid (Function) (input: Tensor[..s], inplace: Bool = false) -> Tensor[..s]
            hardswish (Function) (input: Tensor[..s], inplace: Bool = false) -> Tensor[..s]
        "#]],
    );
}

#[test]
fn dimension_names_loop_and_index_variables() {
    check(
        r#"
fn f(x: Tensor[batch, ..bdims]) -> Tensor {
  for bi in 0..batch {
    let A[bj] = x[bj, bk] * b$0
  }
}
"#,
        expect![[r#"
            bk (Variable) index variable
            bj (Variable) index variable
            bi (Variable) loop variable
            bdims (DimensionName) dimension segment
            batch (DimensionName) dimension name
            BatchNorm1d (Struct) (num_features: Int, eps: Float = 0.00001, momentum: Float = 0.1, affine: Bool = true, track_running_stats: Bool = true) -> BatchNorm1d
            BatchNorm2d (Struct) (num_features: Int, eps: Float = 0.00001, momentum: Float = 0.1, affine: Bool = true, track_running_stats: Bool = true) -> BatchNorm2d
            baddbmm (Function) (input: Tensor, batch1: Tensor, batch2: Tensor, beta: Float = 1, alpha: Float = 1) -> Tensor
            batch_norm (Function) (input: Tensor, running_mean: Tensor, running_var: Tensor, weight: Tensor = None, bias: Tensor = None, training: Bool = false, momentum: Float = 0.1, eps: Float = 0.00001) -> Tensor
            bmm (Function) (input: Tensor[b, n, m], mat2: Tensor[b, m, p]) -> Tensor[b, n, p]
            broadcast_to (Function) (input: Tensor, shape: Shape) -> Tensor
        "#]],
    );
}

#[test]
fn items_of_the_file_and_of_imports() {
    let imported = tensorfit_syntax::parse(
        "fn norm_layer(x: Tensor[n]) -> Tensor[n] { return x }\nstruct NetBlock(n: Int) { }\nconst neurons = 8\n",
    )
    .file;
    let imports = [ResolvedImport {
        range: TextRange::new(7, 19),
        display_path: "lib.tensor".to_owned(),
        names: Vec::new(),
        outcome: ImportOutcome::Loaded(imported),
    }];
    let items = complete(
        r#"import "lib.tensor"
const num = 3
fn net(x: Tensor) -> Tensor { return x }
let y = n$0
struct Net2(n: Int = 2) { }
"#,
        &imports,
    );
    expect![[r#"
        Net2 (Struct) (n: Int = 2)
        NetBlock (Struct) (n: Int)
        net (Function) (x: Tensor) -> Tensor
        neurons (Constant) = 8
        norm_layer (Function) (x: Tensor[n]) -> Tensor[n]
        num (Constant) = 3
        None (Constant) prelude value
        narrow (Function) (input: Tensor, dim: Int, start: Int, length: Int) -> Tensor
        ne (Function) (input: Tensor[..a], other: Tensor[..b]) -> Tensor[..broadcast(a, b)]
        neg (Function) (input: Tensor[..s]) -> Tensor[..s]
        new_empty (Function) (input: Tensor, ..size: Int) -> Tensor
        new_full (Function) (input: Tensor, size: Shape, fill_value: Float) -> Tensor
        new_ones (Function) (input: Tensor, ..size: Int) -> Tensor
        new_zeros (Function) (input: Tensor, ..size: Int) -> Tensor
        norm (Function) (input: Tensor, p: Float = 2, dim: Int = None, keepdim: Bool = false) -> Tensor
        numel (Function) (input: Tensor) -> Int
    "#]]
    .assert_eq(&render(&items));
}

#[test]
fn a_local_shadows_an_item_and_the_prelude() {
    check(
        r#"
fn relu(x: Tensor) -> Tensor { return x }
fn g(reluish: Int) -> Int {
  let relu = 3
  return relu$0
}
"#,
        expect![[r#"
            relu (Variable)
            reluish (Parameter) Int
            ReLU (Struct) (inplace: Bool = false) -> ReLU
            ReLU6 (Struct) (inplace: Bool = false) -> ReLU6
            relu6 (Function) (input: Tensor[..s], inplace: Bool = false) -> Tensor[..s]
        "#]],
    );
}

#[test]
fn members_of_a_tensor_are_its_properties_and_pytorchs_tensor_methods() {
    check(
        r#"
fn f(x: Tensor) -> Tensor {
  return x.re$0
"#,
        expect![[r#"
            relu (Method) (inplace: Bool = false) -> Tensor[..s]
            repeat (Method) (..repeats: Int) -> Tensor
            repeat_interleave (Method) (repeats: Int, dim: Int = None) -> Tensor
            reshape (Method) (..shape: Int) -> Tensor
        "#]],
    );
    let all = labels("let x = randn(3)\nlet y = x.$0");
    for expected in [
        "shape",
        "rank",
        "reshape",
        "view",
        "sum",
        "size",
        "transpose",
    ] {
        assert!(all.iter().any(|l| l == expected), "{expected} in {all:?}");
    }
    // Layers, creation, functional-only operations and the model
    // language's own are no methods of PyTorch's tensors (though a Tensor
    // program may call any operation as one).
    for other in [
        "Conv2d",
        "Linear",
        "zeros",
        "x",
        "y",
        "conv2d",
        "gelu",
        "dropout",
        "rand_like",
        "reduce_sum",
        "contract",
        "cat",
        "where",
    ] {
        assert!(
            !all.iter().any(|l| l == other),
            "{other} is no tensor method"
        );
    }
}

#[test]
fn members_of_self_are_the_structs_fields_parameters_and_methods() {
    check(
        r#"
struct Block(c: Int, stride: Int = 1) {
  conv = Conv2d(c, c, kernel_size: 3, stride: stride)
  bn = BatchNorm2d(c)
  fn head(self, x: Tensor) -> Tensor { return x }
  fn forward(self, x: Tensor) -> Tensor {
    let y = self.$0
  }
}
"#,
        expect![[r#"
            conv (Field) = Conv2d(c, c, kernel_size: 3, stride: stride)
            bn (Field) = BatchNorm2d(c)
            c (Parameter) Int
            stride (Parameter) Int
            head (Method) (x: Tensor) -> Tensor
            forward (Method) (x: Tensor) -> Tensor
        "#]],
    );
}

#[test]
fn members_of_self_in_truncated_text() {
    check(
        r#"
struct Model {
  fc = Linear(4, 2)
  fn forward(self, x: Tensor) -> Tensor {
    return self.f$0"#,
        expect![[r#"
            fc (Field) = Linear(4, 2)
            forward (Method) (x: Tensor) -> Tensor
        "#]],
    );
}

#[test]
fn members_of_an_instance_declared_later_in_the_file() {
    check(
        r#"
let m = Model(4)
let out = m.f$0
struct Model(width: Int) {
  fc = Linear(width, 2)
  fn forward(self, x: Tensor) -> Tensor { return self.fc(x) }
}
"#,
        expect![[r#"
            fc (Field) = Linear(width, 2)
            forward (Method) (x: Tensor) -> Tensor
        "#]],
    );
}

#[test]
fn named_arguments_of_a_prelude_call_not_given_yet() {
    // `x` and `w` fill `input` and `weight`; `padding` is given.
    check_named_arguments(
        r#"
let x = randn(1, 3, 8, 8)
let w = randn(4, 3, 3, 3)
let y = conv2d(x, w, padding: 1, $0
"#,
        expect![[r#"
            bias: (NamedArgument) bias: Tensor = None [inserts `bias: `]
            stride: (NamedArgument) stride = 1 [inserts `stride: `]
            dilation: (NamedArgument) dilation = 1 [inserts `dilation: `]
            groups: (NamedArgument) groups: Int = 1 [inserts `groups: `]
        "#]],
    );
    // A variadic parameter cannot be named.
    check_named_arguments(
        "let z = zeros($0",
        expect![[r#"
            no completions
        "#]],
    );
}

#[test]
fn named_arguments_of_a_user_function_and_a_method_call() {
    check(
        r#"
fn scale(x: Tensor, factor: Float = 2.0, fast: Bool = false) -> Tensor { return x }
let a = scale(randn(3), f$0
"#,
        expect![[r#"
            factor: (NamedArgument) factor: Float = 2.0 [inserts `factor: `]
            fast: (NamedArgument) fast: Bool = false [inserts `fast: `]
            Flatten (Struct) (start_dim: Int = 1, end_dim: Int = -1) -> Flatten
            flatten (Function) (input: Tensor, start_dim: Int = 0, end_dim: Int = -1) -> Tensor
            flip (Function) (input: Tensor[..s], ..dims: Int) -> Tensor[..s]
            float (Function) (input: Tensor[..s]) -> Tensor[..s]
            full (Function) (size: Shape, fill_value: Float) -> Tensor
            full_like (Function) (input: Tensor[..s], fill_value: Float) -> Tensor[..s]
        "#]],
    );
    // The receiver fills `input`: `x.sum(` offers `dim` and `keepdim`.
    let items = labels("let x = randn(3, 4)\nlet s = x.sum($0");
    assert_eq!(
        items
            .iter()
            .filter(|l| l.ends_with(':'))
            .map(String::as_str)
            .collect::<Vec<_>>(),
        ["dim:", "keepdim:"]
    );
}

#[test]
fn no_named_arguments_after_a_name_is_given() {
    let items = labels("let y = conv2d(x, w, stride: s$0");
    assert!(!items.iter().any(|l| l.ends_with(':')), "{items:?}");
    assert!(items.iter().any(|l| l == "sum"), "{items:?}");
}

#[test]
fn types_on_annotations() {
    check(
        r#"
struct Model { fc = Linear(2, 2) }
fn f(m: M$0
"#,
        expect![[r#"
            Model (Struct)
            MaxPool1d (Struct) (kernel_size, stride = None, padding = 0, dilation = 1, return_indices: Bool = false, ceil_mode: Bool = false) -> MaxPool1d
            MaxPool2d (Struct) (kernel_size, stride = None, padding = 0, dilation = 1, return_indices: Bool = false, ceil_mode: Bool = false) -> MaxPool2d
            MultiheadAttention (Struct) (embed_dim: Int, num_heads: Int, dropout: Float = 0.0, bias: Bool = true, add_bias_kv: Bool = false, add_zero_attn: Bool = false, kdim: Int = None, vdim: Int = None, batch_first: Bool = false) -> MultiheadAttention
        "#]],
    );
    check(
        r#"
let x: T$0
"#,
        expect![[r#"
            Tensor (Type)
            Tanh (Struct) () -> Tanh
        "#]],
    );
}

#[test]
fn more_type_positions() {
    for fixture in [
        "fn f(x: Int) -> Sh$0",
        "struct S(n: Int, s: Sh$0",
        "const c: Sh$0",
        "fn f(x: Sh$0) -> Int { return 1 }",
    ] {
        assert_eq!(labels(fixture), ["Shape"], "{fixture}");
    }
    // The `:` of a named argument is not a type position.
    assert!(labels("let y = sum(x, dim: Sh$0").is_empty());
}

#[test]
fn nothing_where_a_name_is_declared_or_in_comments_and_strings() {
    for fixture in [
        "let na$0",
        "var $0",
        "fn f$0",
        "fn f(a: Int, b$0",
        "struct S(wid$0",
        "for i$0",
        "let (a, b$0",
        "struct S {\n  fi$0\n}",
        "let x = 1 // rel$0",
        "let x = 1 /* rel$0 */",
        "let s = \"rel$0\"",
    ] {
        assert_eq!(
            render(&complete(fixture, &[])),
            "no completions\n",
            "{fixture}"
        );
    }
}

#[test]
fn functions_do_not_see_the_scripts_locals() {
    check(
        r#"
let script_local = 3
fn f(x: Tensor) -> Tensor {
  return s$0
}
"#,
        expect![[r#"
            Sequential (Struct) (..layers) -> Sequential
            SiLU (Struct) (inplace: Bool = false) -> SiLU
            Sigmoid (Struct) () -> Sigmoid
            Softmax (Struct) (dim: Int = None) -> Softmax
            scaled_dot_product_attention (Function) (query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor = None, dropout_p: Float = 0.0, is_causal: Bool = false, scale: Float = None) -> Tensor
            sigmoid (Function) (input: Tensor[..s]) -> Tensor[..s]
            silu (Function) (input: Tensor[..s], inplace: Bool = false) -> Tensor[..s]
            size (Function) (input: Tensor, dim: Int = None) -> Shape
            softmax (Function) (input: Tensor[..s], dim: Int) -> Tensor[..s]
            sort (Function) (input: Tensor, dim: Int = -1, descending: Bool = false) -> Tensor
            split (Function) (tensor: Tensor, split_size_or_sections: Int, dim: Int = 0) -> Tensor
            sqrt (Function) (input: Tensor[..s]) -> Tensor[..s]
            squeeze (Function) (input: Tensor, dim: Int = None) -> Tensor
            stack (Function) (tensors: Tensor, dim: Int = 0) -> Tensor
            std (Function) (input: Tensor, dim: Int = None, unbiased: Bool = true, keepdim: Bool = false) -> Tensor
            sub (Function) (input: Tensor[..a], other: Tensor[..b], alpha: Float = 1) -> Tensor[..broadcast(a, b)]
            sum (Function) (input: Tensor, dim: Int = None, keepdim: Bool = false) -> Tensor
            swapaxes (Function) (input: Tensor, axis0: Int, axis1: Int) -> Tensor
            swapdims (Function) (input: Tensor, dim0: Int, dim1: Int) -> Tensor
        "#]],
    );
}

#[test]
fn field_initialisers_see_the_struct_parameters() {
    check(
        r#"
struct Block(channels: Int, stride: Int = 1) {
  conv = Conv2d(c$0
}
"#,
        expect![[r#"
            channels (Parameter) Int
            Conv1d (Struct) (in_channels: Int, out_channels: Int, kernel_size, stride = 1, padding = 0, dilation = 1, groups: Int = 1, bias: Bool = true, padding_mode: String = "zeros") -> Conv1d
            Conv2d (Struct) (in_channels: Int, out_channels: Int, kernel_size, stride = 1, padding = 0, dilation = 1, groups: Int = 1, bias: Bool = true, padding_mode: String = "zeros") -> Conv2d
            Conv3d (Struct) (in_channels: Int, out_channels: Int, kernel_size, stride = 1, padding = 0, dilation = 1, groups: Int = 1, bias: Bool = true, padding_mode: String = "zeros") -> Conv3d
            ConvTranspose2d (Struct) (in_channels: Int, out_channels: Int, kernel_size, stride = 1, padding = 0, output_padding = 0, groups: Int = 1, bias: Bool = true, dilation = 1, padding_mode: String = "zeros") -> ConvTranspose2d
            cat (Function) (tensors: Tensor, dim: Int = 0) -> Tensor
            chunk (Function) (input: Tensor, chunks: Int, dim: Int = 0) -> Tensor
            clamp (Function) (input: Tensor[..s], min: Float = None, max: Float = None) -> Tensor[..s]
            clone (Function) (input: Tensor[..s]) -> Tensor[..s]
            contiguous (Function) (input: Tensor[..s]) -> Tensor[..s]
            contract (Function) (input: Tensor, i: Int, j: Int) -> Tensor
            conv1d (Function) (input: Tensor, weight: Tensor, bias: Tensor = None, stride = 1, padding = 0, dilation = 1, groups: Int = 1) -> Tensor
            conv2d (Function) (input: Tensor, weight: Tensor, bias: Tensor = None, stride = 1, padding = 0, dilation = 1, groups: Int = 1) -> Tensor
            conv3d (Function) (input: Tensor, weight: Tensor, bias: Tensor = None, stride = 1, padding = 0, dilation = 1, groups: Int = 1) -> Tensor
            conv_transpose2d (Function) (input: Tensor, weight: Tensor, bias: Tensor = None, stride = 1, padding = 0, output_padding = 0, groups: Int = 1, dilation = 1) -> Tensor
            cumsum (Function) (input: Tensor, dim: Int) -> Tensor
        "#]],
    );
}
