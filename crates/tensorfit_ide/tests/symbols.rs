//! Document symbols, data-driven: the outline of each fixture, one symbol
//! per line (children indented) as `Kind name detail`, then the text of its
//! name range and the first line of its full range.
//! Update with `UPDATE_EXPECT=1 cargo test -p tensorfit_ide --test symbols`.

use expect_test::{expect, Expect};
use tensorfit_ide::{document_symbols, Symbol};

fn check(text: &str, expect: Expect) {
    let file = tensorfit_syntax::parse(text).file;
    let symbols = document_symbols(&file);
    let mut actual = String::new();
    for symbol in &symbols {
        render(text, symbol, 0, &mut actual);
    }
    if actual.is_empty() {
        actual.push_str("no symbols\n");
    }
    expect.assert_eq(&actual);
}

fn render(text: &str, symbol: &Symbol, depth: usize, out: &mut String) {
    let name_text = &text[symbol.name_range.as_usize()];
    let full = &text[symbol.full_range.as_usize()];
    assert!(
        symbol.full_range.start <= symbol.name_range.start
            && symbol.name_range.end <= symbol.full_range.end,
        "the name lies in the symbol: {symbol:?}"
    );
    out.push_str(&format!(
        "{}{:?} {}{} — name `{}`, at `{}`\n",
        "  ".repeat(depth),
        symbol.kind,
        symbol.name,
        symbol
            .detail
            .as_ref()
            .map(|d| format!(" {d}"))
            .unwrap_or_default(),
        name_text,
        full.lines().next().unwrap_or("").trim(),
    ));
    for child in &symbol.children {
        render(text, child, depth + 1, out);
    }
}

#[test]
fn functions_carry_their_signature() {
    check(
        r#"
fn f(x: Tensor[b, 3], k: Int = 2) -> Tensor[b, 4] where b > 1, 1 <= k <= 8 {
  return x @ randn(3, 4)
}
extern fn my_relu(input: Tensor[..s]) -> Tensor[..s]
fn no_result(x) { }
"#,
        expect![[r#"
            Function f (x: Tensor[b, 3], k: Int = 2) -> Tensor[b, 4] where b > 1, 1 <= k <= 8 — name `f`, at `fn f(x: Tensor[b, 3], k: Int = 2) -> Tensor[b, 4] where b > 1, 1 <= k <= 8 {`
            Function my_relu (input: Tensor[..s]) -> Tensor[..s] — name `my_relu`, at `extern fn my_relu(input: Tensor[..s]) -> Tensor[..s]`
            Function no_result (x) — name `no_result`, at `fn no_result(x) { }`
        "#]],
    );
}

#[test]
fn structs_with_fields_and_methods() {
    check(
        r#"
struct Block(in_planes: Int, planes: Int, stride: Int = 1) {
  conv1 = Conv2d(in_planes, planes, kernel_size: 3, stride: stride, padding: 1)
  w: Tensor[planes] = randn(planes)
  fn forward(self, x: Tensor) -> Tensor {
    return relu(self.conv1(x))
  }
  bn = BatchNorm2d(planes)
}
struct Model {
  dense = Linear(in_features: __, out_features: 10)
}
"#,
        expect![[r#"
            Struct Block (in_planes: Int, planes: Int, stride: Int = 1) — name `Block`, at `struct Block(in_planes: Int, planes: Int, stride: Int = 1) {`
              Field conv1 = Conv2d(in_planes, planes, kernel_size: 3, stride: stride, padding: 1) — name `conv1`, at `conv1 = Conv2d(in_planes, planes, kernel_size: 3, stride: stride, padding: 1)`
              Field w : Tensor[planes] = randn(planes) — name `w`, at `w: Tensor[planes] = randn(planes)`
              Method forward (self, x: Tensor) -> Tensor — name `forward`, at `fn forward(self, x: Tensor) -> Tensor {`
              Field bn = BatchNorm2d(planes) — name `bn`, at `bn = BatchNorm2d(planes)`
            Struct Model — name `Model`, at `struct Model {`
              Field dense = Linear(in_features: __, out_features: 10) — name `dense`, at `dense = Linear(in_features: __, out_features: 10)`
        "#]],
    );
}

#[test]
fn constants_and_imports_in_source_order_without_script_statements() {
    check(
        r#"
import "layers.tensor"
const batch = 12
const width: Int = 2 * (batch + 1)
let x = zeros([batch, 3])
fn g() -> Int { return batch }
"#,
        expect![[r#"
            Import layers.tensor — name `"layers.tensor"`, at `import "layers.tensor"`
            Const batch = 12 — name `batch`, at `const batch = 12`
            Const width : Int = 2 * (batch + 1) — name `width`, at `const width: Int = 2 * (batch + 1)`
            Function g () -> Int — name `g`, at `fn g() -> Int { return batch }`
        "#]],
    );
}

#[test]
fn expressions_in_signatures_print_with_needed_parentheses_only() {
    check(
        r#"
fn f(x: Tensor[n, (2 * k) + 1], y: Tensor[(n + 1) * 2, ?], s: String = "a\"b") -> (Tensor[n], Int) where !(n > 2 && k < 3) || n == k {
  return (x, n)
}
"#,
        expect![[r#"
            Function f (x: Tensor[n, 2 * k + 1], y: Tensor[(n + 1) * 2, ?], s: String = "a\"b") -> (Tensor[n], Int) where !(n > 2 && k < 3) || n == k — name `f`, at `fn f(x: Tensor[n, (2 * k) + 1], y: Tensor[(n + 1) * 2, ?], s: String = "a\"b") -> (Tensor[n], Int) where !(n > 2 && k < 3) || n == k {`
        "#]],
    );
}

#[test]
fn half_typed_items_keep_what_is_there() {
    check(
        r#"
fn ok(x: Tensor) -> Tensor { return x }
fn half(x: Tensor[b, ], k: Int = ) -> Tensor {
  let y =
}
struct
"#,
        expect![[r#"
            Function ok (x: Tensor) -> Tensor — name `ok`, at `fn ok(x: Tensor) -> Tensor { return x }`
            Function half (x: Tensor[b], k: Int) -> Tensor — name `half`, at `fn half(x: Tensor[b, ], k: Int = ) -> Tensor {`
        "#]],
    );
}

#[test]
fn a_file_without_items_has_no_symbols() {
    check(
        "let x = randn(3)\nlet y = x.sum()\n",
        expect![[r#"
            no symbols
        "#]],
    );
}
