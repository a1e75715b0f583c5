//! Hover, data-driven: each fixture marks the cursor with `$0`; the
//! expectation is the hovered text followed by what hover shows.
//! Update with `UPDATE_EXPECT=1 cargo test -p tensorfit_ide --test hover`.

use std::path::Path;

use expect_test::{expect, Expect};
use tensorfit_ide::{analyze_file, hover, AnalysisOptions, NoImports};

fn check(fixture: &str, expect: Expect) {
    check_file("hover.tensor", fixture, expect);
}

/// [`check`] of a file of another name (`hover.py`: Python).
fn check_file(name: &str, fixture: &str, expect: Expect) {
    let offset = fixture.find("$0").expect("fixture has a $0 cursor");
    let text = fixture.replace("$0", "");
    let analysis = analyze_file(
        Path::new(name),
        text.as_bytes(),
        std::sync::Arc::new(NoImports),
        AnalysisOptions::default(),
    );
    let actual = match hover(&analysis, offset as u32) {
        Some(h) => format!("`{}`\n{}\n", &text[h.range.as_usize()], h.text),
        None => "no hover\n".to_owned(),
    };
    expect.assert_eq(&actual);
}

#[test]
fn parameter_with_named_dimensions() {
    check(
        r#"
fn f(x$0: Tensor[batch, 3]) -> Tensor {
  return x
}
"#,
        expect![[r#"
            `x`
            x: Tensor[batch, 3]
        "#]],
    );
}

#[test]
fn expression_inside_a_function() {
    check(
        r#"
fn f(x: Tensor[batch, 3], w: Tensor[3, 5]) -> Tensor {
  return relu(x $0@ w)
}
"#,
        expect![[r#"
            `x @ w`
            Tensor[batch, 5]
        "#]],
    );
}

#[test]
fn name_use_shows_its_shape_at_that_point() {
    check(
        r#"
let a = randn(2, 3)
let b = a.t()
let c = b$0 @ a
"#,
        expect![[r#"
            `b`
            Tensor[3, 2]
        "#]],
    );
}

#[test]
fn concrete_shapes_at_each_call() {
    check(
        r#"
fn double(x: Tensor[n, m]) -> Tensor {
  let y$0 = cat([x, x], dim: 1)
  return y
}
let a = double(randn(2, 3))
let b = double(randn(4, 5))
"#,
        expect![[r#"
            `y`
            y: Tensor[n, 2 * m]
            at the call on line 6: Tensor[2, 6]
            at the call on line 7: Tensor[4, 10]
        "#]],
    );
}

#[test]
fn calls_through_other_functions_are_followed() {
    check(
        r#"
fn inner(x: Tensor) -> Tensor {
  let y$0 = x.flatten(1)
  return y
}
fn outer(x: Tensor) -> Tensor {
  return inner(x)
}
let a = outer(randn(2, 3, 4))
"#,
        expect![[r#"
            `y`
            y: Tensor
            at the call on line 7 (from line 9): Tensor[2, 12]
        "#]],
    );
}

#[test]
fn struct_instances_and_sequential_blocks() {
    check(
        r#"
struct Block(c: Int) {
  conv = Conv2d(c, c * 2, kernel_size: 3, padding: 1)
  fn forward(self, x: Tensor) -> Tensor {
    return relu(self.conv(x$0))
  }
}
let net = Sequential(Block(3), Block(6))
let y = net(randn(1, 3, 8, 8))
"#,
        expect![[r#"
            `x`
            Tensor
            at the call on line 9: Tensor[1, 3, 8, 8]
            at the call on line 9: Tensor[1, 6, 8, 8]
        "#]],
    );
}

#[test]
fn loop_shapes_hold_for_every_iteration() {
    check(
        r#"
fn grow(x: Tensor[4, n], k: Int) -> Tensor {
  var y = x
  for i in 0..k {
    y$0 = cat([y, x], dim: 1)
  }
  return y
}
"#,
        expect![[r#"
            `y`
            y: Tensor[4, ?]
        "#]],
    );
}

#[test]
fn a_call_that_does_not_fix_the_shape_is_not_listed() {
    check(
        r#"
fn f(x: Tensor[n]) -> Tensor {
  return x$0
}
fn g(k: Int) -> Tensor {
  return f(randn(k))
}
let z = f(randn(5))
"#,
        expect![[r#"
            `x`
            Tensor[n]
            at the call on line 8: Tensor[5]
        "#]],
    );
}

#[test]
fn nothing_to_show_off_tensors() {
    check(
        r#"
let n = 3$0
"#,
        expect![[r#"
            no hover
        "#]],
    );
}

/// Hover answers at every byte offset (in the middle of multi-byte
/// characters and past the end too), with a range inside the text.
#[test]
fn every_offset_gets_an_answer_inside_the_text() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let corpus = std::fs::read_to_string(root.join("tests/programs/papers/tfp_model.tensor"))
        .expect("a program of the papers");
    let unicode = "// é😀\nfn fé(α: Tensor[β, 3]) -> Tensor[β, 3] {\n  return relu(α) // ∑\n}\nlet ü = fé(randn(2, 3))\nlet v = ü.reshape(__, 2)\n";
    for text in [corpus.as_str(), unicode] {
        let analysis = analyze_file(
            Path::new("every_offset.tensor"),
            text.as_bytes(),
            std::sync::Arc::new(NoImports),
            AnalysisOptions::default(),
        );
        let mut functions = 0;
        for offset in 0..=text.len() + 2 {
            if let Some(h) = hover(&analysis, offset as u32) {
                assert!(h.range.start <= h.range.end && h.range.end as usize <= text.len());
                functions += usize::from(h.text.starts_with("fn "));
            }
        }
        assert!(functions > 0, "no function hover in {text:.40}");
    }
}

#[test]
fn an_index_shows_its_extent() {
    check(
        r#"
fn matvec(M: Tensor[m, n], v: Tensor[n]) -> Tensor[m] {
  let y[i$0] = M[i, j] * v[j]
  return y
}
"#,
        expect![[r#"
            `i`
            i: index over M.shape[0] = m
        "#]],
    );
}

#[test]
fn a_reduction_index_shows_its_range_extent() {
    check(
        r#"
fn tvm(A: Tensor[h, m], B: Tensor[h, n]) -> Tensor[m, n] {
  let C[y, x] = sum(k$0 in 0..h) A[k, y] * B[k, x]
  return C
}
"#,
        expect![[r#"
            `k`
            k: index over 0..h
        "#]],
    );
}

#[test]
fn the_result_of_a_kernel_shows_its_shape() {
    check(
        r#"
fn tvm(A: Tensor[h, m], B: Tensor[h, n]) -> Tensor[m, n] {
  let C$0[y, x] = sum(k in 0..h) A[k, y] * B[k, x]
  return C
}
"#,
        expect![[r#"
            `C`
            C: Tensor[m, n]
        "#]],
    );
}

#[test]
fn a_summed_index_shows_the_first_dimension_it_indexes() {
    check(
        r#"
fn matvec(M: Tensor[m, n], v: Tensor[n]) -> Tensor[m] {
  let y[i] = M[i, j] * v[j$0]
  return y
}
"#,
        expect![[r#"
            `j`
            j: index over M.shape[1] = n
        "#]],
    );
}

#[test]
fn an_index_used_in_a_reduction_body_shows_the_range() {
    check(
        r#"
fn tvm(A: Tensor[h, m], B: Tensor[h, n]) -> Tensor[m, n] {
  let C[y, x] = sum(k in 0..h) A[k$0, y] * B[k, x]
  return C
}
"#,
        expect![[r#"
            `k`
            k: index over 0..h
        "#]],
    );
}

#[test]
fn a_gradual_parameter_shows_the_annotation_that_fits() {
    check(
        r#"
fn project(x$0: Tensor[?, ?], w: Tensor[16, 4]) -> Tensor {
  return x @ w
}
"#,
        expect![[r#"
            `x`
            x: Tensor[x.shape[0], 16]
            can be annotated Tensor[?, 16]; a static annotation exists, e.g. Tensor[1, 16]
        "#]],
    );
}

#[test]
fn a_bare_python_parameter_shows_it_in_jaxtyping() {
    check_file(
        "hover.py",
        r#"
import torch
import jaxtyping
def head(x$0):
    b, c = x.shape
    return x @ torch.ones(8, 4)
y = head(torch.randn(2, 8))
"#,
        expect![[r#"
            `x`
            x: Tensor[b, 8]
            at the call on line 7: Tensor[2, 8]
            can be annotated jaxtyping.Shaped[torch.Tensor, "_ 8"]; a static annotation exists, e.g. jaxtyping.Shaped[torch.Tensor, "2 8"]
        "#]],
    );
}

#[test]
fn a_python_hover_writes_a_floored_quotient_as_python_does() {
    // Python's `/` is a float: the quotient of sizes is `//`, as written.
    check_file(
        "hover.py",
        r#"
import torch
def split_heads(x, h: int):
    B, T, C = x.shape
    y$0 = x.view(B, T, h, C // h)
    return y
"#,
        expect![[r#"
            `y`
            y: Tensor[B, T, h, C // h]
        "#]],
    );
}

#[test]
fn an_unknown_value_says_why() {
    check_file(
        "hover.py",
        r#"
import torch
x = torch.randn(4, 8)
spectrum = torch.fft.rf$0ft(x)
"#,
        expect![[r#"
            `torch.fft.rfft`
            unknown: `torch.fft.rfft` is not modelled
        "#]],
    );
}

#[test]
fn a_name_assigned_an_unknown_value_says_why() {
    check_file(
        "hover.py",
        r#"
import torch
import numpy as np
def f(x):
    grid$0 = np.meshgrid(x, x)
    return grid
"#,
        expect![[r#"
            `grid`
            grid: unknown: `numpy.meshgrid` is outside what tensorfit reads
        "#]],
    );
}

#[test]
fn an_unknown_value_in_a_method_says_why() {
    // The hover looks only in the item around the cursor: a method of a
    // class, past an `__init__` and another method.
    check_file(
        "hover.py",
        r#"
import torch
from torch import nn
class Spectral(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
    def helper(self, x):
        return self.proj(x)
    def forward(self, x):
        spectrum = torch.fft.rf$0ft(x)
        return spectrum
"#,
        expect![[r#"
            `torch.fft.rfft`
            unknown: `torch.fft.rfft` is not modelled
        "#]],
    );
}
