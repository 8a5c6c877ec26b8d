// Egress suite: the guarded client against plain undici and two SSRF-filtering agents, all on
// the same loopback HTTP server running in a child process; plus the guard's per-decision cost.
// Loops are bounded; nothing leaves loopback.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { createRequire } from 'node:module';
import { Agent, fetch as undiciFetch, request as undiciRequest } from 'undici';
import { createEgressClient, createEgressGuard, createEgressHttpAgent } from '@trust/egress';
import { RequestFilteringHttpAgent } from 'request-filtering-agent';
import { percentile, sample } from '../lib/table.mjs';

const require = createRequire(import.meta.url);
const { requestFilterHandler } = require('ssrf-req-filter');

const SERVER = `
const http = require('node:http');
const body = Buffer.from('x'.repeat(256));
const s = http.createServer({ keepAliveTimeout: 60000 }, (req, res) => { req.resume(); res.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length }); res.end(body); });
s.listen(0, '127.0.0.1', () => process.stdout.write(String(s.address().port) + '\\n'));
process.stdin.on('end', () => process.exit(0)); process.stdin.resume();
`;

async function startServer() {
  const child = spawn(process.execPath, ['-e', SERVER], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      if (buf.includes('\n')) resolve(Number(buf.trim()));
    });
    child.once('exit', (c) => reject(new Error(`bench server exited (${c})`)));
  });
  return { port, stop: () => (child.stdin.end(), child.kill()) };
}

/** Runs `total` requests with `concurrency` workers; returns requests per second. */
async function throughput(one, total, concurrency) {
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        await one();
      }
    }),
  );
  return total / (Number(process.hrtime.bigint() - t0) / 1e9);
}

/** Reads a Node stream to one Buffer; every stream-returning variant is read the same way. */
function collect(stream) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    stream.on('data', (c) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

function nodeGet(agent, url) {
  return new Promise((resolve, reject) => {
    http.get(url, { agent }, (res) => collect(res).then(resolve, reject)).on('error', reject);
  });
}

export default async function run({ log }) {
  const server = await startServer();
  const url = `http://127.0.0.1:${server.port}/`;
  const principal = { kind: 'plugin', id: 'bench' };
  const CONC = 8;
  // Many short interleaved rounds, median per variant: the machine is shared, so load drifts.
  const TOTAL = 400;
  const ROUNDS = 9;

  const plainAgent = new Agent({ connections: CONC });
  const client = createEgressClient({ policy: { name: 'bench', authorizeHttp: () => ({ allow: true, rule: 'bench' }) } });
  const rfa = new RequestFilteringHttpAgent({ keepAlive: true, maxSockets: CONC, allowIPAddressList: ['127.0.0.1'] });
  // ssrf-req-filter blocks every loopback address by design and only checks when a socket is
  // created. Warm CONC keep-alive sockets first, then install its hook: the measured load runs
  // through its agent in steady state (its per-connection check cost is excluded, which only
  // favours it). A new connection during the run would throw and fail the suite loudly.
  const ssrfAgent = new http.Agent({ keepAlive: true, maxSockets: CONC });
  // Same transport as the two filters (node:http, keep-alive): isolates the guard's cost.
  const oursAgent = createEgressHttpAgent({ keepAlive: true, maxSockets: CONC });

  const variants = {
    plain: async () => (await undiciFetch(url, { dispatcher: plainAgent })).arrayBuffer(),
    plainRequest: async () => {
      return collect((await undiciRequest(url, { dispatcher: plainAgent })).body);
    },
    ours: async () => (await client.fetch(url, undefined, { principal })).arrayBuffer(),
    oursRequest: async () => {
      return collect((await client.request(url, undefined, { principal })).body);
    },
    rfa: () => nodeGet(rfa, url),
    ssrf: () => nodeGet(ssrfAgent, url),
    oursAgent: () => nodeGet(oursAgent, url),
  };
  for (const [name, one] of Object.entries(variants)) {
    await throughput(one, 200, CONC);
    if (name === 'ssrf') requestFilterHandler(ssrfAgent);
  }
  const results = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, one] of Object.entries(variants)) results[name].push(await throughput(one, TOTAL, CONC));
  }
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const rps = Object.fromEntries(Object.entries(results).map(([k, v]) => [k, med(v)]));
  log(`req/s medians: ${Object.entries(rps).map(([k, v]) => `${k}=${v.toFixed(0)}`).join(' ')}`);

  await client.close();
  await plainAgent.close();
  rfa.destroy();
  ssrfAgent.destroy();
  oursAgent.destroy();
  server.stop();

  // Per-decision cost: a literal (parse + classify + rule) and a cached name (cache hit + judge).
  const guard = createEgressGuard({ resolve: async () => ['93.184.216.34', '2606:4700:4700::1111'], cacheTtlMs: 60_000 });
  await guard.evaluateUrl('http://cached.test/');
  const N = 20_000;
  const literal = await sample(async () => { for (let i = 0; i < 10; i++) await guard.evaluateUrl('http://93.184.216.34:8080/x'); }, N / 10);
  const cached = await sample(async () => { for (let i = 0; i < 10; i++) await guard.evaluateUrl('http://cached.test/'); }, N / 10);
  const urlOnly = await sample(() => { for (let i = 0; i < 10; i++) new URL('http://93.184.216.34:8080/x'); }, N / 10);

  return [
    { measure: 'guarded fetch vs plain undici fetch (loopback, 8 concurrent)', unit: 'req/s', ours: rps.ours, baseline: rps.plain, baselineName: 'undici fetch', better: 'higher', target: { ratio: 0.9 } },
    { measure: 'guarded request vs plain undici request', unit: 'req/s', ours: rps.oursRequest, baseline: rps.plainRequest, baselineName: 'undici request', better: 'higher', target: { ratio: 0.9 } },
    { measure: 'guarded request vs request-filtering-agent (same load)', unit: 'req/s', ours: rps.oursRequest, baseline: rps.rfa, baselineName: 'request-filtering-agent', better: 'higher', target: { ratio: 1 } },
    { measure: 'guarded request vs ssrf-req-filter (same load)', unit: 'req/s', ours: rps.oursRequest, baseline: rps.ssrf, baselineName: 'ssrf-req-filter', better: 'higher', target: { ratio: 1 } },
    { measure: 'guarded node:http agent vs request-filtering-agent', unit: 'req/s', ours: rps.oursAgent, baseline: rps.rfa, baselineName: 'request-filtering-agent', better: 'higher', target: { ratio: 1 } },
    { measure: 'guarded node:http agent vs ssrf-req-filter', unit: 'req/s', ours: rps.oursAgent, baseline: rps.ssrf, baselineName: 'ssrf-req-filter', better: 'higher', target: { ratio: 1 } },
    { measure: 'guarded fetch (Response) vs request-filtering-agent', unit: 'req/s', ours: rps.ours, baseline: rps.rfa, baselineName: 'request-filtering-agent', better: 'higher', target: { ratio: 1 } },
    { measure: 'guarded fetch (Response) vs ssrf-req-filter', unit: 'req/s', ours: rps.ours, baseline: rps.ssrf, baselineName: 'ssrf-req-filter', better: 'higher', target: { ratio: 1 } },
    { measure: 'decision: IP literal URL', unit: 'ns/op', ours: percentile(literal, 50) / 10, baseline: percentile(urlOnly, 50) / 10, baselineName: 'new URL() alone', better: 'lower' },
    { measure: 'decision: cached name (2 answers)', unit: 'ns/op', ours: percentile(cached, 50) / 10, baseline: percentile(urlOnly, 50) / 10, baselineName: 'new URL() alone', better: 'lower' },
  ];
}
