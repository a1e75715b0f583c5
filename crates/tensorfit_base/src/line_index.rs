use ropey::Rope;
use serde::Serialize;

/// A 0-based line and a column in UTF-16 code units, as in LSP.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Position {
    pub line: u32,
    pub character: u32,
}

/// Converts between byte offsets and LSP positions for one text.
///
/// Backed by a rope so that the language server can keep it up to date with
/// incremental edits instead of rebuilding it.
#[derive(Clone, Debug, PartialEq)]
pub struct LineIndex {
    rope: Rope,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        LineIndex {
            rope: Rope::from_str(text),
        }
    }

    /// The position of a byte offset. Offsets past the end map to the end;
    /// an offset inside a multi-byte character maps to that character.
    pub fn position(&self, offset: u32) -> Position {
        let offset = (offset as usize).min(self.rope.len_bytes());
        let line = self.rope.byte_to_line(offset);
        let char_index = self.rope.byte_to_char(offset);
        let line_start_char = self.rope.line_to_char(line);
        let character =
            self.rope.char_to_utf16_cu(char_index) - self.rope.char_to_utf16_cu(line_start_char);
        Position {
            line: line as u32,
            character: character as u32,
        }
    }

    /// The byte offset of a position, if the line exists. A column past the
    /// end of its line maps to the end of that line (before its newline), as
    /// LSP asks clients to expect.
    pub fn offset(&self, position: Position) -> Option<u32> {
        let line = position.line as usize;
        if line >= self.rope.len_lines() {
            return None;
        }
        let line_start_char = self.rope.line_to_char(line);
        let line_slice = self.rope.line(line);
        let content_chars = line_slice.len_chars() - trailing_newline_chars(line_slice);
        let start_cu = self.rope.char_to_utf16_cu(line_start_char);
        let end_cu = self.rope.char_to_utf16_cu(line_start_char + content_chars);
        let wanted_cu = (start_cu + position.character as usize).min(end_cu);
        let char_index = self.rope.utf16_cu_to_char(wanted_cu);
        Some(self.rope.char_to_byte(char_index) as u32)
    }

    /// The text of a 0-based line without its line break.
    pub fn line_text(&self, line: u32) -> String {
        if (line as usize) >= self.rope.len_lines() {
            return String::new();
        }
        let slice = self.rope.line(line as usize);
        let text: String = slice.chars().collect();
        text.trim_end_matches(['\n', '\r']).to_owned()
    }
}

fn trailing_newline_chars(line: ropey::RopeSlice<'_>) -> usize {
    let len = line.len_chars();
    match (
        len.checked_sub(2).map(|i| line.char(i)),
        len.checked_sub(1).map(|i| line.char(i)),
    ) {
        (Some('\r'), Some('\n')) => 2,
        (_, Some('\n' | '\r')) => 1,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn ascii_offsets_map_to_columns() {
        let index = LineIndex::new("let x = 1\nlet y = 2\n");
        assert_eq!(index.position(0), pos(0, 0));
        assert_eq!(index.position(4), pos(0, 4));
        assert_eq!(index.position(10), pos(1, 0));
        assert_eq!(index.position(14), pos(1, 4));
        assert_eq!(index.position(20), pos(2, 0));
    }

    #[test]
    fn columns_count_utf16_code_units() {
        // 'é' is 2 bytes and 1 code unit; '𝕏' is 4 bytes and 2 code units.
        let text = "// é𝕏\nlet x";
        let index = LineIndex::new(text);
        let after_e = text.find('𝕏').unwrap() as u32;
        assert_eq!(index.position(after_e), pos(0, 4));
        let line_end = text.find('\n').unwrap() as u32;
        assert_eq!(index.position(line_end), pos(0, 6));
        assert_eq!(index.offset(pos(0, 6)), Some(line_end));
        assert_eq!(index.offset(pos(0, 4)), Some(after_e));
    }

    #[test]
    fn offsets_round_trip_and_clamp() {
        let text = "a\r\nbc\n";
        let index = LineIndex::new(text);
        for offset in [0u32, 1, 3, 4, 5, 6] {
            assert_eq!(
                index.offset(index.position(offset)),
                Some(offset),
                "offset {offset}"
            );
        }
        assert_eq!(
            index.offset(pos(0, 99)),
            Some(1),
            "column past the end clamps before \\r\\n"
        );
        assert_eq!(index.offset(pos(9, 0)), None);
        assert_eq!(index.position(999), pos(2, 0));
    }

    #[test]
    fn line_text_drops_the_line_break() {
        let index = LineIndex::new("one\r\ntwo\n");
        assert_eq!(index.line_text(0), "one");
        assert_eq!(index.line_text(1), "two");
        assert_eq!(index.line_text(7), "");
    }
}
