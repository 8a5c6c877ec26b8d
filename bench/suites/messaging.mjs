// Signed agent messages verified and stored per second, through the full ingress path
// (shape, recipient, freshness, replay, Ed25519 envelope + payload signatures, lists, storage in
// adf_inbox), against the same messages stored without any checks in the same run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeMessage, createAdf, createAgentMessaging, createIdentity, defaultAgentConfig } from '@trust/agent-runtime';

export default async function run({ log }) {
  const dir = mkdtempSync(join(tmpdir(), 'trust-bench-msg-'));
  try {
    const base = defaultAgentConfig();
    const template = { ...base, messaging: { ...base.messaging, receive: true } };
    const ours = createAdf(join(dir, 'ours.adf'), { template });
    const raw = createAdf(join(dir, 'raw.adf'), { template });
    const rx = createIdentity();
    const messaging = createAgentMessaging({ adf: ours, identity: rx });
    const sender = createIdentity();
    const n = 2000;
    const wire = Array.from({ length: n }, (_, i) => JSON.stringify(composeMessage(sender, { to: rx.did, payload: { content: `message ${i}`, content_type: 'text/plain' } })));
    log(`composed ${n} signed messages`);

    let t0 = process.hrtime.bigint();
    for (const m of wire) {
      const r = await messaging.ingest(m, { transport: 'http' });
      if (!r.accepted) throw new Error(`ingress refused a valid message: ${r.decision.code}`);
    }
    const oursSec = Number(process.hrtime.bigint() - t0) / 1e9;

    t0 = process.hrtime.bigint();
    for (const m of wire) {
      const msg = JSON.parse(m);
      raw.inbox.insert({ messageId: msg.id, from: msg.from, to: msg.to, content: msg.payload.content, contentType: msg.payload.content_type, originalMessage: m });
    }
    const rawSec = Number(process.hrtime.bigint() - t0) / 1e9;
    ours.close();
    raw.close();
    return [
      { measure: 'signed messages verified + stored', unit: 'msg/s', ours: n / oursSec, baseline: n / rawSec, baselineName: 'stored unchecked', better: 'higher' },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
