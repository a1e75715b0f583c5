#!/usr/bin/env bash
# Installs what a fresh machine lacks to build tensorfit; with --tests, also
# what the test suite needs. Safe to run again: it only installs what is
# missing. Packages come from apt, as root or through sudo.
set -euo pipefail
cd "$(dirname "$0")/.."

# apt-get as root: directly, or through sudo for a user who may use it.
apt_install() {
  local run=()
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null; then
      echo "setup: installing $* needs root; run: apt-get install -y $*" >&2
      exit 1
    fi
    run=(sudo)
  fi
  echo "setup: installing $*"
  ${run[@]+"${run[@]}"} apt-get update -qq && ${run[@]+"${run[@]}"} apt-get install -y -qq "$@"
}

need_apt=()
command -v cc >/dev/null || need_apt+=(gcc)
# The solver links Debian's Z3 (4.8.12); the z3 crate never downloads one.
[ -f /usr/include/z3.h ] || need_apt+=(libz3-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  apt_install "${need_apt[@]}"
fi

[ "${1:-}" = "--tests" ] || exit 0

# The end-to-end test drives the language server from headless Neovim
# (Debian's 0.7 is a real LSP client).
command -v nvim >/dev/null || apt_install neovim

# The Python test programs' expectations are proved with real PyTorch
# (Debian's 1.13), the oracle PYTHON.md names.
/usr/bin/python3 -c 'import torch' 2>/dev/null || apt_install python3-torch

# Real code nobody here wrote: torchvision's models, read where Debian
# installs them (tests/real/).
/usr/bin/python3 -c 'import torchvision' 2>/dev/null || apt_install python3-torchvision

# The VS Code extension's tests and the SARIF validation run on Node.
command -v npm >/dev/null || apt_install nodejs npm

# The release archive's test sets the packaged binary's run path; the
# platform .vsix is checked with unzip.
command -v patchelf >/dev/null || apt_install patchelf
command -v unzip >/dev/null || apt_install unzip

# The extension in a real VS Code (editors/vscode/browser-test): Chromium,
# and what code-server's install needs offline (its install.sh says why).
need_apt=()
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
command -v rg >/dev/null || need_apt+=(ripgrep)
command -v g++ >/dev/null || need_apt+=(g++)
command -v curl >/dev/null || need_apt+=(curl)
command -v pkg-config >/dev/null || need_apt+=(pkg-config)
[ -f /usr/include/gssapi/gssapi.h ] || need_apt+=(libkrb5-dev)
[ -f /usr/include/X11/Xlib.h ] || need_apt+=(libx11-dev)
[ -f /usr/include/X11/extensions/XKBfile.h ] || need_apt+=(libxkbfile-dev)
pkg-config --exists libsecret-1 2>/dev/null || need_apt+=(libsecret-1-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  apt_install "${need_apt[@]}"
fi

# The tree-sitter CLI checks that the committed parser matches grammar.js
# and runs the grammar's own tests. Pinned: src/ is generated with it. It
# takes minutes to build, so outside CI (TENSORFIT_CI) it is installed only
# when grammar.js changed since src/ was generated.
if [ -z "${TENSORFIT_CI:-}" ] && bash scripts/grammar-unchanged.sh; then
  exit 0
fi
pinned=$(cat tree-sitter-tensor/TREE_SITTER_CLI_VERSION)
if ! tree-sitter --version 2>/dev/null | grep -qx "tree-sitter $pinned"; then
  echo "setup: installing tree-sitter-cli $pinned (takes a few minutes)"
  cargo install --locked --quiet "tree-sitter-cli@$pinned"
fi
