//! Headless Neovim (Debian's 0.7, a real LSP client) with the plugin of
//! editors/nvim: opens tests/programs/papers/tfp_model.tensor (the
//! repository's own,
//! so that a plain clone runs it), receives diagnostics, hovers a
//! binding and the hole, sees an inlay hint and applies the hole's quick
//! fix (tests/nvim/e2e.lua). `.ci/run` installs Neovim; without it this
//! test fails rather than pass unseen.

use std::path::Path;
use std::process::Command;

#[test]
fn neovim_with_the_plugin_checks_a_corpus_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let model_file = root.join("tests/programs/papers/tfp_model.tensor");
    let dir = std::env::temp_dir().join(format!("tensorfit-nvim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A copy: the quick fix changes the buffer (never written), and the
    // checkout may be read-only.
    let file = dir.join("tfp_model.tensor");
    let text =
        std::fs::read_to_string(&model_file).expect("tests/programs/papers/tfp_model.tensor");
    std::fs::write(&file, text).unwrap();
    // A PyTorch file with one shape error: the plugin attaches to Python
    // buffers too.
    let python_file = dir.join("model.py");
    std::fs::write(
        &python_file,
        "import torch\nx = torch.randn(2, 3)\ny = x @ torch.randn(4, 5)\n",
    )
    .unwrap();
    let out = dir.join("seen.txt");
    let status = Command::new("nvim")
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c"])
        .arg(format!(
            "luafile {}",
            root.join("tests/nvim/e2e.lua").display()
        ))
        .env("TENSORFIT_BIN", env!("CARGO_BIN_EXE_tensorfit"))
        .env("TENSORFIT_PLUGIN", root.join("editors/nvim"))
        .env("TENSORFIT_FILE", &file)
        .env("TENSORFIT_PYFILE", &python_file)
        .env("TENSORFIT_OUT", &out)
        .env("XDG_STATE_HOME", &dir)
        .env("XDG_CACHE_HOME", &dir)
        .env("XDG_CONFIG_HOME", &dir)
        .env("XDG_DATA_HOME", &dir)
        .status()
        .expect("nvim runs (apt-get install neovim; .ci/run does)");
    let seen = std::fs::read_to_string(&out).unwrap_or_default();
    std::fs::remove_dir_all(&dir).ok();
    assert!(status.success(), "nvim failed:\n{seen}");
    expect_test::expect![[r#"
        filetype tensor, commentstring // %s
        syntax tensor, `__` is Special
        query highlights packaged
        query locals packaged
        query tags packaged
        diagnostic 9:12 m has shape [12, 5, 8, 8] here but is asserted to be [batch, 5, 16, 16], for the call `model(input)` |   tfp_model.tensor:18: the claim fails for this call of `Model.forward`
        diagnostic 17:13 this call of `Model.forward` fails: m has shape [12, 5, 8, 8] here but is asserted to be [batch, 5, 16, 16] |   tfp_model.tensor:10: the requirement that fails, in `Model.forward`
        K: <cmd>lua vim.lsp.buf.hover()<CR>, omnifunc v:lua.vim.lsp.omnifunc, tagfunc v:lua.vim.lsp.tagfunc
        hover c: ```tensor | c: Tensor[batch, 5, input.shape[2] / 2, input.shape[3] / 2] | at the call on line 18: Tensor[12, 5, 16, 16] | ```
        K on c: c: Tensor[batch, 5, input.shape[2] / 2, input.shape[3] / 2] | at the call on line 18: Tensor[12, 5, 16, 16]
        completion at re|lu offers relu: true, reshape: true
        hover __: ```tensor | __ must be 320 | ```
        inlay hint c:     c: Tensor[batch, 5, input.shape[2] / 2, input.shape[3] / 2]
        action Fill the hole with 320
        line   dense = Linear(in_features: 320, out_features: 10)  //~ hole: 320
        python diagnostic 2:4 shape mismatch in matrix multiplication ([2, 3] @ [4, 5]): x.shape[-1] = 3 but torch.randn(4, 5).shape[-2] = 4 |   model.py:2: `x` is defined here
        python hover x: ```python | x: Tensor[2, 3] | ```
        python omnifunc: left to its own server
    "#]]
    .assert_eq(&seen);
}
