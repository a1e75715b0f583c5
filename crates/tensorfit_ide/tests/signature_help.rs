//! Signature help, data-driven: each fixture marks the cursor with `$0`;
//! the expectation is the label with the active parameter between `«»`,
//! then the documentation.
//! Update with `UPDATE_EXPECT=1 cargo test -p tensorfit_ide --test signature_help`.

use expect_test::{expect, Expect};
use tensorfit_base::TextRange;
use tensorfit_ide::{signature_help, Environment};
use tensorfit_semantics::{ImportOutcome, ResolvedImport};

fn help(fixture: &str, imports: &[ResolvedImport]) -> String {
    let offset = fixture.find("$0").expect("fixture has a $0 cursor");
    let text = fixture.replace("$0", "");
    let parse = tensorfit_syntax::parse(&text);
    let (file, first_error) = (&parse.file, parse.first_syntax_error());
    let Some(help) = signature_help(
        file,
        &text,
        offset,
        Environment::builtin(imports),
        first_error,
    ) else {
        return "no signature help\n".to_owned();
    };
    for &(start, end) in &help.parameters {
        assert!(start <= end && end <= help.label.len() && help.label.is_char_boundary(start));
    }
    let mut label = help.label.clone();
    if let Some(active) = help.active_parameter {
        let (start, end) = help.parameters[active];
        label = format!(
            "{}«{}»{}",
            &label[..start],
            &label[start..end],
            &label[end..]
        );
    }
    match &help.documentation {
        Some(doc) => format!("{label}\n{doc}\n"),
        None => format!("{label}\n"),
    }
}

fn check(fixture: &str, expect: Expect) {
    expect.assert_eq(&help(fixture, &[]));
}

#[test]
fn prelude_operation_by_position() {
    check(
        r#"
let x = randn(1, 3, 8, 8)
let y = conv2d(x, $0
"#,
        expect![[r#"
            conv2d(input: Tensor, «weight: Tensor», bias: Tensor = None, stride = 1, padding = 0, dilation = 1, groups: Int = 1) -> Tensor
            Prelude operation (functional (torch.nn.functional)).
        "#]],
    );
}

#[test]
fn named_argument_selects_its_parameter() {
    check(
        r#"
let y = conv2d(x, w, padding: 1, stride: $0
"#,
        expect![[r#"
            conv2d(input: Tensor, weight: Tensor, bias: Tensor = None, «stride = 1», padding = 0, dilation = 1, groups: Int = 1) -> Tensor
            Prelude operation (functional (torch.nn.functional)).
        "#]],
    );
}

#[test]
fn positional_after_named_arguments_counts_positions_only() {
    check(
        r#"
fn f(a: Int, b: Int, c: Int) -> Int { return a }
let y = f(1, c: 3, $0)
"#,
        expect![[r#"
            f(a: Int, «b: Int», c: Int) -> Int
        "#]],
    );
}

#[test]
fn user_function_with_doc_comment_and_where_clause() {
    check(
        r#"
// Multiplies by a weight of matching width.
// Widths must agree.
fn mm(a: Tensor[n, k], b: Tensor[k, m]) -> Tensor[n, m] where k > 0 {
  return a @ b
}
let y = mm(randn(2, 3), $0
"#,
        expect![[r#"
            mm(a: Tensor[n, k], «b: Tensor[k, m]») -> Tensor[n, m] where k > 0
            Multiplies by a weight of matching width.
            Widths must agree.
        "#]],
    );
}

#[test]
fn inner_call_wins_and_brackets_are_skipped() {
    check(
        r#"
let y = cat([randn(2, 3), zeros($0
"#,
        expect![[r#"
            zeros(«..size: Int») -> Tensor
            Prelude operation (creation).
        "#]],
    );
    check(
        r#"
let y = cat([randn(2, 3), zeros(2, 3)], $0
"#,
        expect![[r#"
            cat(tensors: Tensor, «dim: Int = 0») -> Tensor
            Prelude operation (shape).
        "#]],
    );
    // Inside a list argument, the call's first parameter is active.
    check(
        r#"
let y = cat([randn(2, 3), $0
"#,
        expect![[r#"
            cat(«tensors: Tensor», dim: Int = 0) -> Tensor
            Prelude operation (shape).
        "#]],
    );
}

#[test]
fn variadic_parameter_takes_every_later_position() {
    check(
        r#"
let x = randn(6)
let y = x.reshape(2, 3, $0
"#,
        expect![[r#"
            reshape(«..shape: Int») -> Tensor
            Prelude operation (shape). `x.reshape(...)` means `reshape(x, ...)`: `x` is `input`.
        "#]],
    );
}

#[test]
fn method_style_prelude_call_leaves_out_the_receiver() {
    check(
        r#"
let x = randn(2, 3)
let s = x.sum(1, $0)
"#,
        expect![[r#"
            sum(dim: Int = None, «keepdim: Bool = false») -> Tensor
            Prelude operation (reductions). `x.sum(...)` means `sum(x, ...)`: `x` is `input`.
        "#]],
    );
}

#[test]
fn struct_constructor_and_instance_call() {
    check(
        r#"
struct Block(in_planes: Int, planes: Int, stride: Int = 1) {
  conv = Conv2d(in_planes, planes, kernel_size: 3, stride: stride)
  fn forward(self, x: Tensor) -> Tensor { return self.conv(x) }
}
let b = Block(64, $0)
"#,
        expect![[r#"
            Block(in_planes: Int, «planes: Int», stride: Int = 1)
        "#]],
    );
    check(
        r#"
struct Block(in_planes: Int, planes: Int, stride: Int = 1) {
  conv = Conv2d(in_planes, planes, kernel_size: 3, stride: stride)
  fn forward(self, x: Tensor) -> Tensor { return self.conv(x) }
}
let b = Block(64, 128)
let y = b($0
"#,
        expect![[r#"
            Block.forward(«x: Tensor») -> Tensor
        "#]],
    );
}

#[test]
fn method_on_self_in_a_half_typed_body() {
    check(
        r#"
struct Model {
  fc = Linear(4, 2)
  fn head(self, x: Tensor, scale: Float = 1.0) -> Tensor { return self.fc(x) }
  fn forward(self, x: Tensor) -> Tensor {
    return self.head(x, $0"#,
        expect![[r#"
            Model.head(x: Tensor, «scale: Float = 1.0») -> Tensor
        "#]],
    );
}

#[test]
fn prelude_layer_constructor_with_named_argument() {
    check(
        r#"
struct Model {
  conv = Conv2d(3, 5, kernel_size: 2, str$0)
}
"#,
        expect![[r#"
            Conv2d(in_channels: Int, out_channels: Int, kernel_size, «stride = 1», padding = 0, dilation = 1, groups: Int = 1, bias: Bool = true, padding_mode: String = "zeros") -> Conv2d
            Prelude operation (layers (torch.nn)).
        "#]],
    );
}

#[test]
fn imported_function() {
    let imported =
        tensorfit_syntax::parse("fn block(x: Tensor, width: Int = 4) -> Tensor { return x }\n")
            .file;
    let imports = [ResolvedImport {
        range: TextRange::new(7, 19),
        display_path: "lib.tensor".to_owned(),
        names: Vec::new(),
        outcome: ImportOutcome::Loaded(imported),
    }];
    expect![[r#"
        block(x: Tensor, «width: Int = 4») -> Tensor
    "#]]
    .assert_eq(&help(
        "import \"lib.tensor\"\nlet y = block(randn(3), width: $0)",
        &imports,
    ));
}

#[test]
fn too_many_arguments_have_no_active_parameter() {
    check(
        r#"
let y = relu(x, true, $0)
"#,
        expect![[r#"
            relu(input: Tensor[..s], inplace: Bool = false) -> Tensor[..s]
            Prelude operation (element-wise, unary).
        "#]],
    );
}

#[test]
fn nothing_outside_calls() {
    for fixture in [
        "let y = (1, $0",
        "fn f(a: Int, $0",
        "let y = relu(x)$0",
        "let y = relu(x) + $0",
        "fn f(x: Tensor) -> Tensor {\n  $0\n}",
        "let s = relu(\"text $0",
        "let y = relu(x // comm$0",
        "let y = undefined_function($0",
        "$0",
    ] {
        assert_eq!(help(fixture, &[]), "no signature help\n", "{fixture}");
    }
    // A block inside the call's parentheses is not an argument position.
    check(
        "let y = relu(x, 1)\nfn f() { $0 }",
        expect![[r#"
            no signature help
        "#]],
    );
}
