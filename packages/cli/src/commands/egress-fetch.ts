import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { AuditEvent } from '@trust/core';
import type { CommandSpec } from '../command.js';
import { integerOption, listOption, stringOption } from '../args.js';
import { loadEgressPolicyFile } from '../egress-policy-file.js';
import { usageError } from '../cli-error.js';
import { escapeTerminal } from '../terminal-text.js';
import { formatAuditLine } from './audit-tail.js';
import { parseUrlArgument } from '../flag-values.js';

function parseHeader(text: string): [string, string] {
  const i = text.indexOf(':');
  if (i <= 0)
    throw usageError(
      'CLI_USAGE_INVALID_VALUE',
      `--header must look like 'Name: value', got '${text}'`,
      "for example --header 'Accept: application/json'",
    );
  return [text.slice(0, i).trim(), text.slice(i + 1).trim()];
}

export const command: CommandSpec = {
  name: 'egress fetch',
  summary: 'fetch a URL through the egress policy and print the audit event',
  description:
    'Performs one guarded request: the policy file decides the destination (and may inject credentials\n' +
    'you never see), the address guard judges every address after DNS, the connection is pinned to the\n' +
    'vetted address, and every redirect hop is checked again. The audit events go to stderr (or into the\n' +
    'JSON result); the response body goes to stdout or --output.',
  positionals: [{ name: 'url', description: 'the http(s) URL to fetch' }],
  options: {
    policy: {
      type: 'string',
      valueName: 'file',
      description: 'the egress policy file (required: without a policy nothing is reachable)',
    },
    method: { type: 'string', short: 'X', valueName: 'method', description: 'HTTP method (default GET)' },
    header: {
      type: 'string',
      short: 'H',
      multiple: true,
      valueName: 'name: value',
      description: 'a request header (repeatable)',
    },
    data: { type: 'string', short: 'd', valueName: 'text', description: 'request body' },
    output: {
      type: 'string',
      short: 'o',
      valueName: 'file',
      description: 'write the body to a file instead of stdout',
    },
    'max-bytes': {
      type: 'string',
      valueName: 'bytes',
      description: 'largest response body accepted (default: the egress default cap)',
    },
  },
  examples: [
    {
      command: 'echo \'{"v":1,"http":{"allow":["api.github.com"]}}\' > policy.json',
      explain: 'a policy that allows one host',
    },
    {
      command: 'trust egress fetch https://api.github.com/zen --policy policy.json',
      explain: 'fetch through it and see the audit event',
    },
    {
      command: 'trust egress fetch https://example.com/ --policy policy.json',
      explain: 'a host the policy does not allow: denied, exit 126',
    },
    {
      command: 'trust egress fetch https://api.github.com/zen --policy policy.json --json | jq .result.audit',
      explain: 'the decisions, for a script',
    },
  ],
  jsonShape:
    '{ "url": string, "status": number, "headers": { [name]: string }, ' +
    '"body": string, "bytes": number, "audit": AuditEvent[] }',
  exitCodes: ['126 the policy or the address guard denied the request (the audit event says which rule)'],
  async run({ io, out, values, positionals }) {
    const url = positionals[0] as string;
    parseUrlArgument(url);
    const policyPath = stringOption(values, 'policy');
    if (!policyPath) {
      throw usageError(
        'CLI_USAGE_MISSING_OPTION',
        'trust egress fetch needs --policy <file>: without a policy nothing is reachable',
        'write {"v":1,"http":{"allow":["example.com"]}} to policy.json and pass --policy policy.json',
      );
    }
    const maxBytes = integerOption(values, 'max-bytes', { min: 1, max: 2 ** 40, example: 1_048_576 });
    const headers = listOption(values, 'header').map(parseHeader);
    const { policy, guard } = await loadEgressPolicyFile(io.cwd, policyPath, io.env);
    const [{ createEgressClient }, { createMemoryAuditSink, createPrincipal }] = await Promise.all([
      import('@trust/egress'),
      import('@trust/core'),
    ]);
    const audit = createMemoryAuditSink();
    const client = createEgressClient({
      policy,
      guard,
      audit,
      ...(maxBytes !== undefined ? { limits: { maxResponseBytes: maxBytes } as never } : {}),
    });
    const printAudit = (events: readonly AuditEvent[]) => {
      if (out.json) return;
      for (const e of events)
        io.stderr.write(`${out.errStyle.dim('audit')} ${formatAuditLine(e, { style: out.errStyle })}\n`);
    };
    out.progress(`fetching ${escapeTerminal(url)}`);
    try {
      const data = stringOption(values, 'data');
      const response = await client.fetch(
        url,
        {
          method: stringOption(values, 'method') ?? (data !== undefined ? 'POST' : 'GET'),
          headers,
          ...(data !== undefined ? { body: data } : {}),
          signal: io.signal,
        },
        { principal: createPrincipal('owner', 'trust-cli') },
      );
      const body = Buffer.from(await response.arrayBuffer());
      const events = audit.events();
      const outputPath = stringOption(values, 'output');
      if (outputPath) await writeFile(resolve(io.cwd, outputPath), body);
      out.result({
        url,
        status: response.status,
        headers: Object.fromEntries(response.headers),
        body: outputPath ? '' : body.toString('utf8'),
        bytes: body.length,
        audit: events,
      });
      printAudit(events);
      if (!out.json) {
        io.stderr.write(`${out.errStyle.dim('status')} ${response.status}\n`);
        if (!outputPath)
          io.stdout.write(io.stdout.isTTY ? escapeTerminal(body.toString('utf8'), { multiline: true }) : body);
      }
      return 0;
    } catch (error) {
      printAudit(audit.events());
      if (out.json && typeof error === 'object' && error !== null) {
        // The JSON error still carries the decisions that led to it.
        Object.assign(error, { audit: audit.events() });
      }
      throw error;
    } finally {
      await client.close();
    }
  },
};
