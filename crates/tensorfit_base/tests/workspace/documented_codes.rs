//! Every diagnostic code has a section in docs/diagnostics.md, under the
//! heading `` ### `code` `` and nothing else on its line: the section's
//! anchor is then the code itself, which SARIF's `helpUri` links to.

use tensorfit_base::Code;

#[test]
fn every_code_is_documented() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/diagnostics.md");
    let docs = std::fs::read_to_string(path).expect("docs/diagnostics.md");
    let missing: Vec<&str> = Code::ALL
        .iter()
        .map(|code| code.as_str())
        .filter(|name| !docs.lines().any(|line| line == format!("### `{name}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "codes without a section in docs/diagnostics.md: {missing:?}"
    );
}
