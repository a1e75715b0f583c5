#!/usr/bin/env bash
# Packages a built tensorfit binary as a release archive that runs without
# installing Z3: the binary, the libz3 it was linked with under lib/, and
# a run path that finds it there ($ORIGIN/lib on Linux, @executable_path/lib
# on macOS). Then runs the packaged binary on the quick-start example.
#
#   bash scripts/package-release.sh [BINARY] [OUT_DIR]
#
# BINARY defaults to target/release/tensorfit, OUT_DIR to dist/. Prints the
# archive's path. Needs patchelf on Linux; install_name_tool (Xcode's
# command-line tools) on macOS. The release workflow
# (.github/workflows/release.yml) runs it on each platform.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-target/release/tensorfit}
out=${2:-dist}
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) target=x86_64-unknown-linux-gnu ;;
  Linux-aarch64) target=aarch64-unknown-linux-gnu ;;
  Darwin-arm64) target=aarch64-apple-darwin ;;
  Darwin-x86_64) target=x86_64-apple-darwin ;;
  *) echo "package-release: no release target for $(uname -s)-$(uname -m)" >&2; exit 2 ;;
esac
name="tensorfit-$version-$target"
stage="$out/$name"
rm -rf "$stage"
mkdir -p "$stage/lib"
cp "$binary" "$stage/tensorfit"
chmod u+w "$stage/tensorfit"
cp README.md "$stage/"

case "$target" in
  *linux*)
    z3=$(ldd "$binary" | awk '/libz3/ { print $3 }')
    [ -n "$z3" ] || { echo "package-release: $binary is not linked with libz3" >&2; exit 1; }
    cp -L "$z3" "$stage/lib/"
    patchelf --set-rpath '$ORIGIN/lib' "$stage/tensorfit"
    # The packaged copy is the one found, not the system's.
    ldd "$stage/tensorfit" | grep libz3 | grep -q "/$name/lib/" || {
      echo "package-release: the packaged binary does not load lib/$(basename "$z3")" >&2
      exit 1
    }
    ;;
  *apple*)
    z3=$(otool -L "$binary" | awk '/libz3/ { print $1 }')
    [ -n "$z3" ] || { echo "package-release: $binary is not linked with libz3" >&2; exit 1; }
    cp -L "$z3" "$stage/lib/"
    install_name_tool -change "$z3" "@rpath/$(basename "$z3")" "$stage/tensorfit"
    install_name_tool -add_rpath @executable_path/lib "$stage/tensorfit"
    install_name_tool -id "@rpath/$(basename "$z3")" "$stage/lib/$(basename "$z3")"
    codesign --force --sign - "$stage/lib/$(basename "$z3")" "$stage/tensorfit" 2>/dev/null || true
    ;;
esac

# The packaged binary finds its own libz3 and checks the example (exit 1:
# the example has errors on purpose).
status=0
"$stage/tensorfit" check examples/quickstart.tensor > "$out/$name.check.txt" || status=$?
[ "$status" -eq 1 ] || { echo "package-release: the packaged binary exited with $status" >&2; exit 1; }
grep -q "hole at examples/quickstart.tensor" "$out/$name.check.txt"
rm "$out/$name.check.txt"

tar -C "$out" -czf "$out/$name.tar.gz" "$name"
echo "$out/$name.tar.gz"
