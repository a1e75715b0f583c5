//! The editor's side of a document: LSP edits applied as the protocol
//! says, written apart from the server's code so that the two can be
//! compared. Lines end at `\n`, `\r\n` or `\r`; a position past the end of a
//! line is the end of that line (before its break), past the last line the
//! end of the text; a column inside a UTF-16 surrogate pair is before the
//! pair; an edit whose end is before its start inserts at its start.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    pub line: u32,
    pub character: u32,
}

/// The byte offset of `position` in `text`.
pub fn offset(text: &str, position: Position) -> usize {
    let Some((start, end)) = line_bounds(text, position.line as usize) else {
        return text.len();
    };
    let mut units = 0u32;
    for (at, c) in text[start..end].char_indices() {
        units += c.len_utf16() as u32;
        if units > position.character {
            return start + at;
        }
    }
    end
}

/// The byte range of line `line`'s content (without its break).
fn line_bounds(text: &str, line: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut index = 0;
    let mut at = 0;
    while at < bytes.len() {
        let break_len = match bytes[at] {
            b'\r' if bytes.get(at + 1) == Some(&b'\n') => 2,
            b'\r' | b'\n' => 1,
            _ => {
                at += 1;
                continue;
            }
        };
        if index == line {
            return Some((start, at));
        }
        index += 1;
        at += break_len;
        start = at;
    }
    (index == line).then_some((start, bytes.len()))
}

/// Applies one change: the whole text, or a range replaced.
pub fn apply(text: &mut String, range: Option<(Position, Position)>, new_text: &str) {
    match range {
        None => *text = new_text.to_owned(),
        Some((start, end)) => {
            let start = offset(text, start);
            let end = offset(text, end).max(start);
            text.replace_range(start..end, new_text);
        }
    }
}

/// How many lines the text has, as LSP counts them.
pub fn line_count(text: &str) -> usize {
    let mut line = 0;
    while line_bounds(text, line + 1).is_some() {
        line += 1;
    }
    line + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn positions_follow_lsp() {
        let text = "ab\r\nc😀d\re\n";
        assert_eq!(offset(text, at(0, 1)), 1);
        assert_eq!(offset(text, at(0, 9)), 2, "past the end: before the break");
        assert_eq!(offset(text, at(1, 1)), 5);
        assert_eq!(offset(text, at(1, 2)), 5, "inside the pair: before it");
        assert_eq!(offset(text, at(1, 3)), 9);
        assert_eq!(offset(text, at(2, 0)), 11, "\\r alone ends a line");
        assert_eq!(offset(text, at(3, 0)), 13, "the empty last line");
        assert_eq!(offset(text, at(9, 0)), 13);
        assert_eq!(line_count(text), 4);
        let mut edited = text.to_owned();
        apply(&mut edited, Some((at(1, 3), at(0, 0))), "X");
        assert_eq!(edited, "ab\r\nc😀Xd\re\n");
    }
}
