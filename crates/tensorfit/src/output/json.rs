//! `--format json`, version 1 of the schema in docs/cli.md.

use std::io::{self, Write};

use serde::Serialize;
use tensorfit_base::{Diagnostic, LineIndex, Position, Severity, TextRange};
use tensorfit_ide::{HoleSolution, ShapeInfo, ValueRange};

use super::CheckedFile;

#[derive(Serialize)]
struct Report<'a> {
    version: u32,
    files: Vec<FileReport<'a>>,
}

#[derive(Serialize)]
struct FileReport<'a> {
    path: &'a str,
    diagnostics: Vec<DiagnosticJson<'a>>,
    bindings: Vec<BindingJson<'a>>,
    /// Filled by the hole solver and migration (holes issue); present now so
    /// that consumers can rely on the schema.
    holes: Vec<HoleJson>,
    conditions: Vec<ConditionJson>,
    migrations: Vec<MigrationJson<'a>>,
    /// The analysis's bounds that were reached: what they left unchecked
    /// says nothing (docs/cli.md).
    limits: Vec<LimitJson<'a>>,
}

#[derive(Serialize)]
struct LimitJson<'a> {
    limit: &'static str,
    /// The function or method (`S.forward`) whose analysis reached it;
    /// absent for the script.
    #[serde(skip_serializing_if = "Option::is_none")]
    function: Option<&'a str>,
    message: String,
}

#[derive(Serialize)]
struct BindingJson<'a> {
    name: &'a str,
    range: RangeJson,
    function: Option<&'a str>,
    shape: &'a str,
    /// The concrete shapes at the calls whose arguments fix them.
    at_calls: Vec<CallShapeJson<'a>>,
}

#[derive(Serialize)]
struct CallShapeJson<'a> {
    /// The call of the binding's function.
    call: RangeJson,
    /// The calls that lead to it, outermost first (empty for a direct call).
    via: Vec<RangeJson>,
    shape: &'a str,
}

#[derive(Serialize)]
struct MigrationJson<'a> {
    range: RangeJson,
    function: &'a str,
    parameter: &'a str,
    annotation: &'a str,
    #[serde(rename = "static")]
    is_static: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    example: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

#[derive(Serialize)]
struct ConditionJson {
    range: RangeJson,
    always: bool,
    /// The branch that never runs (null for an always-true `if` without
    /// `else`).
    dead_branch: Option<RangeJson>,
}

#[derive(Serialize)]
struct HoleJson {
    range: RangeJson,
    /// The forced value, or null.
    value: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    min: Option<Option<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max: Option<Option<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    examples: Option<Vec<i64>>,
    /// Why there is neither a value nor a range.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'static str>,
}

fn hole(index: &LineIndex, hole: &HoleSolution) -> HoleJson {
    let mut json = HoleJson {
        range: range(index, hole.range),
        value: None,
        min: None,
        max: None,
        examples: None,
        reason: None,
    };
    match &hole.values {
        ValueRange::Forced(value) => json.value = Some(*value),
        ValueRange::Range { min, max, examples } => {
            json.min = Some(*min);
            json.max = Some(*max);
            json.examples = Some(examples.clone());
        }
        ValueRange::Empty => json.reason = Some("no value fits every path that uses it"),
        ValueRange::Unknown => json.reason = Some("cannot be determined within the time limit"),
    }
    json
}

#[derive(Serialize)]
struct RangeJson {
    start: Position,
    end: Position,
}

#[derive(Serialize)]
struct DiagnosticJson<'a> {
    range: RangeJson,
    severity: Severity,
    code: &'static str,
    message: &'a str,
    related: Vec<RelatedJson<'a>>,
}

#[derive(Serialize)]
struct RelatedJson<'a> {
    path: &'a str,
    range: RangeJson,
    message: &'a str,
}

fn range(index: &LineIndex, range: TextRange) -> RangeJson {
    RangeJson {
        start: index.position(range.start),
        end: index.position(range.end),
    }
}

fn diagnostic<'a>(file: &'a CheckedFile, d: &'a Diagnostic) -> DiagnosticJson<'a> {
    let index = &file.analysis.line_index;
    DiagnosticJson {
        range: range(index, d.range),
        severity: d.severity,
        code: d.code.as_str(),
        message: &d.message,
        related: d
            .related
            .iter()
            .map(|r| RelatedJson {
                path: &file.path,
                range: range(index, r.range),
                message: &r.message,
            })
            .collect(),
    }
}

fn binding<'a>(index: &LineIndex, b: &'a ShapeInfo) -> BindingJson<'a> {
    BindingJson {
        name: b.name.as_deref().unwrap_or_default(),
        range: range(index, b.range),
        function: b.function.as_deref(),
        shape: &b.shape,
        at_calls: b
            .at_calls
            .iter()
            .filter_map(|c| {
                let (call, via) = c.calls.split_last()?;
                Some(CallShapeJson {
                    call: range(index, *call),
                    via: via.iter().map(|r| range(index, *r)).collect(),
                    shape: &c.shape,
                })
            })
            .collect(),
    }
}

fn file_report(file: &CheckedFile) -> FileReport<'_> {
    let analysis = &file.analysis;
    let index = &analysis.line_index;
    let shapes = &analysis.shapes();
    FileReport {
        path: &file.path,
        diagnostics: analysis
            .diagnostics()
            .iter()
            .map(|d| diagnostic(file, d))
            .collect(),
        bindings: shapes.bindings.iter().map(|b| binding(index, b)).collect(),
        holes: shapes.holes.iter().map(|h| hole(index, h)).collect(),
        conditions: shapes
            .conditions
            .iter()
            .map(|c| ConditionJson {
                range: range(index, c.range),
                always: c.always,
                dead_branch: c.dead_branch.map(|r| range(index, r)),
            })
            .collect(),
        migrations: shapes
            .migrations
            .iter()
            .map(|m| MigrationJson {
                range: range(index, m.range),
                function: &m.function,
                parameter: &m.parameter,
                annotation: &m.annotation,
                is_static: m.is_static(),
                example: m.example.as_deref(),
                reason: tensorfit_ide::reason_text(analysis, m),
            })
            .collect(),
        limits: shapes
            .limits
            .iter()
            .map(|hit| LimitJson {
                limit: hit.kind.as_str(),
                function: hit.function.as_deref(),
                message: hit.message(),
            })
            .collect(),
    }
}

pub fn write(out: &mut impl Write, files: &[CheckedFile]) -> io::Result<()> {
    let report = Report {
        version: 1,
        files: files.iter().map(file_report).collect(),
    };
    serde_json::to_writer_pretty(&mut *out, &report)?;
    writeln!(out)
}
