#!/usr/bin/env bash
# Installs what a fresh machine lacks to build tensorfit; with --tests, also
# what the test suite needs. Safe to run again: it only installs what is
# missing.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v cc >/dev/null || need_apt+=(gcc)
# The solver links Debian's Z3 (4.8.12); the z3 crate never downloads one.
[ -f /usr/include/z3.h ] || need_apt+=(libz3-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]}"
  apt-get update -qq && apt-get install -y -qq "${need_apt[@]}"
fi

[ "${1:-}" = "--tests" ] || exit 0

# The end-to-end test drives the language server from headless Neovim
# (Debian's 0.7 is a real LSP client).
if ! command -v nvim >/dev/null; then
  echo "setup: installing neovim"
  apt-get update -qq && apt-get install -y -qq neovim
fi

# The Python test programs' expectations are proved with real PyTorch
# (Debian's 1.13), the oracle PYTHON.md names.
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "setup: installing python3-torch"
  apt-get update -qq && apt-get install -y -qq python3-torch
fi

# Real code nobody here wrote: torchvision's models, read where Debian
# installs them (tests/real/).
if ! /usr/bin/python3 -c 'import torchvision' 2>/dev/null; then
  echo "setup: installing python3-torchvision"
  apt-get update -qq && apt-get install -y -qq python3-torchvision
fi

# The VS Code extension's tests and the SARIF validation run on Node.
if ! command -v npm >/dev/null; then
  echo "setup: installing nodejs and npm"
  apt-get update -qq && apt-get install -y -qq nodejs npm
fi

# The tree-sitter CLI checks that the committed parser matches grammar.js
# and runs the grammar's own tests. Pinned: src/ is generated with it.
pinned=$(cat tree-sitter-tensor/TREE_SITTER_CLI_VERSION)
if ! tree-sitter --version 2>/dev/null | grep -qx "tree-sitter $pinned"; then
  echo "setup: installing tree-sitter-cli $pinned (takes a few minutes)"
  cargo install --locked --quiet "tree-sitter-cli@$pinned"
fi
