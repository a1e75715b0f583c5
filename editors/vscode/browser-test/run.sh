#!/usr/bin/env bash
# The packaged extension in a real VS Code: code-server (VS Code in a
# browser) with the .vsix installed, driven by Debian's Chromium through
# playwright-core (test.js). Screenshots go to OUT_DIR.
#
#   bash editors/vscode/browser-test/run.sh VSIX OUT_DIR [TENSORFIT_BINARY]
#
# Without TENSORFIT_BINARY the .vsix must bundle the server (a platform's
# .vsix, scripts/package-with-server.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
vsix=$(realpath "$1")
out=$(mkdir -p "$2" && cd "$2" && pwd)
binary=${3:-}
[ -x "$here/node_modules/.bin/code-server" ] || bash "$here/install.sh"

work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/workspace" "$work/user/User" "$work/extensions"
cp "$here/workspace/"* "$work/workspace/"
settings='"workbench.startupEditor": "none", "security.workspace.trust.enabled": false, "telemetry.telemetryLevel": "off", "extensions.autoCheckUpdates": false, "extensions.autoUpdate": false'
if [ -n "$binary" ]; then
  settings="$settings, \"tensorfit.server.path\": \"$(realpath "$binary")\""
fi
echo "{ $settings }" > "$work/user/User/settings.json"

code_server=("$here/node_modules/.bin/code-server" --user-data-dir "$work/user" --extensions-dir "$work/extensions")
"${code_server[@]}" --install-extension "$vsix" > "$out/install.log" 2>&1
port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
"${code_server[@]}" --auth none --bind-addr "127.0.0.1:$port" --disable-telemetry --disable-update-check \
  --disable-workspace-trust "$work/workspace" > "$out/code-server.log" 2>&1 &
server=$!
for _ in $(seq 1 100); do
  curl -s -o /dev/null "http://127.0.0.1:$port/" && break
  sleep 0.2
done
node "$here/test.js" "http://127.0.0.1:$port/?folder=$work/workspace" "$out"
