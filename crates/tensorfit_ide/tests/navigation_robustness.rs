//! Property test: the editor features (definition, references, symbols,
//! semantic tokens, completion, signature help) never panic and answer with
//! ranges inside the text, completion and signature help as if the whole
//! text before the cursor were parsed again, for every offset (0, every byte including the
//! middle of multi-byte characters, past the end) of the corpus files, of
//! truncated prefixes of them, and of garbage and half-typed texts.
//! Each text runs on a thread with the 2 MiB stack language-server workers
//! get, and must finish in time.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use tensorfit_base::TextRange;
use tensorfit_ide::{
    completions, document_symbols, goto_definition, references, semantic_tokens, signature_help,
    Environment, Prelude, Symbol,
};

fn corpus_files() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let corpus = std::env::var_os("TENSORFIT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/corpus"));
    // The corpus sits beside a checkout (a plain clone has only the
    // repository's own programs of the papers, and two small examples:
    // every prefix at every offset of a large model takes minutes).
    let dirs = [corpus.join("seeds"), root.join("tests/programs/papers")];
    let small_examples = [
        root.join("examples/quickstart.tensor"),
        root.join("examples/models/lenet5.tensor"),
    ];
    let mut files: Vec<(PathBuf, String)> = dirs
        .iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .chain(small_examples)
        .filter(|path| path.extension().is_some_and(|e| e == "tensor"))
        .map(|path| {
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            (path, text)
        })
        .collect();
    files.sort();
    assert!(
        files.len() >= 5,
        "expected the papers' programs and two examples, found {}",
        files.len()
    );
    files
}

fn in_text(range: TextRange, text: &str) -> bool {
    range.start <= range.end && range.end as usize <= text.len()
}

fn check_symbols(symbols: &[Symbol], text: &str) {
    for symbol in symbols {
        assert!(in_text(symbol.full_range, text) && in_text(symbol.name_range, text));
        check_symbols(&symbol.children, text);
    }
}

/// Runs every feature at every offset of `text` (every `stride`-th offset
/// for large texts), checking what the answers promise.
fn exercise(text: &str, stride: usize) {
    let parse = tensorfit_syntax::parse(text);
    let (file, first_error) = (&parse.file, parse.first_syntax_error());
    check_symbols(&document_symbols(file), text);
    let tokens = semantic_tokens(file, Prelude::builtin());
    for pair in tokens.windows(2) {
        assert!(pair[0].range.end <= pair[1].range.start, "{pair:?}");
    }
    assert!(tokens
        .iter()
        .all(|t| in_text(t.range, text) && !t.range.is_empty()));
    let offsets = (0..=text.len() + 2)
        .step_by(stride)
        .chain([usize::MAX, u32::MAX as usize + 5]);
    for offset in offsets {
        if let Some(target) = goto_definition(file, Prelude::builtin(), offset) {
            assert!(in_text(target.name_range, text) && in_text(target.full_range, text));
        }
        for include in [true, false] {
            let ranges = references(file, Prelude::builtin(), offset, include);
            assert!(ranges.iter().all(|r| in_text(*r, text)));
            assert!(ranges.windows(2).all(|w| w[0] < w[1]));
        }
        // Reparsing from the item or statement around the cursor answers
        // as reparsing the whole text before it (a first error at 0 makes
        // the whole prefix be parsed again).
        let complete =
            |first_error| completions(file, text, offset, Environment::builtin(&[]), first_error);
        assert_eq!(
            complete(first_error),
            complete(Some(0)),
            "completion at {offset}"
        );
        let help = |first_error| {
            signature_help(file, text, offset, Environment::builtin(&[]), first_error)
        };
        assert_eq!(
            help(first_error),
            help(Some(0)),
            "signature help at {offset}"
        );
        if let Some(help) = help(first_error) {
            for &(start, end) in &help.parameters {
                assert!(start <= end && end <= help.label.len());
            }
            if let Some(active) = help.active_parameter {
                assert!(active < help.parameters.len());
            }
        }
    }
}

/// `exercise` on a 2 MiB stack, failing on a panic or after `limit`.
fn survives(label: &str, text: String, stride: usize, limit: Duration) {
    let (done, wait) = mpsc::channel();
    let input = text.clone();
    let worker = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            exercise(&input, stride);
            let _ = done.send(());
        })
        .unwrap();
    match wait.recv_timeout(limit) {
        Ok(()) => worker.join().unwrap(),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            panic!("{label}: an editor feature panicked on:\n{text}")
        }
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{label}: the editor features took more than {limit:?} on:\n{text}")
        }
    }
}

/// The longest prefix of `text` that ends on a character boundary at or
/// before `cut`.
fn prefix(text: &str, cut: usize) -> &str {
    let mut cut = cut.min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    &text[..cut]
}

#[test]
fn corpus_files_and_their_prefixes_at_every_offset() {
    let limit = Duration::from_secs(120);
    for (path, text) in corpus_files() {
        let label = path.display().to_string();
        survives(&label, text.clone(), 1, limit);
        // Truncated mid-token, mid-call, mid-block: a few cuts per file.
        for k in 1..=3 {
            let cut = text.len() * k / 4 + k;
            survives(
                &format!("{label} cut at {cut}"),
                prefix(&text, cut).to_owned(),
                1,
                limit,
            );
        }
    }
}

#[test]
fn multi_byte_characters_at_every_offset() {
    let text = "// é😀 α\nfn f(α: Tensor[β, 3], x̂: Int = 2) -> Tensor[β] {\n  let 😀 = \"é😀\"\n  let y = α.reshape(β, -1) // ∑\n  return relu(α, inplace: tr\u{fc}e) |-> [β, 😀]\n}\nstruct Ü(n: Int) { w = Linear(n, n) fn forward(self, x: Tensor) -> Tensor { return self.w(x) } }\nlet u = Ü(3).w.";
    survives("unicode", text.to_owned(), 1, Duration::from_secs(60));
    for cut in 0..text.len() {
        if text.is_char_boundary(cut) && cut % 7 == 0 {
            survives(
                &format!("unicode cut at {cut}"),
                text[..cut].to_owned(),
                1,
                Duration::from_secs(60),
            );
        }
    }
}

#[test]
fn garbage_and_half_typed_texts() {
    let texts = [
        "",
        "\n",
        "$",
        "((((",
        "))))",
        "}}}{{{",
        "fn",
        "fn (",
        "fn f(",
        "fn f(x: Tensor[",
        "fn f(x: Tensor[..",
        "struct",
        "struct S(",
        "struct S { fn",
        "struct S { fn forward(self, x) { return self.",
        "let",
        "let x = ",
        "let x = y.",
        "let x = f(a, ",
        "let x = f(a, b: ",
        "let x = a.b.c.d(",
        "let (a, (b, c)) = ",
        "let A[i, j] = sum(k in 0..",
        "A[i] += B[",
        "x |-> [",
        "for i in 0..n { for j in 0..",
        "if a { } else if b { } else",
        "\"unterminated",
        "/* unterminated",
        "// comment only",
        "import \"",
        "import \"x.tensor\"\nconst c = ",
        "self.self.self(",
        "__ ___ ____ __(__)",
        "let x = Tensor[1, 2]",
        "..broadcast(",
        "\0\0\u{1}",
        "let x = 99999999999999999999999",
        "fn f() -> (Tensor[a], Tensor[..b]) where a > 1 { return (a, b) }",
    ];
    for text in texts {
        survives(text, text.to_owned(), 1, Duration::from_secs(30));
    }
}

#[test]
fn pathological_shapes_of_text() {
    let deep_parens = format!("let x = {}1{}", "(".repeat(5_000), ")".repeat(5_000));
    let unclosed = format!("let x = f({}", "[g(".repeat(3_000));
    let deep_blocks = format!("fn f() {}{}", "{ if true ".repeat(2_000), "}".repeat(2_000));
    let long_chain = format!("let x = {}", vec!["a"; 5_000].join(" + "));
    let many_lets: String = (0..2_000)
        .map(|i| format!("let v{i} = v{} + 1\n", i / 2))
        .collect();
    for (label, text) in [
        ("deep parentheses", deep_parens),
        ("unclosed calls", unclosed),
        ("deep blocks", deep_blocks),
        ("long chain", long_chain),
        ("many lets", many_lets),
    ] {
        let stride = text.len() / 50 + 1;
        survives(label, text, stride, Duration::from_secs(120));
    }
}
