// Egress suite: each guarded path (fetch, request, node:http agent) against its unguarded twin
// (undici fetch / undici request / a plain node:http agent) and against two SSRF-filtering
// agents, all on the same loopback HTTP server running in a child process; plus the guarded
// fetch with a sealed audit chain, client CPU per request, and the guard's per-decision cost.
// Loops are bounded; nothing leaves loopback.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import { Agent, fetch as undiciFetch, request as undiciRequest } from 'undici';
import { createMemoryAuditSink } from '@trust/core';
import { createEgressClient, createEgressGuard, createEgressHttpAgent } from '@trust/egress';
import { RequestFilteringHttpAgent } from 'request-filtering-agent';
import { percentile, sample } from '../lib/table.mjs';

const require = createRequire(import.meta.url);
const { requestFilterHandler } = require('ssrf-req-filter');

const SERVER = `
const http = require('node:http');
const body = Buffer.from('x'.repeat(256));
const s = http.createServer({ keepAliveTimeout: 60000 }, (req, res) => {
  req.resume();
  // /chunked: no content-length (transfer-encoding: chunked), as many frameworks answer.
  if (req.url === '/chunked') res.writeHead(200, { 'content-type': 'text/plain' });
  else res.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length });
  res.end(body);
});
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
  return {
    port,
    stop: () => {
      child.stdin.end();
      return child.kill();
    },
  };
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

/** Client CPU time (user + system) per request over one measured batch, in microseconds. */
function cpuPerRequest(before, total) {
  const d = process.cpuUsage(before);
  return (d.user + d.system) / total;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export default async function run({ log }) {
  const server = await startServer();
  const url = `http://127.0.0.1:${server.port}/`;
  const chunked = `${url}chunked`;
  const principal = { kind: 'plugin', id: 'bench' };
  const CONC = 8;
  // The machine is shared and loaded: many short rounds, every variant once per round in a
  // rotating order, medians over rounds. Ratios are also computed per round (both sides of a
  // pair measured seconds apart) and their median is logged next to the ratio of medians.
  const TOTAL = 1000;
  const ROUNDS = 13;
  const policy = { name: 'bench', authorizeHttp: () => ({ allow: true, rule: 'bench' }) };

  const plainAgent = new Agent({ connections: CONC });
  const client = createEgressClient({ policy });
  const audited = createEgressClient({ policy, audit: createMemoryAuditSink() });
  const rfa = new RequestFilteringHttpAgent({ keepAlive: true, maxSockets: CONC, allowIPAddressList: ['127.0.0.1'] });
  // ssrf-req-filter blocks every loopback address by design and only checks when a socket is
  // created. Warm CONC keep-alive sockets first, then install its hook: the measured load runs
  // through its agent in steady state (its per-connection check cost is excluded, which only
  // favours it). A new connection during the run would throw and fail the suite loudly.
  const ssrfAgent = new http.Agent({ keepAlive: true, maxSockets: CONC });
  // The guarded node:http agent and its unguarded twin: same transport as the two filters.
  const oursAgent = createEgressHttpAgent({ keepAlive: true, maxSockets: CONC });
  const nodeAgent = new http.Agent({ keepAlive: true, maxSockets: CONC });

  const variants = {
    undiciFetch: async () => (await undiciFetch(url, { dispatcher: plainAgent })).arrayBuffer(),
    undiciRequest: async () => collect((await undiciRequest(url, { dispatcher: plainAgent })).body),
    nodeAgent: () => nodeGet(nodeAgent, url),
    oursFetch: async () => (await client.fetch(url, undefined, { principal })).arrayBuffer(),
    oursRequest: async () => collect((await client.request(url, undefined, { principal })).body),
    oursAgent: () => nodeGet(oursAgent, url),
    oursFetchAudited: async () => (await audited.fetch(url, undefined, { principal })).arrayBuffer(),
    undiciFetchChunked: async () => (await undiciFetch(chunked, { dispatcher: plainAgent })).arrayBuffer(),
    oursFetchChunked: async () => (await client.fetch(chunked, undefined, { principal })).arrayBuffer(),
    rfa: () => nodeGet(rfa, url),
    ssrf: () => nodeGet(ssrfAgent, url),
  };
  const names = Object.keys(variants);
  for (const name of names) {
    await throughput(variants[name], 300, CONC);
    if (name === 'ssrf') requestFilterHandler(ssrfAgent);
  }
  const load0 = os.loadavg()[0];
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const round = {};
    for (let i = 0; i < names.length; i++) {
      const name = names[(r + i) % names.length];
      const cpu0 = process.cpuUsage();
      const rps = await throughput(variants[name], TOTAL, CONC);
      round[name] = { rps, cpu: cpuPerRequest(cpu0, TOTAL) };
    }
    rounds.push(round);
  }
  const load1 = os.loadavg()[0];
  const rps = Object.fromEntries(names.map((n) => [n, median(rounds.map((r) => r[n].rps))]));
  const cpu = Object.fromEntries(names.map((n) => [n, median(rounds.map((r) => r[n].cpu))]));
  const paired = (a, b) => {
    const ratios = rounds.map((r) => r[a].rps / r[b].rps).sort((x, y) => x - y);
    return `${a}/${b} ${median(ratios).toFixed(2)} (${ratios[0].toFixed(2)}-${ratios[ratios.length - 1].toFixed(2)})`;
  };
  log(
    `${ROUNDS} rounds x ${TOTAL} requests x ${names.length} variants, ${CONC} ` +
      `concurrent; load average ${load0.toFixed(1)} -> ${load1.toFixed(1)}`,
  );
  log(`req/s medians: ${names.map((k) => `${k}=${rps[k].toFixed(0)}`).join(' ')}`);
  log(`client CPU us/request medians: ${names.map((k) => `${k}=${cpu[k].toFixed(1)}`).join(' ')}`);
  log(
    `paired per-round ratios, median (min-max): ${[
      ['oursFetch', 'undiciFetch'],
      ['oursFetch', 'undiciRequest'],
      ['oursFetch', 'rfa'],
      ['oursFetch', 'ssrf'],
      ['oursRequest', 'undiciRequest'],
      ['oursRequest', 'rfa'],
      ['oursRequest', 'ssrf'],
      ['oursAgent', 'nodeAgent'],
      ['oursAgent', 'rfa'],
      ['oursAgent', 'ssrf'],
      ['oursFetchChunked', 'undiciFetchChunked'],
      ['oursFetchAudited', 'undiciFetch'],
    ]
      .map(([a, b]) => paired(a, b))
      .join('; ')}`,
  );

  await client.close();
  await audited.close();
  await plainAgent.close();
  rfa.destroy();
  ssrfAgent.destroy();
  oursAgent.destroy();
  nodeAgent.destroy();
  server.stop();

  // Per-decision cost: a literal (parse + classify + rule) and a cached name (cache hit + judge).
  const guard = createEgressGuard({
    resolve: async () => ['93.184.216.34', '2606:4700:4700::1111'],
    cacheTtlMs: 60_000,
  });
  await guard.evaluateUrl('http://cached.test/');
  const N = 20_000;
  const literal = await sample(async () => {
    for (let i = 0; i < 10; i++) await guard.evaluateUrl('http://93.184.216.34:8080/x');
  }, N / 10);
  const cached = await sample(async () => {
    for (let i = 0; i < 10; i++) await guard.evaluateUrl('http://cached.test/');
  }, N / 10);
  const urlOnly = await sample(() => {
    for (let i = 0; i < 10; i++) new URL('http://93.184.216.34:8080/x');
  }, N / 10);

  const PEERS = [
    ['rfa', 'request-filtering-agent'],
    ['ssrf', 'ssrf-req-filter'],
  ];
  const tput = (measure, ours, base, baselineName, ratio) => ({
    measure,
    unit: 'req/s',
    ours: rps[ours],
    baseline: rps[base],
    baselineName,
    better: 'higher',
    ...(ratio === undefined ? {} : { target: { ratio } }),
  });
  // The issue's "faster than both" target is for the guarded fetch load (and our request path).
  // The node:http agent rows are shown without a target: on kept-alive sockets it runs the same
  // per-request code as both peers (all three judge when a connection opens), so it ties by design.
  const paths = [
    [
      'oursFetch',
      'guarded fetch (Response)',
      [
        ['undiciFetch', 'undici fetch', 0.9],
        ['undiciRequest', 'undici request', 0.9],
      ],
      1,
    ],
    ['oursRequest', 'guarded request (stream)', [['undiciRequest', 'undici request', 0.9]], 1],
    [
      'oursAgent',
      'guarded node:http agent',
      [
        ['undiciRequest', 'undici request'],
        ['nodeAgent', 'node:http agent', 0.9],
      ],
      undefined,
    ],
  ];
  const rows = [];
  for (const [ours, label, plains, peerTarget] of paths) {
    for (const [base, name, target] of plains) rows.push(tput(`${label} vs plain ${name}`, ours, base, name, target));
    for (const [base, name] of PEERS) rows.push(tput(`${label} vs ${name}`, ours, base, name, peerTarget));
  }
  rows.push(
    tput(
      'guarded fetch, chunked body (no content-length) vs plain undici fetch',
      'oursFetchChunked',
      'undiciFetchChunked',
      'undici fetch, chunked',
      0.9,
    ),
  );
  rows.push(
    tput('guarded fetch + sealed audit chain vs plain undici fetch', 'oursFetchAudited', 'undiciFetch', 'undici fetch'),
  );
  // The peers audit nothing: this row shows what our hash-chained audit costs against them.
  for (const [base, name] of PEERS)
    rows.push(tput(`guarded fetch + sealed audit chain vs ${name}`, 'oursFetchAudited', base, name));
  for (const [ours, label, plains] of paths) {
    const [base, name] = plains[plains.length - 1];
    rows.push({
      measure: `client CPU per request: ${label} vs plain ${name}`,
      unit: 'us/req',
      ours: cpu[ours],
      baseline: cpu[base],
      baselineName: name,
      better: 'lower',
    });
  }
  rows.push(
    {
      measure: 'decision: IP literal URL',
      unit: 'ns/op',
      ours: percentile(literal, 50) / 10,
      baseline: percentile(urlOnly, 50) / 10,
      baselineName: 'new URL() alone',
      better: 'lower',
    },
    {
      measure: 'decision: cached name (2 answers)',
      unit: 'ns/op',
      ours: percentile(cached, 50) / 10,
      baseline: percentile(urlOnly, 50) / 10,
      baselineName: 'new URL() alone',
      better: 'lower',
    },
  );
  return rows;
}
