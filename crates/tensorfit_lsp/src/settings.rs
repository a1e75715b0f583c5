//! The server's settings, from `initializationOptions` or
//! `workspace/didChangeConfiguration` (`{"tensorfit": {...}}` or the
//! object itself).

use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerSettings {
    /// Show the shape after each binding.
    pub inlay_hints: bool,
    /// The solver's time limit per query, in milliseconds.
    pub timeout_ms: u32,
    /// `pythonPaths`: the directories of installed Python packages that
    /// imports are followed into; `None` until set (the default search
    /// paths apply).
    pub python_paths: Option<Vec<std::path::PathBuf>>,
}

impl Default for ServerSettings {
    fn default() -> Self {
        ServerSettings {
            inlay_hints: true,
            timeout_ms: 2000,
            python_paths: None,
        }
    }
}

impl ServerSettings {
    /// Takes what `options` sets; ignores what it does not know.
    pub fn update(&mut self, options: &Value) {
        let options = options.get("tensorfit").unwrap_or(options);
        if let Some(on) = options
            .pointer("/inlayHints/enable")
            .and_then(Value::as_bool)
        {
            self.inlay_hints = on;
        }
        if let Some(ms) = options.get("timeoutMs").and_then(Value::as_u64) {
            self.timeout_ms = ms.clamp(10, 60_000) as u32;
        }
        if let Some(dirs) = options.get("pythonPaths").and_then(Value::as_array) {
            self.python_paths = Some(
                dirs.iter()
                    .filter_map(Value::as_str)
                    .filter(|dir| !dir.is_empty())
                    .map(std::path::PathBuf::from)
                    .collect(),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_nested_or_flat_options_and_ignores_the_rest() {
        let mut settings = ServerSettings::default();
        settings.update(&serde_json::json!({"tensorfit": {"inlayHints": {"enable": false}}}));
        assert!(!settings.inlay_hints);
        settings.update(&serde_json::json!({"timeoutMs": 5, "other": 1}));
        assert_eq!(settings.timeout_ms, 10, "clamped");
        settings.update(&serde_json::json!("nonsense"));
        assert_eq!(settings.timeout_ms, 10);
        assert_eq!(settings.python_paths, None);
        settings.update(&serde_json::json!({"pythonPaths": ["/site", 3, ""]}));
        assert_eq!(settings.python_paths, Some(vec!["/site".into()]));
    }
}
