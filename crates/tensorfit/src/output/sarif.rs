//! `--format sarif`: SARIF 2.1.0, for code-scanning upload (GitHub's
//! `upload-sarif`, Azure DevOps, any SARIF viewer).
//!
//! One run whose tool lists every diagnostic code as a rule, so that a
//! result's `ruleIndex` is stable across runs; one result per diagnostic,
//! with its related places as `relatedLocations`. Lines and columns are
//! 1-based, columns counted in UTF-16 code units (`columnKind`), the same
//! positions as LSP's and the JSON report's, plus one.

use std::io::{self, Write};

use serde::Serialize;
use tensorfit_base::{Code, Diagnostic, LineIndex, Severity, TextRange};

use super::CheckedFile;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// Relative paths are relative to where `tensorfit check` ran: the
/// repository root in CI.
const SOURCE_ROOT: &str = "%SRCROOT%";

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Log {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<Run>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    tool: Tool,
    column_kind: &'static str,
    results: Vec<ResultJson>,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    semantic_version: &'static str,
    rules: Vec<Rule>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: &'static str,
    short_description: Text,
    help: Text,
    #[serde(skip_serializing_if = "Option::is_none")]
    help_uri: Option<String>,
    default_configuration: Configuration,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
struct Text {
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultJson {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: Text,
    locations: Vec<Location>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<Location>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    physical_location: PhysicalLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Text>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    region: Region,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u32,
    start_column: u32,
    end_line: u32,
    end_column: u32,
}

/// SARIF's levels: `note` for what is not a problem to fix.
fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information | Severity::Hint => "note",
    }
}

/// Every code as a rule; with the address of docs/diagnostics.md (a
/// released binary's `tensorfit_base::DOCS_URL`), each rule's `helpUri` is
/// its section there. SARIF wants an absolute URI: without an address
/// there is none, and the help names the page.
fn rules(docs_url: Option<&str>) -> Vec<Rule> {
    Code::ALL
        .iter()
        .map(|code| {
            let help_uri = docs_url.map(|url| code.docs_at(url));
            let help = match &help_uri {
                Some(uri) => format!("`{}` is explained, with examples, at {uri}", code.as_str()),
                None => format!(
                    "`{}` is explained, with examples, in docs/diagnostics.md of tensorfit.",
                    code.as_str()
                ),
            };
            Rule {
                id: code.as_str(),
                short_description: Text {
                    text: code.summary().to_owned(),
                },
                help: Text { text: help },
                help_uri,
                default_configuration: Configuration {
                    level: level(code.default_severity()),
                },
            }
        })
        .collect()
}

/// A relative path as a URI reference against the source root; an absolute
/// one as a `file:` URI. Characters a URI cannot hold are percent-encoded:
/// a backslash, which on Unix is part of a file's name, becomes `%5C` (on
/// Windows it separates directories, and becomes `/`).
fn artifact(path: &str) -> ArtifactLocation {
    let slashed = match std::path::MAIN_SEPARATOR {
        '\\' => path.replace('\\', "/"),
        _ => path.to_owned(),
    };
    let encoded = percent_encode(&slashed);
    if slashed.starts_with('/') {
        ArtifactLocation {
            uri: format!("file://{encoded}"),
            uri_base_id: None,
        }
    } else {
        ArtifactLocation {
            uri: encoded,
            uri_base_id: Some(SOURCE_ROOT),
        }
    }
}

fn percent_encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        let keep = byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte);
        if keep {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn region(index: &LineIndex, range: TextRange) -> Region {
    let start = index.position(range.start);
    let end = index.position(range.end);
    Region {
        start_line: start.line + 1,
        start_column: start.character + 1,
        end_line: end.line + 1,
        end_column: end.character + 1,
    }
}

fn location(file: &CheckedFile, range: TextRange) -> PhysicalLocation {
    PhysicalLocation {
        artifact_location: artifact(&file.path),
        region: region(&file.analysis.line_index, range),
    }
}

fn result(file: &CheckedFile, d: &Diagnostic) -> ResultJson {
    ResultJson {
        rule_id: d.code.as_str(),
        rule_index: Code::ALL.iter().position(|c| *c == d.code).unwrap_or(0),
        level: level(d.severity),
        message: Text {
            text: d.message.clone(),
        },
        locations: vec![Location {
            id: None,
            physical_location: location(file, d.range),
            message: None,
        }],
        related_locations: d
            .related
            .iter()
            .enumerate()
            .map(|(i, r)| Location {
                id: Some(i),
                physical_location: location(file, r.range),
                message: Some(Text {
                    text: r.message.clone(),
                }),
            })
            .collect(),
    }
}

pub fn write(out: &mut impl Write, files: &[CheckedFile]) -> io::Result<()> {
    let results = files
        .iter()
        .flat_map(|file| {
            file.analysis
                .diagnostics()
                .iter()
                .map(move |d| result(file, d))
        })
        .collect();
    let log = Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: vec![Run {
            tool: Tool {
                driver: Driver {
                    name: "tensorfit",
                    version: env!("CARGO_PKG_VERSION"),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    rules: rules(tensorfit_base::DOCS_URL),
                },
            },
            column_kind: "utf16CodeUnits",
            results,
        }],
    };
    serde_json::to_writer_pretty(&mut *out, &log)?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_link_their_section_only_when_the_docs_have_an_address() {
        let url = "https://github.com/owner/tensorfit/blob/v0.1.0/docs/diagnostics.md";
        let linked = rules(Some(url));
        let hole = linked
            .iter()
            .find(|r| r.id == "unsolved-hole")
            .expect("a rule per code");
        assert_eq!(
            hole.help_uri.as_deref(),
            Some(&*format!("{url}#unsolved-hole"))
        );
        assert!(hole.help.text.contains(&format!("{url}#unsolved-hole")));
        // Built without an address: no `helpUri` at all (SARIF requires an
        // absolute URI), the help names the page.
        let unlinked = serde_json::to_value(rules(None)).unwrap();
        assert!(unlinked[0].get("helpUri").is_none(), "{}", unlinked[0]);
        assert!(unlinked[0]["help"]["text"]
            .as_str()
            .unwrap()
            .contains("docs/diagnostics.md"));
    }
}
