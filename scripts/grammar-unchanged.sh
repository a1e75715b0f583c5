#!/usr/bin/env bash
# Exits 0 when tree-sitter-tensor/grammar.js is the one its committed src/
# was generated from (its SHA-256 is recorded in GRAMMAR_JS_SHA256, which
# CI checks against a fresh `tree-sitter generate`), 1 when it changed.
# The tree-sitter CLI takes minutes to build: a clone whose grammar did
# not change needs it only in CI.
set -euo pipefail
cd "$(dirname "$0")/../tree-sitter-tensor"
if command -v sha256sum >/dev/null; then
  actual=$(sha256sum grammar.js | cut -d' ' -f1)
else
  actual=$(shasum -a 256 grammar.js | cut -d' ' -f1)
fi
[ "$actual" = "$(cat GRAMMAR_JS_SHA256)" ]
