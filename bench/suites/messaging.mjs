// Signed agent messages verified and stored per second, through the full ingress path
// (shape, recipient, freshness, replay, Ed25519 envelope + payload signatures, lists, storage in
// adf_inbox), against the same messages stored without any checks in the same run.
// Then the same over the network, between a sender and a control server on 127.0.0.1: the mesh
// WebSocket (one authenticated socket, and a new socket with its handshake per message) against
// mesh HTTP POSTs, all through the guarded egress client. Fixed message counts: it stops by itself.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as runtime from '@trust/agent-runtime';
import { allowHosts } from '@trust/core';
import { createEgressClient } from '@trust/egress';

const {
  composeMessage,
  createAdf,
  createAgentMessaging,
  createControlServer,
  createIdentity,
  createLocalMesh,
  createWorkspaceAgents,
  defaultAgentConfig,
  deliverMessage,
  generateControlToken,
} = runtime;

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
    const wire = Array.from({ length: n }, (_, i) =>
      JSON.stringify(
        composeMessage(sender, { to: rx.did, payload: { content: `message ${i}`, content_type: 'text/plain' } }),
      ),
    );
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
      raw.inbox.insert({
        messageId: msg.id,
        from: msg.from,
        to: msg.to,
        content: msg.payload.content,
        contentType: msg.payload.content_type,
        originalMessage: m,
      });
    }
    const rawSec = Number(process.hrtime.bigint() - t0) / 1e9;
    ours.close();
    raw.close();
    return [
      {
        measure: 'signed messages verified + stored',
        unit: 'msg/s',
        ours: n / oursSec,
        baseline: n / rawSec,
        baselineName: 'stored unchecked',
        better: 'higher',
      },
      ...(await overTheNetwork(dir, template, log)),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function overTheNetwork(dir, template, log) {
  const adf = createAdf(join(dir, 'net.adf'), { template });
  const rx = createIdentity();
  const mesh = createLocalMesh();
  const messaging = createAgentMessaging({ adf, identity: rx });
  mesh.register(rx.did, messaging.ingest);
  // Rates far above the default caps, so the bench measures the path, not the limiter.
  const server = await createControlServer({
    agents: createWorkspaceAgents({ dir }),
    token: generateControlToken(),
    mesh,
    meshWebSocket: { limits: { framesPerSecond: 1e6, bytesPerSecond: 1e10 } },
  });
  const egress = createEgressClient({ policy: allowHosts(['127.0.0.1']) });
  const sender = createIdentity();
  const principal = { kind: 'llm', id: 'bench' };
  const compose = (i) =>
    composeMessage(sender, { to: rx.did, payload: { content: `net ${i}`, content_type: 'text/plain' } });
  const wsUrl = server.url.replace('http:', 'ws:');
  const rows = [];
  try {
    const timed = async (count, fn) => {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < count; i++) {
        const r = await fn(compose(i));
        if (r.status !== 'delivered') throw new Error(`delivery failed: ${r.code}`);
      }
      return count / (Number(process.hrtime.bigint() - t0) / 1e9);
    };
    const perMessage = 300;
    const http = await timed(perMessage, (m) => deliverMessage(m, server.url, { egress, principal }));
    const wsEach = await timed(perMessage, (m) => deliverMessage(m, wsUrl, { egress, principal, signer: sender }));
    rows.push({
      measure: 'delivered over a new mesh WebSocket each (handshake included)',
      unit: 'msg/s',
      ours: wsEach,
      baseline: http,
      baselineName: 'mesh HTTP POST',
      better: 'higher',
    });
    log(`HTTP ${http.toFixed(0)} msg/s, WebSocket per message ${wsEach.toFixed(0)} msg/s`);

    if (typeof runtime.openMeshWsSession === 'function') {
      const n = 2000;
      const window = 16;
      const session = await runtime.openMeshWsSession(wsUrl, { egress, principal, signer: sender, serverDid: rx.did });
      const messages = Array.from({ length: n }, (_, i) => compose(i));
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i += window) {
        const acks = await Promise.all(messages.slice(i, i + window).map((m) => session.send(m)));
        if (acks.some((a) => !a.accepted)) throw new Error('the WebSocket session refused a valid message');
      }
      const ws = n / (Number(process.hrtime.bigint() - t0) / 1e9);
      session.close();
      rows.push({
        measure: 'verified + stored over one mesh WebSocket (16 in flight)',
        unit: 'msg/s',
        ours: ws,
        baseline: http,
        baselineName: 'mesh HTTP POST',
        better: 'higher',
      });
    } else {
      log('openMeshWsSession is not exported by this build: the one-socket measure is skipped');
    }
  } finally {
    await egress.close();
    await server.close();
    adf.close();
  }
  return rows;
}
