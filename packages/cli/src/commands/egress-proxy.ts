import type { AuditEvent, AuditInput, AuditSink } from '@trust/core';
import type { CommandSpec } from '../command.js';
import { integerOption, stringOption } from '../args.js';
import { loadEgressPolicyFile } from '../egress-policy-file.js';
import { parseListenAddress } from '../listen-address.js';
import { usageError } from '../cli-error.js';
import { escapeTerminal } from '../terminal-text.js';
import { formatAuditLine } from './audit-tail.js';
import { resolve } from 'node:path';

export const command: CommandSpec = {
  name: 'egress proxy',
  summary: 'run the policy proxy for third-party tools',
  description:
    'Starts an HTTP forward proxy (plain requests and CONNECT tunnels) on a unix socket or a loopback\n' +
    'port. Every request is judged by the policy file and the address guard and audited. Point a tool\n' +
    'at it with HTTP_PROXY/HTTPS_PROXY. Everyone who connects is one principal (--principal), so run\n' +
    'one proxy per tool you want to tell apart. Stops on Ctrl-C.',
  positionals: [],
  options: {
    policy: { type: 'string', valueName: 'file', description: 'the egress policy file (required)' },
    listen: {
      type: 'string',
      valueName: 'address',
      description: 'unix:/path, 127.0.0.1:PORT or [::1]:PORT (default 127.0.0.1:0, any free port)',
    },
    principal: {
      type: 'string',
      valueName: 'id',
      description: 'the id recorded for everyone who uses this listener (default egress-proxy)',
    },
    audit: {
      type: 'string',
      valueName: 'file',
      description: 'append the audit events to this JSONL file (hash-chained)',
    },
    'max-connections': {
      type: 'string',
      valueName: 'n',
      description: 'open client connections at once; more get 503 (default 64)',
    },
    'first-byte-timeout': {
      type: 'string',
      valueName: 'ms',
      description: 'a new connection must send its first byte within this; else 408 (default 10000)',
    },
    'header-timeout': {
      type: 'string',
      valueName: 'ms',
      description: 'a request head must arrive complete within this of its first byte; else 408 (default 10000)',
    },
    'request-timeout': {
      type: 'string',
      valueName: 'ms',
      description: 'a whole request (head and body) must arrive within this; else 408 (default 60000)',
    },
    'idle-timeout': {
      type: 'string',
      valueName: 'ms',
      description: 'a kept-alive connection with no request is closed after this (default 5000)',
    },
    'max-header-count': {
      type: 'string',
      valueName: 'n',
      description: 'header lines of one request; more get 431 (default 200)',
    },
  },
  examples: [
    { command: 'trust egress proxy --policy policy.json --listen 127.0.0.1:3128', explain: 'a proxy on a fixed port' },
    {
      command: 'HTTPS_PROXY=http://127.0.0.1:3128 curl https://api.github.com/zen',
      explain: 'in another terminal: a tool that respects the proxy variables',
    },
    {
      command: 'trust egress proxy --policy policy.json --listen unix:/run/user/1000/egress.sock --audit egress.jsonl',
      explain: 'a unix socket, with a persistent audit log',
    },
  ],
  jsonShape:
    '{ "listen": { "host", "port" } | { "path" }, "url"?: string, ' +
    '"principal": string }  then one JSON line per audit event',
  async run({ io, out, values }) {
    const policyPath = stringOption(values, 'policy');
    if (!policyPath)
      throw usageError(
        'CLI_USAGE_MISSING_OPTION',
        'trust egress proxy needs --policy <file>',
        'for example --policy policy.json',
      );
    const ms = (name: string): number | undefined =>
      integerOption(values, name, { min: 1, max: 2_147_483_647, example: 10_000 });
    const clientLimits = {
      maxConnections: integerOption(values, 'max-connections', { min: 1, max: 65_535, example: 64 }),
      firstByteTimeoutMs: ms('first-byte-timeout'),
      headerTimeoutMs: ms('header-timeout'),
      requestTimeoutMs: ms('request-timeout'),
      idleTimeoutMs: ms('idle-timeout'),
      maxHeaderCount: integerOption(values, 'max-header-count', { min: 1, max: 10_000, example: 200 }),
    };
    const listen = parseListenAddress(stringOption(values, 'listen') ?? '127.0.0.1:0', io.cwd);
    const { policy, guard } = await loadEgressPolicyFile(io.cwd, policyPath, io.env);
    const [{ createEgressProxy }, { createMemoryAuditSink, createPrincipal }] = await Promise.all([
      import('@trust/egress'),
      import('@trust/core'),
    ]);
    const auditPath = stringOption(values, 'audit');
    const inner: AuditSink = auditPath
      ? (await import('@trust/core/node')).createJsonlAuditSink(resolve(io.cwd, auditPath))
      : createMemoryAuditSink();
    const sink: AuditSink = {
      record(input: AuditInput): AuditEvent {
        const event = inner.record(input);
        out.event(event);
        if (!out.json) io.stderr.write(`${formatAuditLine(event, { style: out.errStyle })}\n`);
        return event;
      },
    };
    const id = stringOption(values, 'principal') ?? 'egress-proxy';
    const proxy = await createEgressProxy({
      policy,
      guard,
      audit: sink,
      principal: createPrincipal('process', id),
      listen,
      clientLimits,
    });
    out.result({ listen: proxy.address, ...(proxy.url ? { url: proxy.url } : {}), principal: id });
    const where = 'path' in proxy.address ? `unix:${proxy.address.path}` : (proxy.url ?? '');
    out.line(
      `${out.style.green('egress proxy listening')} ` +
        `on ${escapeTerminal(where)} (principal ` +
        `process:${escapeTerminal(id)})`,
    );
    if (proxy.url) out.line(`  use it: HTTP_PROXY=${proxy.url} HTTPS_PROXY=${proxy.url} <command>`);
    out.line('  press Ctrl-C to stop');
    await new Promise<void>((done) => io.signal.addEventListener('abort', () => done(), { once: true }));
    await proxy.close();
    (inner as { close?: () => void }).close?.();
    out.progress('egress proxy stopped');
    return 0;
  },
};
