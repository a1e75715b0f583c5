//! No two modules of a crate import each other, directly or through
//! others (docs/architecture.md, "Invariants"): a module uses those below it,
//! never one above, so that each can be read, tested and changed from the
//! bottom up.
//!
//! Imports are read from the source: every `crate::a::b`, `super::x` and
//! `self::x` path, in `use` declarations (braces expanded) and in code,
//! names the deepest module file it reaches. A crate's root (`lib.rs`,
//! `main.rs`) is left out: it declares the modules and re-exports their
//! names, which is no dependence of theirs on it; so are unit tests
//! (`#[cfg(test)] mod tests`), which may use any module of their crate. The loops are the
//! strongly connected components of those arrows.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Loops that are known and being taken apart (issue 67, "module
/// cycles"), each by its files. A loop found that is not here fails the
/// test; so does one here that is gone, so that the list only shrinks.
const KNOWN_LOOPS: &[&[&str]] = &[
    &[
        "tensorfit_db/src/imports.rs",
        "tensorfit_db/src/items.rs",
        "tensorfit_db/src/python_modules.rs",
        "tensorfit_db/src/queries.rs",
        "tensorfit_db/src/top_statements.rs",
        "tensorfit_db/src/transitive_imports.rs",
    ],
    &[
        "tensorfit_python/src/changed_names.rs",
        "tensorfit_python/src/context.rs",
        "tensorfit_python/src/inheritance.rs",
        "tensorfit_python/src/lower/containers.rs",
        "tensorfit_python/src/lower/derived.rs",
        "tensorfit_python/src/lower/expressions.rs",
        "tensorfit_python/src/lower/init.rs",
        "tensorfit_python/src/lower/locals.rs",
        "tensorfit_python/src/lower/mod.rs",
        "tensorfit_python/src/lower/registered.rs",
        "tensorfit_python/src/lower/statements.rs",
        "tensorfit_python/src/outline.rs",
        "tensorfit_python/src/statement_facts.rs",
    ],
    &[
        "tensorfit_run/src/layers.rs",
        "tensorfit_run/src/ops/creation.rs",
        "tensorfit_run/src/ops/elementwise.rs",
        "tensorfit_run/src/ops/linalg.rs",
        "tensorfit_run/src/ops/mod.rs",
        "tensorfit_run/src/ops/nn/mod.rs",
        "tensorfit_run/src/ops/products.rs",
        "tensorfit_run/src/ops/reduce.rs",
        "tensorfit_run/src/ops/shape.rs",
        "tensorfit_run/src/recurrent.rs",
        "tensorfit_run/src/value.rs",
    ],
    &[
        "tensorfit_semantics/src/shapes/analysis.rs",
        "tensorfit_semantics/src/shapes/check.rs",
        "tensorfit_semantics/src/shapes/conditions.rs",
        "tensorfit_semantics/src/shapes/display.rs",
        "tensorfit_semantics/src/shapes/exec.rs",
        "tensorfit_semantics/src/shapes/holes.rs",
        "tensorfit_semantics/src/shapes/kernels.rs",
        "tensorfit_semantics/src/shapes/migration.rs",
        "tensorfit_semantics/src/shapes/preconditions.rs",
        "tensorfit_semantics/src/shapes/ranges.rs",
        "tensorfit_semantics/src/shapes/shown.rs",
    ],
    &[
        "tensorfit_solver/src/contexts.rs",
        "tensorfit_solver/src/known_answers.rs",
        "tensorfit_solver/src/z3_backend.rs",
    ],
];

#[test]
fn no_crate_has_a_loop_of_module_imports_but_the_known_ones() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found: Vec<Vec<String>> = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&crates)
        .expect("the crates directory")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("src").is_dir())
        .collect();
    entries.sort();
    for krate in &entries {
        let name = krate.file_name().unwrap().to_string_lossy().into_owned();
        for component in loops(&krate.join("src")) {
            let mut files: Vec<String> = component
                .iter()
                .map(|f| format!("{name}/src/{}", f.display()).replace('\\', "/"))
                .collect();
            files.sort();
            found.push(files);
        }
    }
    let known: BTreeSet<Vec<String>> = KNOWN_LOOPS
        .iter()
        .map(|files| files.iter().map(|f| f.to_string()).collect())
        .collect();
    let found: BTreeSet<Vec<String>> = found.into_iter().collect();
    let new: Vec<_> = found.difference(&known).collect();
    let gone: Vec<_> = known.difference(&found).collect();
    assert!(new.is_empty(), "modules that import each other: {new:#?}");
    assert!(
        gone.is_empty(),
        "loops taken apart: remove them from KNOWN_LOOPS: {gone:#?}"
    );
}

#[test]
fn the_reader_finds_a_loop_and_only_the_loop() {
    let dir = std::env::temp_dir().join(format!("tensorfit-cycles-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("a")).unwrap();
    let write = |path: &str, text: &str| std::fs::write(dir.join(path), text).unwrap();
    // The root re-exports and declares: no arrows of its own.
    write(
        "lib.rs",
        "mod a;\nmod b;\nmod c;\nmod d;\nmod e;\npub use a::Thing;\n",
    );
    // a -> b through a brace group; nothing comes back to a.
    write(
        "a/mod.rs",
        "mod inner;\nuse crate::b::{self, Other as O};\npub struct Thing;\n",
    );
    // inner -> c through `super::super`.
    write("a/inner.rs", "pub fn f() { super::super::c::g() }\n");
    // b -> inner; the comment names c and is no import.
    write(
        "b.rs",
        "// crate::c::g\npub fn h() { crate::a::inner::f() }\npub struct Other;\n",
    );
    // c -> b closes the loop b -> inner -> c -> b; the string is no import.
    write(
        "c.rs",
        "pub fn g() { let _ = \"crate::a\"; crate::b::h() }\n",
    );
    // `super` inside an inline module is the file's own module; e's unit
    // test may use b (no arrow e -> b).
    write(
        "d.rs",
        "pub fn k() {}\nmod tests {\n    use super::*;\n    fn t() { super::k() }\n}\n",
    );
    write(
        "e.rs",
        "fn m() { crate::d::k() }\n#[cfg(test)]\nmod tests {\n    use crate::b::h;\n}\n",
    );
    let found = loops(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    let expected: Vec<PathBuf> = ["a/inner.rs", "b.rs", "c.rs"]
        .iter()
        .map(PathBuf::from)
        .collect();
    assert_eq!(found, vec![expected]);
}

/// The loops of the crate whose sources are under `src`, each as its
/// files (relative to `src`, sorted); sorted.
fn loops(src: &Path) -> Vec<Vec<PathBuf>> {
    let modules = modules(src);
    let by_path: BTreeMap<&[String], &PathBuf> = modules
        .iter()
        .map(|(path, file)| (path.as_slice(), file))
        .collect();
    let mut arrows: BTreeMap<&PathBuf, BTreeSet<&PathBuf>> = BTreeMap::new();
    for (path, file) in &modules {
        if path.is_empty() {
            continue;
        }
        let text = std::fs::read_to_string(src.join(file)).expect("a readable source");
        for (inline, reference) in references(&code_only(&text)) {
            // Inside `mod tests { ... }`, `super` is the file's module.
            let here: Vec<String> = path.iter().chain(&inline).cloned().collect();
            let Some(absolute) = absolute(&here, &reference) else {
                continue;
            };
            // The deepest module the path reaches.
            let target = (1..=absolute.len())
                .rev()
                .find_map(|n| by_path.get(&absolute[..n]).copied());
            if let Some(target) = target.filter(|t| *t != file) {
                arrows.entry(file).or_default().insert(target);
            }
        }
    }
    let mut components =
        strongly_connected(&modules.iter().map(|(_, f)| f).collect::<Vec<_>>(), &arrows);
    components.retain(|c| c.len() > 1);
    for component in &mut components {
        component.sort();
    }
    components.sort();
    components
}

/// Every module file under `src` with its module path (`[]` for the
/// crate root, `["shapes", "exec"]` for `shapes/exec.rs` or
/// `shapes/exec/mod.rs`).
fn modules(src: &Path) -> Vec<(Vec<String>, PathBuf)> {
    let mut found = Vec::new();
    let mut dirs = vec![PathBuf::new()];
    while let Some(dir) = dirs.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(src.join(&dir))
            .expect("a source directory")
            .flatten()
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let relative = dir.join(entry.file_name());
            if entry.path().is_dir() {
                dirs.push(relative);
                continue;
            }
            if relative.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let mut path: Vec<String> = dir
                .iter()
                .map(|s| s.to_string_lossy().into_owned())
                .collect();
            let stem = relative.file_stem().unwrap().to_string_lossy().into_owned();
            let root = dir.as_os_str().is_empty() && (stem == "lib" || stem == "main");
            if !root && stem != "mod" {
                path.push(stem);
            }
            found.push((path, relative));
        }
    }
    found
}

/// The text without comments and string literals, which name paths that
/// are no imports.
fn code_only(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        if text[i..].starts_with("//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if text[i..].starts_with("/*") {
            let end = text[i + 2..]
                .find("*/")
                .map_or(bytes.len(), |e| i + 2 + e + 2);
            i = end;
        } else if bytes[i] == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else {
            let c = text[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The paths that start at `crate`, `super` or `self` in `code`, as
/// segments: `use` trees expanded (`use crate::a::{b, c::d}` is `crate a
/// b` and `crate a c d`), other paths as written; each with the inline
/// modules (`mod tests { ... }`) it is inside.
fn references(code: &str) -> Vec<(Vec<String>, Vec<String>)> {
    let mut found = Vec::new();
    let tokens = tokens(code);
    // The inline modules around, with the brace depth each opened at.
    let mut inline: Vec<(String, usize)> = Vec::new();
    // Inside `#[cfg(test)] mod tests { ... }` from this depth: a unit
    // test may use any module of its crate, and is no part of the layers.
    let mut in_tests: Option<usize> = None;
    let mut depth = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i].as_str() {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, at)| *at == depth) {
                    inline.pop();
                }
                if in_tests == Some(depth) {
                    in_tests = None;
                }
            }
            "mod" if tokens.get(i + 2).is_some_and(|t| t == "{") => {
                let attribute = ["#", "[", "cfg", "(", "test", ")", "]"];
                let tests = i >= attribute.len() && tokens[i - attribute.len()..i] == attribute;
                if tests && in_tests.is_none() {
                    in_tests = Some(depth);
                }
                inline.push((tokens[i + 1].clone(), depth));
                depth += 1;
                i += 3;
                continue;
            }
            _ => {}
        }
        if in_tests.is_some() {
            i += 1;
            continue;
        }
        if tokens[i] == "use" {
            let end = tokens[i..]
                .iter()
                .position(|t| t == ";")
                .map_or(tokens.len(), |e| i + e);
            let mut paths = Vec::new();
            expand_use(&tokens[i + 1..end], &[], &mut paths);
            let here = names(&inline);
            found.extend(
                paths
                    .into_iter()
                    .filter(|p| matches!(p[0].as_str(), "crate" | "super" | "self"))
                    .map(|p| (here.clone(), p)),
            );
            i = end;
            continue;
        }
        if matches!(tokens[i].as_str(), "crate" | "super" | "self") {
            let mut path = vec![tokens[i].clone()];
            let mut j = i + 1;
            while j + 1 < tokens.len() && tokens[j] == "::" && is_ident(&tokens[j + 1]) {
                path.push(tokens[j + 1].clone());
                j += 2;
            }
            if path.len() > 1 {
                found.push((names(&inline), path));
            }
            i = j;
            continue;
        }
        i += 1;
    }
    found
}

/// The names of the inline modules around.
fn names(inline: &[(String, usize)]) -> Vec<String> {
    inline.iter().map(|(name, _)| name.clone()).collect()
}

/// The paths of a `use` tree, `prefix` before them.
fn expand_use(tree: &[String], prefix: &[String], out: &mut Vec<Vec<String>>) {
    // Items separated by top-level commas.
    let mut depth = 0;
    let mut start = 0;
    let mut items = Vec::new();
    for (k, token) in tree.iter().enumerate() {
        match token.as_str() {
            "{" => depth += 1,
            "}" => depth -= 1,
            "," if depth == 0 => {
                items.push(&tree[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    items.push(&tree[start..]);
    for item in items {
        let mut path = prefix.to_vec();
        let mut k = 0;
        while k < item.len() {
            match item[k].as_str() {
                "::" => {}
                "{" => {
                    let close =
                        item.len() - 1 - item.iter().rev().position(|t| t == "}").unwrap_or(0);
                    expand_use(&item[k + 1..close.max(k + 1)], &path, out);
                    path.clear();
                    break;
                }
                "as" => break,
                token if is_ident(token) => path.push(token.to_owned()),
                _ => break,
            }
            k += 1;
        }
        if !path.is_empty() {
            out.push(path);
        }
    }
}

fn tokens(code: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(chars[start..i].iter().collect());
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            tokens.push("::".to_owned());
            i += 2;
        } else {
            if !c.is_whitespace() {
                tokens.push(c.to_string());
            }
            i += 1;
        }
    }
    tokens
}

fn is_ident(token: &str) -> bool {
    token
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// `reference` (starting at `crate`, `super` or `self`) from the module
/// at `path` as a path from the crate root; `None` past the root.
fn absolute(path: &[String], reference: &[String]) -> Option<Vec<String>> {
    let mut base: Vec<String> = path.to_vec();
    let mut rest = reference;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        _ => {
            // `self` in `a/b.rs` (or `a/b/mod.rs`) is `a::b`; each
            // `super` one module up.
            while let Some(first) = rest.first() {
                match first.as_str() {
                    "self" => {}
                    "super" => {
                        base.pop()?;
                    }
                    _ => break,
                }
                rest = &rest[1..];
            }
        }
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// Tarjan's strongly connected components of `nodes` under `arrows`.
fn strongly_connected<'p>(
    nodes: &[&'p PathBuf],
    arrows: &BTreeMap<&'p PathBuf, BTreeSet<&'p PathBuf>>,
) -> Vec<Vec<PathBuf>> {
    struct State<'p> {
        index: BTreeMap<&'p PathBuf, usize>,
        low: BTreeMap<&'p PathBuf, usize>,
        stack: Vec<&'p PathBuf>,
        on_stack: BTreeSet<&'p PathBuf>,
        components: Vec<Vec<PathBuf>>,
    }
    fn visit<'p>(
        node: &'p PathBuf,
        arrows: &BTreeMap<&'p PathBuf, BTreeSet<&'p PathBuf>>,
        state: &mut State<'p>,
    ) {
        let n = state.index.len();
        state.index.insert(node, n);
        state.low.insert(node, n);
        state.stack.push(node);
        state.on_stack.insert(node);
        for &next in arrows.get(node).into_iter().flatten() {
            if !state.index.contains_key(next) {
                visit(next, arrows, state);
                let low = state.low[node].min(state.low[next]);
                state.low.insert(node, low);
            } else if state.on_stack.contains(next) {
                let low = state.low[node].min(state.index[next]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut component = Vec::new();
            while let Some(top) = state.stack.pop() {
                state.on_stack.remove(top);
                component.push(top.clone());
                if top == node {
                    break;
                }
            }
            state.components.push(component);
        }
    }
    let mut state = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        components: Vec::new(),
    };
    for &node in nodes {
        if !state.index.contains_key(node) {
            visit(node, arrows, &mut state);
        }
    }
    state.components
}
