//! What tree-sitter's Python parser is given of a file, so that its time
//! stays linear in the file's length.
//!
//! tree-sitter-python's external scanner, at each line end, looks ahead
//! past the comment and `\`-continuation lines that follow to find the
//! next line's indentation, and it is called again at the end of each of
//! those lines: a run of n such lines costs n² (20,000 `#` lines took 6 s,
//! 100,000 `\` lines over a minute). Blank lines cost nothing: the lexer
//! skips them in one step. So:
//!
//! - **Comment lines** in a long run are given as spaces, byte for byte.
//!   Comments are no statements, and the front end reads no comment, so
//!   the tree's statements and every node's offsets are the same.
//! - **Lines holding only `\`** in a run: all but the first are left out
//!   of the parse (tree-sitter's included ranges). Such a line only joins
//!   the line before it to the line after it, which the first one does for
//!   the whole run. Offsets stay those of the file. tree-sitter looks up
//!   the included range of every token from the first one, so at most
//!   [`MAX_HIDDEN_RUNS`] runs are left out; a file with more is read up to
//!   the last run left out, and the rest of it is not parsed ([`Cut`]).
//!
//! A file longer than [`MAX_CHECKED_BYTES`] is read up to the last
//! top-level statement that starts before that many bytes (a line at the
//! first column, outside brackets and strings, not continuing the line
//! before it, nor a decorator's, `else` or `except` clause's): Python runs
//! a module from the top, so what the prefix does it does whatever
//! follows.
//!
//! Lines inside strings are neither: a `#` line of a docstring is text.
//! Finding them takes Python's lexical rules for strings (quotes, triple
//! quotes, backslash escapes, which raw strings keep for quotes too) and
//! comments; f-strings need nothing more, since their replacement fields
//! hold the other kind of quote.

use std::borrow::Cow;
use std::ops::Range;

use tensorfit_base::MAX_CHECKED_BYTES;

/// Runs of comment lines at most this long are given as they are: their
/// cost (the square of their length) is small.
const SHORT_COMMENT_RUN: usize = 8;

/// The most runs of `\` lines left out of one parse.
pub const MAX_HIDDEN_RUNS: usize = 256;

/// The text to parse and what of it the parser reads.
pub struct ParserInput<'t> {
    /// The file's text, or a copy with the long runs' comments blanked
    /// (the same length, every other byte the same).
    pub text: Cow<'t, str>,
    /// Byte ranges the parser does not read, in order; empty for most
    /// files. The last one runs to the end of the text when the parse is
    /// cut short ([`parse_cut`]).
    pub hidden: Vec<Range<usize>>,
}

/// The file is parsed up to `offset`, for `why`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cut {
    pub offset: usize,
    pub why: CutReason,
}

/// Why a file is not read to its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CutReason {
    /// It is longer than [`MAX_CHECKED_BYTES`].
    Size,
    /// It has more than [`MAX_HIDDEN_RUNS`] runs of lines holding only `\`.
    Continuations,
}

/// What one physical line is, to the scanner's look-ahead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Line {
    /// Spaces, tabs and form feeds only.
    Blank,
    /// A comment after only whitespace; its `#` at this byte.
    Comment { hash: usize },
    /// Whitespace and a `\` that ends the line.
    Continuation,
    /// Anything else, a line inside a string included.
    Other,
}

/// A physical line: its bytes without the line end, and what it is.
struct PhysicalLine {
    start: usize,
    end: usize,
    /// Where the next line starts (after `\n`, or the end of the text).
    next: usize,
    kind: Line,
    /// Whether a top-level statement may start here: outside strings and
    /// brackets, not continuing the line before, at the first column.
    top_level: bool,
}

/// What the parser reads of `text`.
pub fn parser_input(text: &str) -> ParserInput<'_> {
    let lines = physical_lines(text);
    let text = blank_long_comment_runs(text, &lines);
    let (hidden, _) = hidden_ranges(text.as_bytes(), &lines);
    ParserInput { text, hidden }
}

/// Where the parse of `text` stops short, if it does (see [`Cut`]).
pub fn parse_cut(text: &str) -> Option<Cut> {
    hidden_ranges(text.as_bytes(), &physical_lines(text)).1
}

/// What the parser leaves out: the runs of `\` lines, and the end of a
/// file too long.
fn hidden_ranges(bytes: &[u8], lines: &[PhysicalLine]) -> (Vec<Range<usize>>, Option<Cut>) {
    let size_cut = size_cut(bytes, lines);
    let read = size_cut.map_or(lines.len(), |at| at);
    let (mut hidden, cut) = hidden_continuation_runs(&lines[..read], bytes.len());
    if cut.is_some() {
        return (hidden, cut);
    }
    match size_cut {
        Some(at) => {
            let offset = lines.get(at).map_or(bytes.len(), |line| line.start);
            hidden.push(offset..bytes.len());
            let why = CutReason::Size;
            (hidden, Some(Cut { offset, why }))
        }
        None => (hidden, None),
    }
}

/// The first line not read of a file longer than [`MAX_CHECKED_BYTES`]:
/// the last top-level statement's that starts before the bound.
fn size_cut(bytes: &[u8], lines: &[PhysicalLine]) -> Option<usize> {
    if bytes.len() <= MAX_CHECKED_BYTES {
        return None;
    }
    let starts = |at: usize| {
        let line = &lines[at];
        let rest = &bytes[line.start..line.end];
        let word = |w: &[u8]| {
            rest.starts_with(w)
                && rest
                    .get(w.len())
                    .is_none_or(|b| !b.is_ascii_alphanumeric() && *b != b'_')
        };
        line.top_level
            && line.kind == Line::Other
            && !["else", "elif", "except", "finally", "case"]
                .iter()
                .any(|w| word(w.as_bytes()))
            && (at == 0 || !decorates(bytes, &lines[at - 1]))
    };
    let last = lines
        .iter()
        .rposition(|line| line.start <= MAX_CHECKED_BYTES && line.top_level)?;
    // A file whose first statement runs past the bound is read whole: there
    // is nowhere to cut it.
    (1..=last).rev().find(|at| starts(*at))
}

/// Whether a line is a decorator (of the statement after it).
fn decorates(bytes: &[u8], line: &PhysicalLine) -> bool {
    line.top_level && bytes[line.start..line.end].first() == Some(&b'@')
}

fn blank_long_comment_runs<'t>(text: &'t str, lines: &[PhysicalLine]) -> Cow<'t, str> {
    let mut blanked: Option<Vec<u8>> = None;
    let mut at = 0;
    while at < lines.len() {
        // A run: comment and blank lines, which the look-ahead goes through.
        let run_end = lines[at..]
            .iter()
            .position(|line| !matches!(line.kind, Line::Blank | Line::Comment { .. }))
            .map_or(lines.len(), |n| at + n);
        let run = &lines[at..run_end];
        let comments = run
            .iter()
            .filter(|line| matches!(line.kind, Line::Comment { .. }))
            .count();
        if comments > SHORT_COMMENT_RUN {
            let bytes = blanked.get_or_insert_with(|| text.as_bytes().to_vec());
            for line in run {
                if let Line::Comment { hash } = line.kind {
                    // Up to a `\r` of the line end: only the comment goes.
                    let end = if bytes[line.end.saturating_sub(1)] == b'\r' && line.end > hash {
                        line.end - 1
                    } else {
                        line.end
                    };
                    bytes[hash..end].fill(b' ');
                }
            }
        }
        at = run_end.max(at + 1);
    }
    match blanked {
        // Spaces replaced whole UTF-8 sequences (a comment runs to its
        // line's end), so the text is still UTF-8.
        Some(bytes) => Cow::Owned(String::from_utf8(bytes).unwrap_or_else(|_| text.to_owned())),
        None => Cow::Borrowed(text),
    }
}

/// The lines after the first of each run of `\` lines, and the cut, if the
/// runs are too many.
fn hidden_continuation_runs(
    lines: &[PhysicalLine],
    len: usize,
) -> (Vec<Range<usize>>, Option<Cut>) {
    let mut hidden = Vec::new();
    let mut at = 0;
    while at < lines.len() {
        if lines[at].kind != Line::Continuation {
            at += 1;
            continue;
        }
        let run_end = lines[at..]
            .iter()
            .position(|line| line.kind != Line::Continuation)
            .map_or(lines.len(), |n| at + n);
        if run_end - at >= 2 {
            if hidden.len() == MAX_HIDDEN_RUNS {
                // From this run on, nothing is read.
                let offset = lines[at].start;
                hidden.push(offset..len);
                let why = CutReason::Continuations;
                return (hidden, Some(Cut { offset, why }));
            }
            hidden.push(lines[at + 1].start..lines[run_end - 1].next);
        }
        at = run_end;
    }
    (hidden, None)
}

/// Every physical line of `text` with what it is.
fn physical_lines(text: &str) -> Vec<PhysicalLine> {
    let bytes = text.as_bytes();
    let mut lines = Vec::new();
    let mut state = LexState::default();
    let mut start = 0;
    while start < bytes.len() {
        let end = bytes[start..]
            .iter()
            .position(|b| *b == b'\n')
            .map_or(bytes.len(), |n| start + n);
        let next = (end + 1).min(bytes.len());
        let kind = match state.string {
            Some(_) => Line::Other,
            None => classify(bytes, start, end),
        };
        let top_level = state.string.is_none()
            && state.depth == 0
            && !state.continued
            && bytes.get(start).is_some_and(|b| !b.is_ascii_whitespace());
        match kind {
            Line::Other => state = scan_line(bytes, start, end, state),
            Line::Continuation => state.continued = true,
            Line::Blank | Line::Comment { .. } => state.continued = false,
        }
        lines.push(PhysicalLine {
            start,
            end,
            next,
            kind,
            top_level,
        });
        start = next;
    }
    lines
}

/// What the lexer knows at the end of a line.
#[derive(Clone, Copy, Default)]
struct LexState {
    /// Inside a string: its quote and whether it is triple-quoted.
    string: Option<(u8, bool)>,
    /// Brackets open outside strings and comments.
    depth: usize,
    /// The line ended with a `\` outside a string: the next one goes on.
    continued: bool,
}

/// What a line that starts outside any string is.
fn classify(bytes: &[u8], start: usize, end: usize) -> Line {
    let first = bytes[start..end]
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\x0c'))
        .map(|n| start + n);
    match first {
        None => Line::Blank,
        Some(at) if bytes[at] == b'#' => Line::Comment { hash: at },
        Some(at) if bytes[at] == b'\r' && at + 1 == end => Line::Blank,
        Some(at)
            if bytes[at] == b'\\'
                && (at + 1 == end || (bytes[at + 1] == b'\r' && at + 2 == end)) =>
        {
            Line::Continuation
        }
        Some(_) => Line::Other,
    }
}

/// The lexer's state after the line `start..end` (without its `\n`),
/// entered with `state`.
fn scan_line(bytes: &[u8], start: usize, end: usize, state: LexState) -> LexState {
    let LexState {
        mut string,
        mut depth,
        ..
    } = state;
    let mut i = start;
    while i < end {
        let b = bytes[i];
        match string {
            Some((quote, triple)) => {
                if b == b'\\' {
                    // Escapes the next character; at the line's end, the
                    // line end itself (the string goes on).
                    if i + 1 >= end {
                        return LexState {
                            string,
                            depth,
                            continued: false,
                        };
                    }
                    i += 2;
                    continue;
                }
                if b == quote {
                    if !triple {
                        string = None;
                    } else if bytes.get(i + 1) == Some(&quote)
                        && bytes.get(i + 2) == Some(&quote)
                        && i + 2 < end
                    {
                        string = None;
                        i += 3;
                        continue;
                    }
                }
                i += 1;
            }
            None => match b {
                b'#' => {
                    return LexState {
                        string: None,
                        depth,
                        continued: false,
                    }
                }
                b'\'' | b'"' => {
                    let triple = i + 2 < end && bytes[i + 1] == b && bytes[i + 2] == b;
                    string = Some((b, triple));
                    i += if triple { 3 } else { 1 };
                }
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    i += 1;
                }
                b')' | b']' | b'}' => {
                    depth = depth.saturating_sub(1);
                    i += 1;
                }
                b'\\' if i + 1 == end || (i + 2 == end && bytes[i + 1] == b'\r') => {
                    return LexState {
                        string: None,
                        depth,
                        continued: true,
                    };
                }
                _ => i += 1,
            },
        }
    }
    // A one-quote string ends at its line's end (unterminated) unless a
    // `\` continued it, which returned above.
    let string = match string {
        Some((_, false)) => None,
        other => other,
    };
    LexState {
        string,
        depth,
        continued: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<Line> {
        physical_lines(text).iter().map(|l| l.kind).collect()
    }

    #[test]
    fn lines_inside_strings_are_no_comments() {
        let text = "x = 1\n# c\ns = \"\"\"\n# not a comment\n\"\"\"\nt = '#'\n# d\n";
        let c = text.find("# c").unwrap();
        let d = text.find("# d").unwrap();
        assert_eq!(
            kinds(text),
            [
                Line::Other,
                Line::Comment { hash: c },
                Line::Other,
                Line::Other,
                Line::Other,
                Line::Other,
                Line::Comment { hash: d },
            ]
        );
        // A one-quote string continued by `\` at its line's end.
        let text = "s = 'a\\\n# in the string'\n# c\n";
        let c = text.rfind("# c").unwrap();
        assert_eq!(
            kinds(text),
            [Line::Other, Line::Other, Line::Comment { hash: c }]
        );
        // An escaped quote does not end a string, raw or not; a quote of
        // the other kind neither.
        let text = "s = r\"\\\"\"\n# c\nf\"{d['#']}\"\n# d\n";
        let (c, d) = (text.find("# c").unwrap(), text.find("# d").unwrap());
        assert_eq!(
            kinds(text),
            [
                Line::Other,
                Line::Comment { hash: c },
                Line::Other,
                Line::Comment { hash: d }
            ]
        );
    }

    #[test]
    fn long_comment_runs_are_blanked_byte_for_byte() {
        let short = "x = 1\n# a\n# b\ny = 2\n";
        assert!(matches!(parser_input(short).text, Cow::Borrowed(_)));
        let mut long = String::from("x = 1\n");
        for k in 0..20 {
            long.push_str(&format!("    # comment {k} é\n\n"));
        }
        long.push_str("y = '# kept'  # kept too\n");
        let input = parser_input(&long);
        assert_eq!(input.text.len(), long.len());
        assert!(!input.text.contains("comment"));
        assert!(input.text.ends_with("y = '# kept'  # kept too\n"));
        assert!(input.hidden.is_empty());
    }

    #[test]
    fn continuation_runs_keep_their_first_line() {
        let text = "x = 1 + \\\n\\\n\\\n\\\n2\n";
        let input = parser_input(text);
        // The lines after the first `\` line, up to `2`.
        assert_eq!(input.hidden, vec![Range { start: 12, end: 16 }]);
        assert_eq!(&text[input.hidden[0].clone()], "\\\n\\\n");
        assert_eq!(parse_cut(text), None);
        // A single one is read as it is.
        assert!(parser_input("x = 1 + \\\n\\\n2\n").hidden.is_empty());
    }

    #[test]
    fn a_long_file_is_read_up_to_a_top_level_statement() {
        let block = "@decorator\nclass M:\n    def f(self, x):\n        return (x +\n1)\n\nif a:\n    pass\nelse:\n    pass\n";
        let mut text = String::new();
        while text.len() <= MAX_CHECKED_BYTES + 100 {
            text.push_str(block);
        }
        let cut = parse_cut(&text).expect("a cut");
        assert_eq!(cut.why, CutReason::Size);
        assert!(cut.offset <= MAX_CHECKED_BYTES);
        // At the start of a statement of its own: a decorated class's
        // decorator, or an `if` (not its `else`).
        let rest = &text[cut.offset..];
        assert!(
            rest.starts_with("@decorator\n") || rest.starts_with("if a:\n"),
            "{:?}",
            &rest[..20]
        );
        let input = parser_input(&text);
        assert_eq!(input.hidden.last(), Some(&(cut.offset..text.len())));
        // A short file is read whole.
        assert_eq!(parse_cut(block), None);
    }

    #[test]
    fn too_many_runs_cut_the_parse() {
        let mut text = String::new();
        for _ in 0..MAX_HIDDEN_RUNS + 3 {
            text.push_str("x = 1\n\\\n\\\n");
        }
        let input = parser_input(&text);
        let cut = parse_cut(&text).expect("a cut");
        assert_eq!(cut.why, CutReason::Continuations);
        assert_eq!(input.hidden.len(), MAX_HIDDEN_RUNS + 1);
        assert_eq!(input.hidden.last(), Some(&(cut.offset..text.len())));
    }
}
