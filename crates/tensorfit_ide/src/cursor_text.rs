//! What the text before the cursor says, read without a parser.
//!
//! Completion and signature help run while the user types, on text such as
//! `let y = x.` or `conv2d(x, w, ` that does not parse, and where
//! tree-sitter's error recovery may have dropped the whole function around
//! the cursor. A small scanner over the text up to the cursor still knows
//! whether the cursor is in a comment or a string, which word is being
//! typed, and which brackets are open, with the arguments already written
//! in each open parenthesis. The syntax tree for the rest comes from
//! `cursor_tree`, which uses this scan to complete the text.

/// The unmatched brackets and the word at a cursor.
#[derive(Clone, Debug)]
pub(crate) struct CursorText<'t> {
    pub text: &'t str,
    /// The cursor, moved back to a character boundary and into the text.
    pub offset: usize,
    /// In a comment or a string literal, where nothing is completed.
    pub in_comment_or_string: bool,
    /// Start of the identifier that ends at the cursor (the typed prefix).
    pub word_start: usize,
    /// Brackets open at the cursor, outermost first.
    pub open: Vec<OpenBracket>,
}

#[derive(Clone, Debug)]
pub(crate) struct OpenBracket {
    /// `(`, `[` or `{`.
    pub bracket: char,
    pub offset: usize,
    /// The arguments finished before the cursor (after a comma), for `(`.
    pub args: Vec<WrittenArg>,
    /// Where the argument the cursor is in starts.
    pub current_start: usize,
}

/// An argument as written: `name: value` or a positional value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct WrittenArg {
    pub name: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Code,
    LineComment,
    BlockComment,
    Str { escaped: bool },
}

pub(crate) fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The identifier that contains byte `offset` of `text` or ends there.
pub(crate) fn word_around(text: &str, offset: usize) -> Option<&str> {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let start = text[..offset]
        .char_indices()
        .rev()
        .take_while(|&(_, c)| is_ident_char(c))
        .last()
        .map_or(offset, |(i, _)| i);
    let end = text[offset..]
        .find(|c: char| !is_ident_char(c))
        .map_or(text.len(), |i| offset + i);
    (start < end).then(|| &text[start..end])
}

impl<'t> CursorText<'t> {
    pub fn new(text: &'t str, offset: usize) -> CursorText<'t> {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let prefix = &text[..offset];
        let mut state = State::Code;
        let mut open: Vec<OpenBracket> = Vec::new();
        let mut chars = prefix.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            match state {
                State::LineComment => {
                    if c == '\n' {
                        state = State::Code;
                    }
                }
                State::BlockComment => {
                    if c == '*' && chars.peek().is_some_and(|&(_, n)| n == '/') {
                        chars.next();
                        state = State::Code;
                    }
                }
                State::Str { escaped } => {
                    state = match c {
                        _ if escaped => State::Str { escaped: false },
                        '\\' => State::Str { escaped: true },
                        '"' | '\n' => State::Code,
                        _ => State::Str { escaped: false },
                    };
                }
                State::Code => match c {
                    '/' if chars.peek().is_some_and(|&(_, n)| n == '/') => {
                        state = State::LineComment;
                    }
                    '/' if chars.peek().is_some_and(|&(_, n)| n == '*') => {
                        chars.next();
                        state = State::BlockComment;
                    }
                    '"' => state = State::Str { escaped: false },
                    '(' | '[' | '{' => open.push(OpenBracket {
                        bracket: c,
                        offset: i,
                        args: Vec::new(),
                        current_start: i + 1,
                    }),
                    ')' | ']' | '}' => {
                        let opener = match c {
                            ')' => '(',
                            ']' => '[',
                            _ => '{',
                        };
                        // An unmatched closer is ignored; one that closes an
                        // outer bracket closes what is open inside it too.
                        if let Some(at) = open.iter().rposition(|o| o.bracket == opener) {
                            open.truncate(at);
                        }
                    }
                    ',' => {
                        if let Some(top) = open.last_mut() {
                            let written = &prefix[top.current_start..i];
                            top.args.push(WrittenArg {
                                name: named_argument(written).map(str::to_owned),
                            });
                            top.current_start = i + 1;
                        }
                    }
                    _ => {}
                },
            }
        }
        let in_comment_or_string = match state {
            State::Code => false,
            // `// text` ends at the line break, which is not in the prefix.
            State::LineComment | State::BlockComment | State::Str { .. } => true,
        };
        let word_start = prefix
            .char_indices()
            .rev()
            .take_while(|&(_, c)| is_ident_char(c))
            .last()
            .map_or(offset, |(i, _)| i);
        CursorText {
            text,
            offset,
            in_comment_or_string,
            word_start,
            open,
        }
    }

    /// The identifier typed so far.
    pub fn prefix(&self) -> &'t str {
        &self.text[self.word_start..self.offset]
    }

    /// The word is a member name: `x.` or `x.re`, not the range `0..`.
    pub fn after_dot(&self) -> bool {
        let before = &self.text[..self.word_start];
        before.ends_with('.') && !before.ends_with("..")
    }

    /// The identifier that ends at `end`, skipping spaces before it.
    pub fn word_before(&self, end: usize) -> &'t str {
        let before = self.text[..end].trim_end();
        let start = before
            .char_indices()
            .rev()
            .take_while(|&(_, c)| is_ident_char(c))
            .last()
            .map_or(before.len(), |(i, _)| i);
        &before[start..]
    }

    /// The cursor is where a new name is declared (`let x`, `fn f`,
    /// `for i`, a parameter name), so no existing name fits.
    pub fn declares_a_name(&self) -> bool {
        if matches!(
            self.word_before(self.word_start),
            "let" | "var" | "fn" | "struct" | "const" | "for"
        ) {
            return true;
        }
        let Some(top) = self.open.last() else {
            return false;
        };
        // A tuple pattern: `let (a, b`.
        if top.bracket == '(' && matches!(self.word_before(top.offset), "let" | "var") {
            return true;
        }
        // A parameter name, before its `:` or `=`.
        self.in_parameter_list() && !self.current_arg(top).contains([':', '='])
    }

    /// The cursor is on a type: after `->`, or after the `:` of a parameter
    /// or of a `let`/`var`/`const` annotation (not of a named argument).
    pub fn in_type_position(&self) -> bool {
        let before = self.text[..self.word_start].trim_end();
        if before.ends_with("->") {
            return true;
        }
        let Some(before_colon) = before.strip_suffix(':') else {
            return false;
        };
        let name = self.word_before(before_colon.len());
        if name.is_empty() {
            return false;
        }
        let keyword = self.word_before(before_colon.trim_end().len() - name.len());
        matches!(keyword, "let" | "var" | "const") || self.in_parameter_list()
    }

    /// The innermost open bracket is the parameter list of `fn name(` or
    /// `struct Name(`.
    fn in_parameter_list(&self) -> bool {
        let Some(top) = self.open.last() else {
            return false;
        };
        if top.bracket != '(' {
            return false;
        }
        let before_paren = self.text[..top.offset].trim_end();
        let callee = self.word_before(top.offset);
        !callee.is_empty()
            && matches!(
                self.word_before(before_paren.len() - callee.len()),
                "fn" | "struct"
            )
    }

    /// The text of the argument being written in `open`, up to the word.
    pub fn current_arg(&self, open: &OpenBracket) -> &'t str {
        let start = open.current_start.min(self.word_start);
        &self.text[start..self.word_start]
    }
}

/// `name` of an argument written `name: value`.
pub(crate) fn named_argument(written: &str) -> Option<&str> {
    let written = written.trim_start();
    let end = written
        .char_indices()
        .find(|&(_, c)| !is_ident_char(c))
        .map_or(written.len(), |(i, _)| i);
    let name = &written[..end];
    let rest = written[end..].trim_start();
    let starts_like_a_name = name.chars().next().is_some_and(|c| !c.is_numeric());
    (starts_like_a_name && rest.starts_with(':')).then_some(name)
}
