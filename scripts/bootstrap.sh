#!/usr/bin/env bash
# Sets up a fresh Debian machine with Node 20.19+ (22, 24) for trust. Idempotent: run it as often as you like.
#   bash scripts/bootstrap.sh            Node check, pnpm, dependencies
#   bash scripts/bootstrap.sh --system   also the Debian packages the tests need (bubblewrap, chromium, ...)
set -euo pipefail
cd "$(dirname "$0")/.."

PNPM_VERSION=12.4.2
SYSTEM_PACKAGES=(bubblewrap chromium iproute2 socat gcc g++ make libc6-dev curl perl python3 ripgrep)
# Real clients of the egress proxy tests (wget, git with git-http-backend, openssl for a TLS peer).
SYSTEM_PACKAGES+=(wget git openssl)

fail() { printf 'bootstrap: %s\n' "$*" >&2; exit 1; }
say() { printf 'bootstrap: %s\n' "$*"; }

command -v node >/dev/null || fail "Node.js is not installed. Install Node 20.19 or newer (e.g. 'apt-get install nodejs') and run again."
node -e 'const [a,b]=process.versions.node.split(".").map(Number);
  if (a<20||(a===20&&b<19)) { console.error("bootstrap: Node >= 20.19 is needed, found "+process.version+". Install a newer Node and run again."); process.exit(1); }'

if [ "$(pnpm --version 2>/dev/null || true)" != "$PNPM_VERSION" ]; then
  say "installing pnpm $PNPM_VERSION"
  npm install -g --no-fund --no-audit --allow-scripts=pnpm "pnpm@$PNPM_VERSION" >/dev/null \
    || fail "could not install pnpm $PNPM_VERSION with npm. Check that npm can reach its registry."
fi

if [ "${1:-}" = "--system" ]; then
  missing=()
  for p in "${SYSTEM_PACKAGES[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ "${#missing[@]}" -gt 0 ]; then
    command -v apt-get >/dev/null || fail "apt-get not found: install ${missing[*]} with your package manager."
    [ "$(id -u)" = 0 ] || fail "installing ${missing[*]} needs root: run 'sudo bash scripts/bootstrap.sh --system'."
    say "installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
      || fail "apt-get could not install ${missing[*]}."
  fi
fi

# pnpm 12 does not pass npm's nodedir to node-gyp; better-sqlite3 needs Node's headers to compile.
if [ -z "${npm_config_nodedir:-}" ]; then
  nodedir="$(dirname "$(dirname "$(command -v node)")")"
  [ -f "$nodedir/include/node/node.h" ] && export npm_config_nodedir="$nodedir"
fi
export TURBO_TELEMETRY_DISABLED=1
say "installing dependencies (pnpm install --frozen-lockfile)"
pnpm install --frozen-lockfile
