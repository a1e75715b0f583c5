#!/usr/bin/env bash
# Installs code-server and playwright-core for run.sh, offline from GitHub:
# only the npm registry and Debian's packages are reachable here, and three
# steps of code-server's install reach further. Each is worked around:
#
# - @vscode/ripgrep downloads rg from GitHub releases (api.github.com): its
#   download cache in the temp dir is seeded with Debian's rg, which it
#   then takes as downloaded;
# - native modules (kerberos, node-pty, ...) find no prebuilt binary on
#   GitHub and are compiled: they need Debian's libkrb5-dev, libx11-dev,
#   libxkbfile-dev, libsecret-1-dev (scripts/setup.sh --tests);
# - node-pty runs `npx node-gyp`, which asks before installing it from the
#   registry: npm_config_yes answers;
# - node-gyp downloads Node's headers from nodejs.org unless told where
#   they are: those beside the node that runs (its prefix's include/node).
#
# npm 11 may skip code-server's postinstall (it installs VS Code's own
# dependencies): it is run here in any case, as npm would.
set -euo pipefail
cd "$(dirname "$0")"
rg=$(command -v rg) || { echo "browser-test: ripgrep is missing (apt-get install ripgrep)" >&2; exit 1; }
# A temporary directory of this install's own (another user's seed in the
# shared one would not be writable): @vscode/ripgrep looks in os.tmpdir().
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR="$tmp"
seed="$tmp/seed"
mkdir "$seed"
cp "$rg" "$seed/rg"
for version in 1.15.9 1.15.10 1.15.11 1.15.12 1.15.13 1.15.14; do
  mkdir -p "$tmp/vscode-ripgrep-cache-$version"
  for target in x86_64-unknown-linux-musl aarch64-unknown-linux-musl; do
    tar -czf "$tmp/vscode-ripgrep-cache-$version/ripgrep-v13.0.0-10-$target.tar.gz" -C "$seed" rg
  done
done
export npm_config_yes=true npm_config_unsafe_perm=true
node_prefix=$(dirname "$(dirname "$(command -v node)")")
if [ -f "$node_prefix/include/node/node.h" ]; then
  export npm_config_nodedir="$node_prefix"
fi
npm ci --no-audit --no-fund --loglevel=error
(cd node_modules/code-server \
  && npm_config_user_agent="npm/$(npm --version) node/$(node --version) linux x64" sh ./postinstall.sh > /dev/null)
node_modules/.bin/code-server --version > /dev/null
