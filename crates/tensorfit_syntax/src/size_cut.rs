//! Where a Tensor file too long to check stops being read.
//!
//! A file longer than [`MAX_CHECKED_BYTES`] is parsed up to the last
//! top-level item or statement that starts before that many bytes: a line
//! that begins, at the first column and outside brackets, strings and
//! comments, with the keyword an item or statement starts with. Items are
//! order-independent and statements run from the top, so the prefix means
//! what it means in the whole file, less what it calls further down (which
//! is unknown, never an error).

use tensorfit_base::MAX_CHECKED_BYTES;

/// What a top-level item or statement starts with.
const STARTS: &[&str] = &[
    "fn", "struct", "extern", "const", "import", "let", "var", "if", "for", "while", "assert",
];

/// The offset from which a long file is not read; `None` for a file of at
/// most [`MAX_CHECKED_BYTES`], or one without a place to cut before it.
pub fn size_cut(text: &str) -> Option<usize> {
    if text.len() <= MAX_CHECKED_BYTES {
        return None;
    }
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut in_block_comment = false;
    let mut last_start = None;
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() && i <= MAX_CHECKED_BYTES {
        let b = bytes[i];
        if in_block_comment {
            if b == b'*' && bytes.get(i + 1) == Some(&b'/') {
                in_block_comment = false;
                i += 2;
            } else {
                line_start = b == b'\n';
                i += 1;
            }
            continue;
        }
        if line_start && depth == 0 && i > 0 && starts_item(&bytes[i..]) {
            last_start = Some(i);
        }
        line_start = false;
        match b {
            b'\n' => line_start = true,
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                // To the line's end.
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                in_block_comment = true;
                i += 2;
                continue;
            }
            b'"' => {
                // A string ends at its quote or its line's end.
                i += 1;
                while i < bytes.len() && !matches!(bytes[i], b'"' | b'\n') {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if bytes.get(i) == Some(&b'"') {
                    i += 1;
                }
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    last_start
}

fn starts_item(rest: &[u8]) -> bool {
    STARTS.iter().any(|word| {
        rest.starts_with(word.as_bytes())
            && rest
                .get(word.len())
                .is_some_and(|b| b.is_ascii_whitespace() || *b == b'(')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_file_is_cut_before_an_item() {
        let block = "fn f(x: Tensor) -> Tensor {\nlet y = x\n  return y\n}\n/* fn g\n*/ // let h\nlet z = (1 +\n2)\n";
        let mut text = String::new();
        while text.len() <= MAX_CHECKED_BYTES + 100 {
            text.push_str(block);
        }
        let cut = size_cut(&text).expect("a cut");
        assert!(cut <= MAX_CHECKED_BYTES);
        let rest = &text[cut..];
        assert!(
            rest.starts_with("fn f(") || rest.starts_with("let z = (1 +"),
            "{:?}",
            &rest[..20]
        );
        assert_eq!(size_cut(block), None);
    }
}
