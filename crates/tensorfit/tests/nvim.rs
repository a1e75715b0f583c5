//! Headless Neovim (Debian's 0.7, a real LSP client) drives `tensorfit lsp`:
//! opens a file, receives diagnostics, hovers a hole and applies its quick
//! fix (tests/nvim/e2e.lua). `.ci/run` installs Neovim; without it this
//! test fails rather than pass unseen.

use std::path::Path;
use std::process::Command;

const PROGRAM: &str = "\
fn wrong(y: Tensor[3, 5]) -> Tensor[3, 5] {
    return y @ ones(4, 5)
}

let batch = randn(16, 8)
let fitted = batch.reshape(__, 4)
";

#[test]
fn neovim_gets_diagnostics_hover_and_the_hole_fix() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = std::env::temp_dir().join(format!("tensorfit-nvim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("model.tensor");
    std::fs::write(&file, PROGRAM).unwrap();
    let out = dir.join("seen.txt");
    let status = Command::new("nvim")
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-c"])
        .arg(format!(
            "luafile {}",
            root.join("tests/nvim/e2e.lua").display()
        ))
        .env("TENSORFIT_BIN", env!("CARGO_BIN_EXE_tensorfit"))
        .env("TENSORFIT_FILE", &file)
        .env("TENSORFIT_OUT", &out)
        .env("XDG_STATE_HOME", &dir)
        .env("XDG_CACHE_HOME", &dir)
        .status()
        .expect("nvim runs (apt-get install neovim; .ci/run does)");
    let seen = std::fs::read_to_string(&out).unwrap_or_default();
    std::fs::remove_dir_all(&dir).ok();
    assert!(status.success(), "nvim failed:\n{seen}");
    expect_test::expect![[r#"
        diagnostic 1:11 shape mismatch in matrix multiplication: y.shape[-1] = 5 but ones(4, 5).shape[-2] = 4
        hover ```tensor | __ must be 32 | ```
        action Fill the hole with 32
        line let fitted = batch.reshape(32, 4)
    "#]]
    .assert_eq(&seen);
}
