//! The companion of every Python test program: its expectations proved
//! with real PyTorch (`tests/oracle/torch_oracle.py` under Debian's
//! `python3-torch`), so the suite itself shows they are PyTorch's.
//!
//! Without PyTorch the trials are marked ignored, with the reason in their
//! name; `TENSORFIT_REQUIRE_TORCH=1` (set by `.ci/run`, which installs it)
//! makes a missing PyTorch a failure instead.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use libtest_mimic::{Failed, Trial};

/// The interpreter with PyTorch: `TENSORFIT_TORCH_PYTHON`, else Debian's.
fn python() -> PathBuf {
    std::env::var_os("TENSORFIT_TORCH_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/python3"))
}

fn torch_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        Command::new(python())
            .args(["-c", "import torch"])
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

pub fn trial(root: &Path, name: &str, file: &Path) -> Trial {
    let required = std::env::var_os("TENSORFIT_REQUIRE_TORCH").is_some_and(|v| v == "1");
    let available = torch_available();
    if !available && !required {
        return Trial::test(format!("torch/{name} (needs python3-torch)"), || Ok(()))
            .with_ignored_flag(true);
    }
    let oracle = root.join("tests/oracle/torch_oracle.py");
    let file = file.to_owned();
    Trial::test(format!("torch/{name}"), move || {
        if !available {
            return Err(Failed::from(format!(
                "PyTorch is required (TENSORFIT_REQUIRE_TORCH=1) but `{} -c 'import torch'` fails",
                python().display()
            )));
        }
        let output = Command::new(python())
            .arg(&oracle)
            .arg(&file)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", python().display()))?;
        match output.status.success() {
            true => Ok(()),
            false => Err(Failed::from(format!(
                "PyTorch disagrees with the expectations:\n{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ))),
        }
    })
}
