// Egress proxy suite: requests through `createEgressProxy` (absolute-form, kept-alive, 50
// concurrent clients) against a plain undici request straight to the same upstream, a loopback
// HTTP server in a child process; then the same proxied load while another run (a second proxy
// listener, another principal, sharing the connection budget) holds 200 idle connections open.
// The proxies run in their own child process, as they do beside a sandbox: the client's work is
// not charged to them, nor theirs to the client.
// Throughput and p99 latency; medians over rotating rounds. Nothing leaves loopback.
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import os from 'node:os';
import { Pool } from 'undici';
import { percentile } from '../lib/table.mjs';

const SERVER = `
const http = require('node:http');
const body = Buffer.from('x'.repeat(256));
const s = http.createServer({ keepAliveTimeout: 60000 }, (req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length });
  res.end(body);
});
s.listen(0, '127.0.0.1', () => process.stdout.write(String(s.address().port) + '\\n'));
process.stdin.on('end', () => process.exit(0)); process.stdin.resume();
`;

// Two proxy listeners (run-a, run-b) sharing one connection budget; prints their ports.
const PROXIES = (egress) => `
import { createConnectionBudget, createEgressProxy } from ${JSON.stringify(egress)};
const budget = createConnectionBudget({ maxConnections: 1024 });
const clientLimits = { maxConnections: 256, firstByteTimeoutMs: 600000, idleTimeoutMs: 600000 };
const policy = { name: 'bench', authorizeHttp: () => ({ allow: true, rule: 'bench' }) };
const common = { policy, guard: { mode: 'default' }, listen: { host: '127.0.0.1', port: 0 }, clientLimits,
  connectionBudget: budget };
const a = await createEgressProxy({ ...common, principal: { kind: 'process', id: 'run-a' } });
const b = await createEgressProxy({ ...common, principal: { kind: 'process', id: 'run-b' } });
process.stdin.on('data', () => process.stdout.write(String(budget.open) + '\\n'));
process.stdout.write(a.address.port + ' ' + b.address.port + '\\n');
process.stdin.on('end', () => process.exit(0)); process.stdin.resume();
`;

async function startServer(args = ['-e', SERVER]) {
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      if (buf.includes('\n')) resolve(buf.trim());
    });
    child.once('exit', (c) => reject(new Error(`bench server exited (${c})`)));
  });
  return {
    port,
    child,
    stop: () => {
      child.stdin.end();
      child.kill();
    },
  };
}

/** `total` requests from `concurrency` clients: requests per second and every latency (ms). */
async function load(one, total, concurrency) {
  let next = 0;
  const latencies = [];
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        const s = process.hrtime.bigint();
        await one();
        latencies.push(Number(process.hrtime.bigint() - s) / 1e6);
      }
    }),
  );
  return { rps: total / (Number(process.hrtime.bigint() - t0) / 1e9), p99: percentile(latencies, 99) };
}

async function drain(res) {
  if (res.statusCode !== 200) throw new Error(`bench: status ${res.statusCode}`);
  for await (const _ of res.body);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export default async function run({ log }) {
  const server = await startServer();
  const origin = `http://127.0.0.1:${server.port}`;
  const proxies = await startServer(['--input-type=module', '-e', PROXIES(import.meta.resolve('@trust/egress'))]);
  const [portA, portB] = proxies.port.split(' ').map(Number);
  // How many client connections the shared budget counts now (asked over the child's stdin).
  const budgetOpen = () =>
    new Promise((ok) => {
      proxies.child.stdout.once('data', (d) => ok(Number(String(d).trim())));
      proxies.child.stdin.write('?');
    });
  const CONC = 50;
  const IDLE = 200;
  const TOTAL = 3000;
  const ROUNDS = 7;
  const plain = new Pool(origin, { connections: CONC });
  const proxied = new Pool(`http://127.0.0.1:${portA}`, { connections: CONC });
  const variants = {
    plain: async () => drain(await plain.request({ path: '/', method: 'GET' })),
    proxy: async () =>
      drain(
        await proxied.request({ path: `${origin}/`, method: 'GET', headers: { host: `127.0.0.1:${server.port}` } }),
      ),
  };
  const idle = [];
  const holdIdle = async () => {
    for (let i = 0; i < IDLE; i++) {
      const s = connect({ host: '127.0.0.1', port: portB });
      s.on('error', () => undefined);
      await new Promise((ok) => s.once('connect', ok));
      idle.push(s);
    }
  };
  const dropIdle = () => {
    for (const s of idle.splice(0)) s.destroy();
  };

  for (const name of Object.keys(variants)) await load(variants[name], 500, CONC);
  const load0 = os.loadavg()[0];
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const row = {};
    const order = r % 2 === 0 ? ['plain', 'proxy', 'proxyIdle'] : ['proxyIdle', 'proxy', 'plain'];
    for (const name of order) {
      if (name === 'proxyIdle') await holdIdle();
      row[name] = await load(variants[name === 'proxyIdle' ? 'proxy' : name], TOTAL, CONC);
      if (name === 'proxyIdle') {
        const open = await budgetOpen();
        if (open < IDLE) throw new Error(`bench: only ${open} idle connections held`);
        dropIdle();
      }
    }
    rounds.push(row);
  }
  log(`load average ${load0.toFixed(2)} → ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} CPUs`);
  const med = (name, key) => median(rounds.map((r) => r[name][key]));
  const perRound = (a, b, key) => median(rounds.map((r) => r[a][key] / r[b][key]));
  log(
    `per-round ratio medians: proxy/plain rps ${perRound('proxy', 'plain', 'rps').toFixed(2)}, ` +
      `p99 idle/none ${perRound('proxyIdle', 'proxy', 'p99').toFixed(2)}`,
  );

  await plain.close();
  await proxied.close();
  proxies.stop();
  server.stop();
  return [
    {
      measure: `proxied request throughput vs plain undici request (${CONC} clients)`,
      unit: 'req/s',
      ours: med('proxy', 'rps'),
      baseline: med('plain', 'rps'),
      baselineName: 'undici request',
      better: 'higher',
      target: { ratio: 0.7 },
    },
    {
      measure: `proxied p99 latency vs plain undici request (${CONC} clients)`,
      unit: 'ms',
      ours: med('proxy', 'p99'),
      baseline: med('plain', 'p99'),
      baselineName: 'undici request',
      better: 'lower',
    },
    {
      measure: `proxied throughput with ${IDLE} idle connections of another run vs without`,
      unit: 'req/s',
      ours: med('proxyIdle', 'rps'),
      baseline: med('proxy', 'rps'),
      baselineName: 'proxy, no idle load',
      better: 'higher',
    },
    {
      measure: `proxied p99 latency with ${IDLE} idle connections of another run vs without`,
      unit: 'ms',
      ours: med('proxyIdle', 'p99'),
      baseline: med('proxy', 'p99'),
      baselineName: 'proxy, no idle load',
      better: 'lower',
      target: { ratio: 1.2 },
    },
  ];
}
