// Runs inside `unshare --user --map-root-user --mount`: mounts a 32 KiB tmpfs on argv[2] (visible
// only in this mount namespace), fills it with audit events until the sink refuses one, frees
// space and records again. Prints one JSON report on stdout; the test judges it.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifyChain } from '@trust/core';
import { createJsonlAuditSink, readJsonlAudit } from '@trust/core/node';

const dir = process.argv[2];
execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=32k,mode=0700', 'tmpfs', dir]);
const file = join(dir, 'audit.jsonl');
const filler = join(dir, 'filler');
writeFileSync(filler, Buffer.alloc(8192));
const event = (n) => ({
  principal: { kind: 'process', id: 'fault' },
  action: 'egress.http',
  target: `https://api.example.com/${n}`,
  decision: 'allow',
  details: { pad: 'x'.repeat(600 + ((n * 37) % 200)) },
});
const failureOf = (e) => ({ code: e?.code ?? null, name: e?.name ?? null, message: String(e?.message ?? e) });
const state = () => {
  const text = readFileSync(file, 'utf8');
  let verdict;
  try {
    verdict = verifyChain(readJsonlAudit(file));
  } catch (e) {
    verdict = { ok: false, error: failureOf(e) };
  }
  return { endsWithNewline: text === '' || text.endsWith('\n'), bytes: Buffer.byteLength(text), verdict };
};

const acked = [];
const sink = createJsonlAuditSink(file);
let full;
for (let i = 0; i < 200 && full === undefined; i++) {
  try {
    acked.push(sink.record(event(i)).hash);
  } catch (e) {
    full = failureOf(e);
  }
}
const whenFull = { ...state(), head: sink.head() };
let again;
try {
  acked.push(sink.record(event(1000)).hash);
} catch (e) {
  again = failureOf(e);
}
const stillFull = state();
rmSync(filler);
let afterFree;
try {
  acked.push(sink.record(event(2000)).hash);
} catch (e) {
  afterFree = failureOf(e);
}
sink.close();
let reopened;
try {
  const next = createJsonlAuditSink(file);
  acked.push(next.record(event(3000)).hash);
  next.close();
} catch (e) {
  reopened = failureOf(e);
}
let finalHashes = [];
try {
  finalHashes = readJsonlAudit(file).map((e) => e.hash);
} catch {
  // judged through final.verdict
}
process.stdout.write(
  `${JSON.stringify({ acked, full, whenFull, again, stillFull, afterFree, reopened, final: state(), finalHashes })}\n`,
);
