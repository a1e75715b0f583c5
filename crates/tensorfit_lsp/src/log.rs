//! Lines for the server's log (`window/logMessage`): what an editor shows
//! in its output panel, for people wondering why a part says nothing.

use tensorfit_semantics::LimitHit;

/// A bound reached while checking version `version` of `uri`.
pub fn limit_reached(uri: &str, version: i32, limit: &LimitHit) -> String {
    let place = match &limit.function {
        Some(function) => format!("in `{function}`"),
        None => "in the script".to_owned(),
    };
    format!(
        "limit {} reached {place} of {uri} (version {version}): {}",
        limit.kind,
        limit.message()
    )
}
