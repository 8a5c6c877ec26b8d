#!/usr/bin/env node
process.stdout.write('trust: commands arrive with their packages\n');
