// Control API latency under 50 concurrent loopback clients, for the list route (GET) and the chat
// route (POST, JSON body), against a bare node:http server that answers the same JSON with no
// checks. Each measure is a fixed number of requests (bounded; stops by itself). Both servers
// listen on 127.0.0.1 only.
import { createServer, request, Agent } from 'node:http';
import { createControlServer } from '@trust/workspace';
import { percentile } from '../lib/table.mjs';

const CLIENTS = 50;
const REQUESTS = 3000;

function registry() {
  const turns = [];
  const summary = { id: 'bench', name: 'bench', state: 'idle', pendingApprovals: 0 };
  const agent = {
    id: 'bench',
    summary: () => summary,
    send: (text) => {
      const t = { seq: turns.length, role: 'assistant', content: `echo: ${text}`, time: new Date(0).toISOString() };
      if (turns.length < 100) turns.push(t);
      return [t];
    },
  };
  return { list: () => [summary], open: () => agent };
}

function bareServer() {
  const summary = { id: 'bench', name: 'bench', state: 'idle', pendingApprovals: 0 };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body =
        req.method === 'GET'
          ? { agents: [summary] }
          : {
              turns: [
                {
                  seq: 0,
                  role: 'assistant',
                  content: `echo: ${JSON.parse(Buffer.concat(chunks).toString()).text}`,
                  time: new Date(0).toISOString(),
                },
              ],
            };
      const text = JSON.stringify(body);
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
      });
      res.end(text);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Runs REQUESTS requests from CLIENTS concurrent keep-alive clients; returns sorted latencies (ns). */
async function load(port, headers, method, path, body) {
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  const lat = [];
  let next = 0;
  const one = () =>
    new Promise((resolve, reject) => {
      const t0 = process.hrtime.bigint();
      const req = request(
        { host: '127.0.0.1', port, method, path, agent, headers: { host: `127.0.0.1:${port}`, ...headers } },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode} on ${method} ${path}`));
            else resolve(Number(process.hrtime.bigint() - t0));
          });
        },
      );
      req.on('error', reject);
      if (body) req.end(body);
      else req.end();
    });
  const worker = async () => {
    while (next < REQUESTS) {
      next += 1;
      lat.push(await one());
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, worker));
  agent.destroy();
  return lat.sort((a, b) => a - b);
}

export default async function run({ log }) {
  const control = await createControlServer({ agents: registry() });
  const bare = await bareServer();
  const barePort = bare.address().port;
  const auth = { authorization: `Bearer ${control.token}` };
  const json = { 'content-type': 'application/json' };
  const chat = JSON.stringify({ text: 'hello' });
  const rows = [];
  try {
    // Warm both up once so the first measure does not pay for JIT and socket setup alone.
    await load(control.port, auth, 'GET', '/api/v1/agents');
    await load(barePort, {}, 'GET', '/api/v1/agents');
    for (const [name, method, path, body] of [
      ['list', 'GET', '/api/v1/agents'],
      ['chat', 'POST', '/api/v1/agents/bench/chat', chat],
    ]) {
      const ours = await load(control.port, body ? { ...auth, ...json } : auth, method, path, body);
      const base = await load(barePort, body ? json : {}, method, path, body);
      log(`${name}: ${REQUESTS} requests x2 done`);
      for (const p of [50, 99]) {
        rows.push({
          measure: `${name} route p${p}, ${CLIENTS} clients`,
          unit: 'ms',
          ours: percentile(ours, p) / 1e6,
          baseline: percentile(base, p) / 1e6,
          baselineName: 'bare node:http',
          better: 'lower',
          // p99 on a shared loopback machine is mostly scheduler noise: reported, not targeted.
          ...(p === 50 ? { target: { ratio: 3 } } : {}),
        });
      }
    }
  } finally {
    await control.close();
    await new Promise((r) => bare.close(r));
  }
  return rows;
}
