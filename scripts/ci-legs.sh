#!/usr/bin/env bash
# Runs lint + the whole suite on the machine's Node, then again on a second Node: Node 24, or Node
# 20 (the floor of `engines`) when the machine's own Node is 24. Ends with one line
# `tests: N passed, N failed, N skipped` summed over both legs. Fails when either leg fails.
set -uo pipefail
cd "$(dirname "$0")/.."
LOGS="$PWD/.cache/ci"
mkdir -p "$LOGS"

leg() { # name, command...
  local name="$1" start rc; shift
  start=$SECONDS
  printf '\n=== leg %s ===\n' "$name"
  "$@" 2>&1 | tee "$LOGS/$name.log"
  rc=${PIPESTATUS[0]}
  printf '%s\t%s\t%s\n' "$name" "$rc" "$((SECONDS - start))" >>"$LOGS/legs.tsv"
}

: >"$LOGS/legs.tsv"
leg "node-$(node --version)" bash -c 'pnpm lint && pnpm test'
other=24
[ "$(node -p 'process.versions.node.split(".")[0]')" = 24 ] && other=20
leg "node-$other" bash scripts/node-leg.sh "$other"

passed=0 failed=0 skipped=0 status=0
printf '\n'
while IFS=$'\t' read -r name rc secs; do
  line="$(grep -E '^tests: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$LOGS/$name.log" | tail -n 1)"
  if [ -z "$line" ]; then
    line="no closing line (lint or build failed)"; status=1; failed=$((failed + 1))
  else
    read -r p f s <<<"$(sed -E 's/^tests: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/' <<<"$line")"
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
  fi
  [ "$rc" = 0 ] || status=1
  printf 'leg %s: exit %s in %dm%02ds, %s\n' "$name" "$rc" $((secs / 60)) $((secs % 60)) "$line"
done <"$LOGS/legs.tsv"
printf 'tests: %d passed, %d failed, %d skipped\n' "$passed" "$failed" "$skipped"
exit "$status"
