// Records audit events into argv[2] as fast as it can, printing each acknowledged hash on its
// own line (stdout to a pipe is synchronous on Linux, so a printed hash was acknowledged).
// The test SIGKILLs it in the middle.
import { createJsonlAuditSink } from '@trust/core/node';

const sink = createJsonlAuditSink(process.argv[2]);
const pad = 'k'.repeat(Number(process.argv[3] ?? 65536));
process.stdout.write('ready\n');
for (let i = 0; ; i++) {
  const e = sink.record({
    principal: { kind: 'process', id: 'fault' },
    action: 'sandbox.spawn',
    target: `/bin/t-${i}`,
    decision: 'allow',
    details: { pad },
  });
  process.stdout.write(`${e.hash}\n`);
}
