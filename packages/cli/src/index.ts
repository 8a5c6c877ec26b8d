#!/usr/bin/env node
// The `trust` command. This file is the binary: it loads only the command table and the small
// framework; every command (and the packages behind it) is imported when it runs.
import { main } from './main.js';
import { createProcessIo } from './io.js';

process.exitCode = await main(process.argv.slice(2), createProcessIo());
