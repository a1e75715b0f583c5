#!/usr/bin/env bash
# The whole test suite: formatting, lints, the Rust tests (unit, grammar, corpus
# expectations, Python programs proved with PyTorch, robustness, CLI, headless
# Neovim) with the PyTorch checks required, and the tree-sitter CLI's in CI
# (TENSORFIT_CI=1, set by .ci/run) or when grammar.js changed; torchvision's
# models checked against PyTorch, and a report on timm's; then the VS Code extension's tests and
# package, and the SARIF schema validation of the CLI's output (Node).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --tests
export PATH="$HOME/.cargo/bin:$PATH"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -q -- -D warnings
# The tree-sitter CLI's checks are required in CI, and wherever grammar.js
# changed since its parser was generated (setup.sh installed the CLI then).
if [ -n "${TENSORFIT_CI:-}" ] || ! bash scripts/grammar-unchanged.sh; then
  export TENSORFIT_REQUIRE_TREE_SITTER=1
fi
TENSORFIT_REQUIRE_TORCH=1 cargo test --workspace --locked

# torchvision's classification models against PyTorch (tests/real/), with
# the binary the tests just built.
/usr/bin/python3 tests/real/torchvision_suite.py --tensorfit target/debug/tensorfit
# timm's model files (`pip download timm`): a report of how many check
# clean, never a failure (nothing when PyPI cannot be reached).
/usr/bin/python3 tests/real/timm_report.py --tensorfit target/debug/tensorfit

# The release archive (scripts/package-release.sh), from the binary the
# tests built: it must load its own libz3 and check the example.
archive=$(bash scripts/package-release.sh target/debug/tensorfit target/package-check)

# Node parts: offline once `npm ci` has fetched the locked packages. The
# extension is packaged twice: plain, and with the archive's binary inside
# (a platform's .vsix, as the release workflow makes them), which then runs
# in a real VS Code (code-server in Chromium: diagnostics, hover, the
# hole's quick fix, a PyTorch file; screenshots in
# target/vscode-browser-test).
npm_ci() { npm ci --no-audit --no-fund --loglevel=error; }
(cd editors/vscode && npm_ci && npm test && npm run package \
  && vsix=$(bash scripts/package-with-server.sh "../../$archive" linux-x64) \
  && listing=$(unzip -Z1 "$vsix") \
  && grep -qx 'extension/server/tensorfit' <<< "$listing" \
  && grep -q '^extension/server/lib/libz3' <<< "$listing" \
  && bash browser-test/run.sh "$vsix" ../../target/vscode-browser-test \
  && rm "$vsix")
(cd tests/sarif && npm_ci && TENSORFIT_BIN="$PWD/../../target/debug/tensorfit" npm test)
