//! Mutations of program text, as a user's typing and a bad disk make them:
//! truncations, deletions, insertions of tokens (the language's and the
//! file's own), swapped lines, copied chunks, flipped and invalid bytes.

use crate::programs::Language;
use crate::rng::Rng;

/// Text that breaks any language's reading: line breaks of every kind
/// (only `\n`, `\r\n` and `\r` are LSP's), astral and accented
/// characters, NUL, a terminal escape.
const TEXT_FRAGMENTS: &[&str] = &[
    "\n",
    "\r\n",
    "\r",
    "\u{1F600}",
    "é",
    "\0",
    "\u{2028}",
    "\x1b[2J",
];

/// Tokens and snippets of the Tensor language, and some that break it.
const TENSOR_FRAGMENTS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    "..",
    "|->",
    "__",
    "?",
    "let ",
    "var ",
    "fn ",
    "struct ",
    "extern ",
    "where ",
    "sum(k) ",
    "if ",
    "else ",
    "for i in 0..",
    "while ",
    "return ",
    "= ",
    "+= ",
    "\"",
    "/*",
    "*/",
    "//",
    "self.",
    "Tensor[",
    "-1",
    "0",
    "99999999999999999999",
    "import \"x.tensor\"\n",
    "import \"../../../../etc/passwd\"\n",
    ".rank",
    ".shape[",
    "assert ",
    " * ",
    " / ",
    " % ",
];

/// Tokens and snippets of PyTorch code, and some that break it: the front
/// end's own syntax (`...` holes, jaxtyping strings, `#~`), imports that
/// leave the workspace, and deep nesting.
const PYTHON_FRAGMENTS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    ":",
    ",",
    "...",
    "*",
    "**",
    "@",
    "\\\n",
    "    ",
    "\t",
    "def ",
    "class ",
    "lambda x: ",
    "return ",
    "yield ",
    "if ",
    "elif ",
    "else:\n",
    "for i in range(",
    "while ",
    "with ",
    "try:\n",
    "except Exception:\n",
    "del ",
    "global ",
    "nonlocal ",
    "self.",
    "super().__init__()",
    "= ",
    "+= ",
    "-1",
    "0",
    "99999999999999999999",
    "1e309",
    "None",
    "torch.randn(",
    "nn.Linear(",
    "nn.Sequential(",
    "nn.Conv2d(3, ",
    "F.relu(",
    ".view(",
    ".reshape(",
    ".permute(",
    ".shape[",
    ".size(",
    "x: Float[Tensor, \"b c\"]",
    "Float[Tensor, \"",
    "\"",
    "'",
    "\"\"\"",
    "f\"{",
    "#",
    "#~ error: ",
    "import torch\n",
    "from . import x\n",
    "from .. import *\n",
    "from ...etc.passwd import x\n",
    "import etc.passwd\n",
    "((((((((((((((((((((",
    "[[[[[[[[[[[[[[[[[[[[",
];

fn fragments_of(language: Language) -> &'static [&'static str] {
    match language {
        Language::Tensor => TENSOR_FRAGMENTS,
        Language::Python => PYTHON_FRAGMENTS,
    }
}

/// A fragment of `language`, or of any text, to insert.
pub fn fragment(language: Language, rng: &mut Rng) -> &'static str {
    let own = fragments_of(language);
    let at = rng.below(own.len() + TEXT_FRAGMENTS.len());
    own.get(at)
        .copied()
        .unwrap_or_else(|| TEXT_FRAGMENTS[at - own.len()])
}

/// One to four mutations of `source`, a program in `language`.
pub fn mutate(source: &[u8], language: Language, rng: &mut Rng) -> Vec<u8> {
    let mut bytes = source.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(9) {
            0 => bytes.truncate(at),
            1 => {
                let end = (at + 1 + rng.below(20)).min(bytes.len());
                bytes.drain(at.min(end)..end);
            }
            2 | 3 => {
                let fragment = fragment(language, rng).as_bytes();
                bytes.splice(at..at, fragment.iter().copied());
            }
            4 => {
                if at < bytes.len() {
                    bytes[at] = rng.next_u64() as u8;
                }
            }
            5 => {
                let end = (at + rng.below(200)).min(bytes.len());
                let copy = bytes[at.min(end)..end].to_vec();
                let to = rng.below(bytes.len() + 1);
                bytes.splice(to..to, copy);
            }
            6 => swap_lines(&mut bytes, rng),
            7 => {
                // A word of the file itself, elsewhere: names in new places.
                let words = words(&bytes);
                if !words.is_empty() {
                    let word = rng.pick(&words).clone();
                    bytes.splice(at..at, word);
                }
            }
            _ => {
                let byte = *rng.pick(&[0xC3u8, 0x28, 0xFF, 0xE2, 0x82]);
                bytes.insert(at, byte);
            }
        }
    }
    bytes
}

fn swap_lines(bytes: &mut Vec<u8>, rng: &mut Rng) {
    let mut lines: Vec<Vec<u8>> = bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    if lines.len() < 2 {
        return;
    }
    let (a, b) = (rng.below(lines.len()), rng.below(lines.len()));
    lines.swap(a, b);
    *bytes = lines.join(&b'\n');
}

fn words(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes
        .split(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
        .filter(|w| !w.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_makes_the_same_mutants_and_others_differ() {
        let source = b"fn f(x: Tensor[2, 3]) -> Tensor[2, 3] {\n  return x\n}\n";
        let make = |seed| mutate(source, Language::Tensor, &mut Rng::for_item(seed, 7));
        assert_eq!(make(1), make(1));
        let distinct: std::collections::BTreeSet<_> = (0..50).map(make).collect();
        assert!(distinct.len() > 40, "{} distinct of 50", distinct.len());
    }
}
