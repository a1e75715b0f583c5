//! The parts of the JSON report that expectations talk about.

use serde_json::Value;

pub struct Report {
    pub diagnostics: Vec<Diagnostic>,
    pub bindings: Vec<Binding>,
    pub holes: Vec<Hole>,
    pub conditions: Vec<Condition>,
    pub migrations: Vec<Migration>,
}

pub struct Diagnostic {
    pub line: u32,
    pub severity: String,
    pub code: String,
    pub message: String,
}

pub struct Binding {
    pub line: u32,
    pub name: String,
    pub shape: String,
}

pub struct Hole {
    pub line: u32,
    pub character: u32,
    pub value: Option<i64>,
    pub min: Option<i64>,
    pub max: Option<i64>,
}

pub struct Condition {
    pub line: u32,
    pub always: bool,
}

pub struct Migration {
    pub line: u32,
    pub parameter: String,
    pub annotation: String,
    pub is_static: bool,
}

fn start(value: &Value) -> (u32, u32) {
    let start = &value["range"]["start"];
    (
        start["line"].as_u64().unwrap_or(u64::MAX) as u32,
        start["character"].as_u64().unwrap_or(0) as u32,
    )
}

fn text(value: &Value, key: &str) -> String {
    value[key].as_str().unwrap_or_default().to_owned()
}

impl Report {
    pub fn from_json(bytes: &[u8]) -> Result<Report, String> {
        let json: Value =
            serde_json::from_slice(bytes).map_err(|e| format!("the report is not JSON: {e}"))?;
        if json["version"] != 1 {
            return Err(format!("unexpected report version {}", json["version"]));
        }
        let files = json["files"]
            .as_array()
            .ok_or("the report has no `files` array")?;
        let [file] = files.as_slice() else {
            return Err(format!(
                "expected one file in the report, found {}",
                files.len()
            ));
        };
        let list = |key: &str| -> Result<&Vec<Value>, String> {
            file[key]
                .as_array()
                .ok_or_else(|| format!("the report has no `{key}` array"))
        };
        Ok(Report {
            diagnostics: list("diagnostics")?
                .iter()
                .map(|d| Diagnostic {
                    line: start(d).0,
                    severity: text(d, "severity"),
                    code: text(d, "code"),
                    message: text(d, "message"),
                })
                .collect(),
            bindings: list("bindings")?
                .iter()
                .map(|b| Binding {
                    line: start(b).0,
                    name: text(b, "name"),
                    shape: text(b, "shape"),
                })
                .collect(),
            holes: list("holes")?
                .iter()
                .map(|h| {
                    let (line, character) = start(h);
                    Hole {
                        line,
                        character,
                        value: h["value"].as_i64(),
                        min: h["min"].as_i64(),
                        max: h["max"].as_i64(),
                    }
                })
                .collect(),
            conditions: list("conditions")?
                .iter()
                .map(|c| Condition {
                    line: start(c).0,
                    always: c["always"].as_bool().unwrap_or(false),
                })
                .collect(),
            migrations: list("migrations")?
                .iter()
                .map(|m| Migration {
                    line: start(m).0,
                    parameter: text(m, "parameter"),
                    annotation: text(m, "annotation"),
                    is_static: m["static"].as_bool().unwrap_or(true),
                })
                .collect(),
        })
    }
}
