#!/usr/bin/env bash
# The whole test suite: formatting, lints, the Rust tests (unit, grammar, corpus
# expectations, robustness, CLI) with the tree-sitter checks required.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --tests
export PATH="$HOME/.cargo/bin:$PATH"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -q -- -D warnings
TENSORFIT_REQUIRE_TREE_SITTER=1 cargo test --workspace --locked
