//! Compiles the generated parser and the hand-written external scanner.
//! `src/parser.c` is committed, so building never needs the tree-sitter CLI.
fn main() {
    let src_dir = std::path::Path::new("src");
    let sources = [src_dir.join("parser.c"), src_dir.join("scanner.c")];
    cc::Build::new()
        .std("c11")
        .include(src_dir)
        .files(&sources)
        .warnings(false)
        .compile("tree-sitter-tensor");
    for source in &sources {
        println!("cargo:rerun-if-changed={}", source.display());
    }
}
