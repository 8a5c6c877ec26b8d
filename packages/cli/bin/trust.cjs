#!/usr/bin/env node
'use strict';
// The `trust` binary. Node starts a CommonJS file about 12 ms sooner than an ES module, so the
// root help (`trust`, `trust --help`, `trust -h`) is printed from text the build wrote
// (dist/root-help.json, made by the same formatter the CLI uses); everything else loads the ES
// module CLI (dist/index.js), which reads process.argv itself.
const args = process.argv.slice(2);
if (args.length === 0 || (args.length === 1 && (args[0] === '--help' || args[0] === '-h'))) {
  const help = require('../dist/root-help.json');
  // The same colour rule as the CLI's shouldColor: NO_COLOR wins, FORCE_COLOR forces, else a TTY that is not dumb.
  const env = process.env;
  const color =
    !env.NO_COLOR &&
    ((env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') ||
      (process.stdout.isTTY === true && env.TERM !== 'dumb'));
  process.stdout.write(color ? help.color : help.plain);
} else {
  import('../dist/index.js');
}
