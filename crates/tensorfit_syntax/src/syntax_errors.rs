//! Turns tree-sitter's `ERROR` and `MISSING` nodes into diagnostics that say
//! what was found and what was expected, with a tight range.

use tensorfit_base::{Code, Diagnostic, TextRange};
use tree_sitter::{Language, Node, Tree};

/// More than this many syntax errors in one file are summarised in one last
/// diagnostic: past that point they are noise.
const MAX_SYNTAX_ERRORS: usize = 100;

pub(crate) fn collect(tree: &Tree, text: &str) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    let root = tree.root_node();
    if !root.has_error() {
        return diagnostics;
    }
    let language = tree.language();
    let mut cursor = root.walk();
    let mut suppressed = 0usize;
    // Pre-order walk without recursion: error regions can be very deep.
    'walk: loop {
        let node = cursor.node();
        let mut descend = node.has_error();
        if node.is_missing() || node.is_error() {
            descend = false;
            if diagnostics.len() < MAX_SYNTAX_ERRORS {
                let diagnostic = if node.is_missing() {
                    missing(node, &language)
                } else {
                    unexpected(node, text, &language)
                };
                diagnostics.push(diagnostic);
            } else {
                suppressed += 1;
            }
        }
        if descend && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    if suppressed > 0 {
        let last = diagnostics.last().map(|d| d.range).unwrap_or_default();
        diagnostics.push(Diagnostic::new(
            Code::SyntaxError,
            last,
            format!("{suppressed} more syntax errors after this one are not shown"),
        ));
    }
    diagnostics
}

fn missing(node: Node<'_>, language: &Language) -> Diagnostic {
    let what =
        describe_symbol(language, node.kind_id()).unwrap_or_else(|| format!("`{}`", node.kind()));
    Diagnostic::new(
        Code::SyntaxError,
        TextRange::empty(node.start_byte()),
        format!("expected {what}"),
    )
}

fn unexpected(node: Node<'_>, text: &str, language: &Language) -> Diagnostic {
    let token = first_leaf(node);
    let range = if token.start_byte() < token.end_byte() {
        TextRange::new(token.start_byte(), token.end_byte())
    } else {
        TextRange::new(node.start_byte(), node.end_byte())
    };
    let found = match text.get(range.as_usize()) {
        Some("") | None => "end of file".to_owned(),
        Some(token_text) => format!("`{}`", shorten(token_text)),
    };
    let message = match expected_before(node, language) {
        Some(expected) => format!("unexpected {found}; expected {expected}"),
        None => format!("unexpected {found}"),
    };
    Diagnostic::new(Code::SyntaxError, range, message)
}

fn first_leaf(node: Node<'_>) -> Node<'_> {
    let mut leaf = node;
    while let Some(child) = leaf.child(0) {
        leaf = child;
    }
    leaf
}

/// The last token before `node`, whose parse state tells what could follow.
fn token_before(node: Node<'_>) -> Option<Node<'_>> {
    let mut current = node;
    loop {
        if let Some(previous) = current.prev_sibling() {
            let mut leaf = previous;
            while leaf.child_count() > 0 {
                leaf = leaf.child(leaf.child_count() - 1)?;
            }
            return Some(leaf);
        }
        current = current.parent()?;
    }
}

/// What the grammar allowed where the error starts, e.g.
/// "`)`, `,` or an expression".
fn expected_before(node: Node<'_>, language: &Language) -> Option<String> {
    let previous = token_before(node)?;
    if previous.is_error() || previous.is_missing() || previous.is_extra() {
        return None;
    }
    let lookahead = language.lookahead_iterator(previous.next_parse_state())?;
    // The iterator also yields the rules the state can reduce to; tokens are
    // numbered before all rules, and `source_file` is the first rule.
    let first_rule = language.id_for_node_kind("source_file", true);
    let mut expression = false;
    let mut items: Vec<String> = Vec::new();
    for symbol in lookahead.filter(|&symbol| symbol < first_rule) {
        let Some(kind) = language.node_kind_for_id(symbol) else {
            continue;
        };
        if EXPRESSION_STARTS.contains(&kind) && language.node_kind_is_named(symbol) == (kind != "(")
        {
            expression |= kind == "identifier";
            if kind == "identifier" {
                continue;
            }
        }
        if let Some(description) = describe_symbol(language, symbol) {
            if !items.contains(&description) {
                items.push(description);
            }
        }
    }
    if expression {
        items.retain(|item| !EXPRESSION_ONLY.iter().any(|e| item == e));
        items.push("an expression".to_owned());
    }
    if items.is_empty() || items.len() > 8 {
        return None;
    }
    Some(join_alternatives(&items))
}

/// Token kinds that only ever begin an expression: listed once as "an expression".
const EXPRESSION_STARTS: &[&str] = &["identifier", "integer", "float", "hole", "self", "("];
const EXPRESSION_ONLY: &[&str] = &[
    "a number",
    "a hole `__`",
    "`self`",
    "`(`",
    "`[`",
    "`-`",
    "`!`",
    "`true`",
    "`false`",
    "a string",
    "`sum`",
    "`prod`",
    "`max`",
    "`min`",
    "`where`",
];

fn describe_symbol(language: &Language, symbol: u16) -> Option<String> {
    let kind = language.node_kind_for_id(symbol)?;
    if !language.node_kind_is_visible(symbol) || kind.is_empty() || kind == "end" || kind == "ERROR"
    {
        return None;
    }
    if language.node_kind_is_named(symbol) {
        return Some(
            match kind {
                "identifier" => "a name",
                "integer" | "float" => "a number",
                "string" | "string_content" | "escape_sequence" => "a string",
                "hole" => "a hole `__`",
                "line_comment" | "block_comment" => return None,
                "self" => "`self`",
                "primitive_type" => "a type",
                "unknown_dimension" => "`?`",
                "reduction_operator" => return None,
                other => return Some(other.replace('_', " ")),
            }
            .to_owned(),
        );
    }
    Some(format!("`{kind}`"))
}

fn join_alternatives(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn shorten(text: &str) -> String {
    let first_line = text.lines().next().unwrap_or("");
    if first_line.chars().count() > 30 {
        let prefix: String = first_line.chars().take(30).collect();
        format!("{prefix}…")
    } else {
        first_line.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use crate::parse;

    fn messages(text: &str) -> Vec<(u32, u32, String)> {
        parse(text)
            .diagnostics
            .into_iter()
            .filter(|d| d.code == tensorfit_base::Code::SyntaxError)
            .map(|d| (d.range.start, d.range.end, d.message))
            .collect()
    }

    #[test]
    fn missing_closing_parenthesis_is_expected_at_the_gap() {
        let found = messages("let x = zeros([2, 3]\nlet y = 1\n");
        assert_eq!(found, vec![(20, 20, "expected `)`".to_owned())]);
    }

    #[test]
    fn unexpected_token_names_it_and_what_could_come() {
        let found = messages("let x = 1 + * 2\n");
        assert_eq!(found.len(), 1, "{found:?}");
        let (start, end, message) = &found[0];
        assert_eq!((*start, *end), (12, 13));
        assert!(message.starts_with("unexpected `*`; expected"), "{message}");
        assert!(message.contains("an expression"), "{message}");
    }

    #[test]
    fn stray_characters_get_a_tight_range() {
        let found = messages("let x = 1 $ 2\nlet y = 3\n");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].0, found[0].1), (10, 11));
        assert!(found[0].2.starts_with("unexpected `$`"), "{}", found[0].2);
    }

    #[test]
    fn a_flood_of_errors_is_capped() {
        let text = "$ ".repeat(5000);
        let found = messages(&text);
        assert!(found.len() <= 101, "{} diagnostics", found.len());
        assert!(!found.is_empty());
    }
}
