#!/usr/bin/env node
// Compiles the launcher (native/*.c) into the per-user cache ($TRUST_CACHE_DIR/launcher, else
// $XDG_CACHE_HOME/trust/launcher, else ~/.cache/trust/launcher) ahead of first use. Optional: the
// sandbox compiles it lazily too. Fails (exit 1) when no C compiler is present.
import { ensureLauncher } from '../dist/index.js';
const l = await ensureLauncher();
process.stdout.write(`launcher ${l.path} sha256 ${l.sha256}\n`);
