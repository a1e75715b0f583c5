#!/usr/bin/env bash
# A platform's .vsix with the tensorfit binary inside (server/), so that
# users need neither Rust nor Z3: from a release archive
# (scripts/package-release.sh at the repository root).
#
#   bash scripts/package-with-server.sh ARCHIVE VSCODE_TARGET
#
# VSCODE_TARGET is VS Code's name of the platform: linux-x64, linux-arm64,
# darwin-arm64, darwin-x64. Writes tensorfit-VSCODE_TARGET.vsix here.
set -euo pipefail
cd "$(dirname "$0")/.."
archive=$(realpath "$1")
target=$2
rm -rf server
mkdir server
tar -xzf "$archive" -C server --strip-components=1
rm -f server/README.md
trap 'rm -rf server' EXIT
npx tsc -p .
npx vsce package --skip-license --allow-missing-repository --target "$target" --out "tensorfit-$target.vsix" >&2
echo "$PWD/tensorfit-$target.vsix"
