// Attack corpus for @trust/core: capability grammar, fs grant confinement, host rules, policy
// chain semantics, policy file validation (no secrets in errors) and audit chain tamper detection.
import { describe, expect, it } from 'vitest';
import {
  allowHosts,
  chain,
  compilePolicy,
  createMemoryAuditSink,
  denyHosts,
  injectHeaders,
  matchHostRule,
  parseCapabilities,
  parseHostRule,
  parsePolicyFile,
  parsePolicyText,
  sealEvent,
  tryParseCapabilities,
  tryParseHostRule,
  verifyChain,
  type AuditEvent,
  type Decision,
  type EgressHttpRequest,
  type EgressPolicy,
} from '@trust/core';

function codes(list: unknown): string[] {
  const r = tryParseCapabilities(list as string[]);
  return r.ok ? [] : r.error.problems.map((p) => p.code);
}

describe('attack: capability grammar smuggling', () => {
  it.each([
    ['env', 'CAPABILITY_BARE_ENV'],
    ['fs', 'CAPABILITY_BARE_FS'],
    ['filesystem', 'CAPABILITY_BARE_FS'],
    ['fs:ro:/', 'CAPABILITY_BARE_FS'],
    ['fs:rw://', 'CAPABILITY_BARE_FS'],
    ['fs:ro:/./', 'CAPABILITY_BARE_FS'],
    ['fs:rw:/..', 'CAPABILITY_FS_PATH'],
    ['fs:rw:/data/..', 'CAPABILITY_FS_PATH'],
    ['fs:ro:/dev/../../', 'CAPABILITY_FS_PATH'],
    ['env:', 'CAPABILITY_EMPTY'],
    ['fs:ro:', 'CAPABILITY_EMPTY'],
    ['', 'CAPABILITY_EMPTY'],
    ['fs:ro:/data\0', 'CAPABILITY_NUL'],
    ['fs:rw:/\0', 'CAPABILITY_NUL'],
    ['env:AWS\0', 'CAPABILITY_NUL'],
    ['http\0', 'CAPABILITY_NUL'],
    ['fs:RO:/x', 'CAPABILITY_FS_MODE'],
    ['fs:ro', 'CAPABILITY_FS_MODE'],
    ['fs:', 'CAPABILITY_FS_MODE'],
    ['fs:rwx:/x', 'CAPABILITY_FS_MODE'],
    ['fs:ro:data', 'CAPABILITY_FS_RELATIVE'],
    ['fs:ro:~/x', 'CAPABILITY_FS_RELATIVE'],
    ['fs:ro:./x', 'CAPABILITY_FS_RELATIVE'],
    ['fs:ro:\\data', 'CAPABILITY_FS_RELATIVE'],
    ['env:*', 'CAPABILITY_ENV_NAME'],
    ['env:A=B', 'CAPABILITY_ENV_NAME'],
    ['env:A B', 'CAPABILITY_ENV_NAME'],
    ['env:1A', 'CAPABILITY_ENV_NAME'],
    ['env:LOG\u0130', 'CAPABILITY_ENV_NAME'],
    ['env:ＡＷＳ', 'CAPABILITY_ENV_NAME'],
    ['Env', 'CAPABILITY_UNKNOWN'],
    ['ENV:X', 'CAPABILITY_UNKNOWN'],
    ['FS:ro:/x', 'CAPABILITY_UNKNOWN'],
    ['HTTP', 'CAPABILITY_UNKNOWN'],
    [' http', 'CAPABILITY_UNKNOWN'],
    ['http ', 'CAPABILITY_UNKNOWN'],
    ['h\uff54tp', 'CAPABILITY_UNKNOWN'],
    ['http\u200b', 'CAPABILITY_UNKNOWN'],
    ['\u0435nv:X', 'CAPABILITY_UNKNOWN'],
    ['http:api.example.com', 'CAPABILITY_UNKNOWN'],
    ['filesystem:ro:/x', 'CAPABILITY_UNKNOWN'],
    ['net', 'CAPABILITY_UNKNOWN'],
    ['all', 'CAPABILITY_UNKNOWN'],
    ['*', 'CAPABILITY_UNKNOWN'],
  ])('%j is rejected with %s', (entry, code) => {
    expect(codes([entry])).toContain(code);
  });

  it('tcp/udp next to network/sockets is a tier conflict, in either order', () => {
    for (const list of [
      ['tcp', 'network'],
      ['network', 'tcp'],
      ['udp', 'sockets'],
      ['tcp', 'udp', 'sockets', 'network'],
    ]) {
      expect(codes(list), list.join(',')).toContain('CAPABILITY_TIER_CONFLICT');
    }
  });

  it('non-string entries and non-array lists are rejected (no toString coercion into a grant)', () => {
    const sneaky = { toString: () => 'http' };
    for (const list of [
      'http',
      null,
      { length: 1, 0: 'env' },
      [1],
      [null],
      [['env']],
      [sneaky],
      [new String('http')],
    ]) {
      expect(codes(list), String(JSON.stringify(list))).not.toEqual([]);
    }
  });

  it('one bad entry poisons the whole list (no partial grant), and every problem is reported', () => {
    const r = tryParseCapabilities(['http', 'env', 'fs:ro:/etc/certs', 'fs']);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.problems.map((p) => p.code)).toEqual(['CAPABILITY_BARE_ENV', 'CAPABILITY_BARE_FS']);
    expect(() => parseCapabilities(['http', 'env'])).toThrowTrustError('CAPABILITY_INVALID');
  });

  it('an empty or absent list grants nothing', () => {
    for (const list of [[], undefined]) {
      const set = parseCapabilities(list);
      expect(set.egressTier()).toBe('none');
      expect(set.fsGrant('/etc/passwd').access).toBe('none');
      expect(set.allowsEnv('PATH').allow).toBe(false);
    }
  });
});

describe('attack: fs grant prefix confusion and traversal', () => {
  // Siblings here; nested grants (the most specific wins) are pinned in capability-parse.test.ts.
  const set = parseCapabilities(['fs:ro:/data', 'fs:rw:/cache', 'fs:ro:/etc/certs']);
  it.each([
    '/database',
    '/data-old/x',
    '/datax',
    '/data/../etc/passwd',
    '/cache/../../etc',
    '/etc/certs/../shadow',
    '/etc/certsx',
    '/etc/certs-evil/x',
    '/DATA/x',
    '/d\u0430ta/x',
    '/data\0/x',
    'data/x',
    '',
    '.',
    '../data/x',
    '/',
    '/etc',
  ])('%j is outside every grant', (path) => {
    expect(set.fsGrant(path).access).toBe('none');
  });
  it('paths inside resolve to the most specific grant, and .. cannot climb from rw into ro siblings as rw', () => {
    expect(set.fsGrant('/data/x')).toEqual({ access: 'ro', root: '/data' });
    expect(set.fsGrant('//data//./x/')).toEqual({ access: 'ro', root: '/data' });
    expect(set.fsGrant('/cache/x')).toEqual({ access: 'rw', root: '/cache' });
    expect(set.fsGrant('/cache/../data/secret')).toEqual({ access: 'ro', root: '/data' });
    expect(set.fsGrant('/cache/%2e%2e/x').access).toBe('rw'); // no percent-decoding: a literal directory name
  });
  it('a granted env name allows exactly that name', () => {
    const env = parseCapabilities(['env:LOG_LEVEL']);
    for (const name of ['LOG_LEVEL']) expect(env.allowsEnv(name).allow).toBe(true);
    for (const name of ['log_level', 'LOG_LEVEL ', 'LOG_LEVEL\0', 'LOG_LEVEL_X', 'AWS_SECRET_ACCESS_KEY', '*', ''])
      expect(env.allowsEnv(name).allow, name).toBe(false);
  });
});

describe('attack: host rules', () => {
  it.each([
    '*',
    '*.',
    '**',
    '*.com',
    '*.io',
    '*.co.uk',
    '*.github.io',
    '*.githubusercontent.com',
    '*.amazonaws.com',
    '*.s3.amazonaws.com',
    '*.herokuapp.com',
    '*.vercel.app',
    '*.pages.dev',
    '*.ngrok.io',
    'a.*.com',
    '*example.com',
    '*.*.example.com',
    'exa mple.com',
    'ex\u0430mple.com',
    'example.com:0',
    'example.com:65536',
    'example.com:080',
    'example.com:',
    '127.1',
    '0x7f000001',
    '2130706433',
    '0177.0.0.1',
    'example.123',
    '[fe80::1%eth0]',
    'fe80::1%eth0',
    '127.0.0.1/33',
    'a..b',
    '.example.com',
    'example.com/path',
    'user@example.com',
    'http://example.com',
    '1.2.3.4.5',
    '',
    'example.com\0',
    'example.com\n',
    `${'a'.repeat(64)}.com`,
  ])('%j is refused', (text) => {
    expect(tryParseHostRule(text).ok).toBe(false);
  });
  it.each([
    ['*.example.com', 'example.com', undefined, false],
    ['*.example.com', 'evilexample.com', undefined, false],
    ['*.example.com', 'a.example.com.evil.test', undefined, false],
    ['*.example.com', 'example.com.evil.test', undefined, false],
    ['*.example.com', '.example.com', undefined, false],
    ['*.example.com', 'A.EXAMPLE.COM.', undefined, true],
    ['example.com', 'example.com..', undefined, false],
    ['example.com', 'www.example.com', undefined, false],
    ['example.com', 'example.com\0', undefined, false],
    ['example.com', 'EXAMPLE.com.', 443, true],
    ['example.com:443', 'example.com', undefined, false],
    ['example.com:443', 'example.com', 8443, false],
    ['127.0.0.1', '127.1', undefined, false],
    ['127.0.0.1', '127.0.0.1.nip.io', undefined, false],
    ['127.0.0.1', '::ffff:7f00:1', undefined, true],
    ['10.0.0.0/8', '11.0.0.1', undefined, false],
    ['10.0.0.0/8', 'ten.example', undefined, false],
    ['[::1]:80', '::1', 81, false],
  ] as const)('rule %s vs host %j port %s matches=%s', (rule, host, port, expected) => {
    expect(matchHostRule(parseHostRule(rule), host, port)).toBe(expected);
  });
});

const request = (host = 'api.example.com', port = 443): EgressHttpRequest => ({
  method: 'GET',
  url: `https://${host}/`,
  scheme: 'https:',
  host,
  port,
  path: '/',
  headers: new Headers(),
});
const context = { principal: { kind: 'plugin' as const, id: 'p' }, capability: 'http' as const };
const yes = (name: string, role?: 'gate' | 'filter'): EgressPolicy => ({
  name,
  ...(role ? { role } : {}),
  authorizeHttp: () => ({ allow: true, rule: name }),
});
const no = (name: string, role?: 'gate' | 'filter'): EgressPolicy => ({
  name,
  ...(role ? { role } : {}),
  authorizeHttp: () => ({ allow: false, code: 'EGRESS_POLICY_DENIED', reason: name }),
});
const ask = async (p: EgressPolicy, r = request()): Promise<Decision> => p.authorizeHttp(r, context);

describe('attack: policy chain (a filter must never grant; empty allows nothing)', () => {
  it('an empty chain, a filter-only chain and the built-in filters on their own deny', async () => {
    for (const p of [
      chain(),
      chain(yes('f', 'filter')),
      chain(denyHosts(['evil.test'])),
      chain(injectHeaders(['api.example.com'], { 'x-k': 'v' })),
      denyHosts(['evil.test']),
      injectHeaders(['api.example.com'], { 'x-k': 'v' }),
      allowHosts([]),
    ]) {
      expect((await ask(p)).allow, p.name).toBe(false);
    }
  });
  it('a filter deny wins wherever it sits; a gate deny does not veto another gate', async () => {
    expect((await ask(chain(yes('g'), no('f', 'filter')))).allow).toBe(false);
    expect((await ask(chain(no('f', 'filter'), yes('g')))).allow).toBe(false);
    expect((await ask(chain(chain(yes('g')), chain(no('f', 'filter'))))).allow).toBe(false);
    expect((await ask(chain(allowHosts(['api.example.com']), denyHosts(['*.example.com'])))).allow).toBe(false);
    expect((await ask(chain(no('g1'), yes('g2')))).allow).toBe(true);
  });
  it('an async filter deny after a sync gate allow still denies', async () => {
    const slowNo: EgressPolicy = {
      name: 'slow',
      role: 'filter',
      authorizeHttp: async () => ({ allow: false, code: 'EGRESS_POLICY_DENIED', reason: 'slow' }),
    };
    expect((await ask(chain(yes('g'), slowNo))).allow).toBe(false);
  });
  it('a throwing or rejecting member makes the chain fail (never allow)', async () => {
    const boom: EgressPolicy = {
      name: 'boom',
      authorizeHttp: () => {
        throw new Error('boom');
      },
    };
    const reject: EgressPolicy = {
      name: 'rej',
      role: 'filter',
      authorizeHttp: async () => {
        throw new Error('rej');
      },
    };
    await expect(Promise.resolve().then(() => ask(chain(boom, yes('g'))))).rejects.toThrow();
    await expect(Promise.resolve().then(() => ask(chain(yes('g'), reject)))).rejects.toThrow();
  });
  it('allowHosts is not widened by case, a trailing dot or a port', async () => {
    const p = allowHosts(['api.example.com:443']);
    expect((await ask(p, request('API.EXAMPLE.COM.', 443))).allow).toBe(true);
    expect((await ask(p, request('api.example.com', 8443))).allow).toBe(false);
    expect((await ask(p, request('api.example.com.evil.test', 443))).allow).toBe(false);
    expect(() => allowHosts(['*'])).toThrow();
  });
});

describe('attack: policy file validation', () => {
  it.each([
    [{ v: 1, http: { allow: ['a.test'], alow: ['*'] } }, 'POLICY_UNKNOWN_KEY'],
    [JSON.parse('{"v":1,"__proto__":{"http":{"allow":["evil.test"]}}}'), 'POLICY_UNKNOWN_KEY'],
    [{ v: 2 }, 'POLICY_VERSION'],
    [{ v: '1' }, 'POLICY_VERSION'],
    [{ v: 1, guard: { mode: 'yolo' } }, 'POLICY_INVALID_VALUE'],
    [{ v: 1, http: { allow: ['*'] } }, 'POLICY_HOST_RULE_INVALID'],
    [{ v: 1, http: { allow: ['*.co.uk'] } }, 'POLICY_HOST_RULE_INVALID'],
    [{ v: 1, http: { allow: 'a.test' } }, 'POLICY_TYPE'],
  ])('%j is refused with %s', (doc, code) => {
    try {
      parsePolicyFile(doc);
      expect.unreachable('accepted');
    } catch (e) {
      expect((e as { problems: { code: string }[] }).problems.map((p) => p.code)).toContain(code);
    }
  });
  it('literal header secrets never appear in validation, compile or JSON syntax errors', () => {
    const docs: unknown[] = [
      {
        v: 1,
        http: {
          allow: ['a.test'],
          inject: [{ hosts: ['a.test'], headers: { authorization: 'Bearer FILE-SECRET', 'bad name': 'FILE-SECRET' } }],
        },
      },
      {
        v: 1,
        http: { allow: ['a.test'], inject: [{ hosts: ['*'], headers: { authorization: 'Bearer FILE-SECRET' } }] },
      },
      {
        v: 1,
        http: {
          allow: ['a.test'],
          inject: [{ hosts: ['a.test'], headers: { authorization: { env: 'TOKEN', value: 'FILE-SECRET' } } }],
        },
      },
    ];
    const messages: string[] = [];
    for (const d of docs) {
      try {
        compilePolicy(parsePolicyFile(d), { env: {} });
        messages.push('accepted');
      } catch (e) {
        messages.push(`${(e as Error).message} ${JSON.stringify(e)}`);
      }
    }
    try {
      compilePolicy(
        parsePolicyFile({
          v: 1,
          http: { allow: ['a.test'], inject: [{ hosts: ['a.test'], headers: { authorization: 'x\r\nFILE-SECRET' } }] },
        }),
        { env: {} },
      );
      messages.push('accepted');
    } catch (e) {
      messages.push(`${(e as Error).message} ${JSON.stringify(e)}`);
    }
    for (const text of [
      '{"v":1,"http":{"inject":[{"headers":{"authorization":"Bearer FILE-SECRET" x}}]}}',
      '{"v":1,"http":{"inject":[{"headers":{"authorization":"Bearer FILE-SECRET',
      '{"v":1,"name":"\u0001FILE-SECRET"}',
    ]) {
      try {
        parsePolicyText(text);
        messages.push('accepted');
      } catch (e) {
        messages.push(`${(e as Error).message} ${JSON.stringify(e)} ${String((e as { cause?: unknown }).cause)}`);
      }
    }
    expect(messages.filter((m) => m === 'accepted')).toEqual([]);
    expect(messages.join('\n')).not.toContain('FILE-SECRET');
  });
  it('an env-sourced secret that is missing is an error that names the variable, not a silent empty header', () => {
    expect(() =>
      compilePolicy(
        parsePolicyFile({
          v: 1,
          http: {
            allow: ['a.test'],
            inject: [{ hosts: ['a.test'], headers: { authorization: { env: 'NOPE_TOKEN' } } }],
          },
        }),
        { env: {} },
      ),
    ).toThrow(/NOPE_TOKEN/);
  });
});

/** An audit event after a JSON round trip: plain data, editable like a file on disk. */
interface EditableEvent {
  v: number | string;
  prev: string;
  hash: string;
  time: string;
  decision: string;
  rule?: string;
  extra?: number;
  principal: { kind: string; id: string };
  details: { nested?: { a: number[] }; [key: string]: unknown };
  [key: string]: unknown;
}

describe('attack: audit chain tampering', () => {
  const sink = createMemoryAuditSink();
  for (let i = 0; i < 5; i++) {
    sink.record({
      principal: { kind: 'plugin', id: 'p' },
      action: 'egress.http',
      target: `https://a.test/${i}`,
      decision: i % 2 ? 'deny' : 'allow',
      rule: 'r',
      details: { n: i, nested: { a: [1, 2] } },
    });
  }
  const good = sink.events();
  const copy = (): EditableEvent[] => good.map((e) => JSON.parse(JSON.stringify(e)));
  const asEvents = (events: EditableEvent[]): AuditEvent[] => events as unknown as AuditEvent[];
  const verdict = (events: EditableEvent[], head?: string) => {
    const v = verifyChain(asEvents(events), head === undefined ? {} : { head });
    return v.ok ? `ok:${v.count}` : `${v.code}@${v.index}`;
  };

  it('the untouched chain verifies', () => {
    expect(verdict(copy())).toBe('ok:5');
  });
  it.each([
    [
      'edit the decision',
      (x: EditableEvent[]) => {
        x[2]!.decision = x[2]!.decision === 'allow' ? 'deny' : 'allow';
      },
      'AUDIT_HASH_MISMATCH@2',
    ],
    [
      'edit a nested detail',
      (x: EditableEvent[]) => {
        x[2]!.details.nested!.a[1] = 3;
      },
      'AUDIT_HASH_MISMATCH@2',
    ],
    [
      'edit the time',
      (x: EditableEvent[]) => {
        x[2]!.time += ' ';
      },
      'AUDIT_HASH_MISMATCH@2',
    ],
    [
      'add a field',
      (x: EditableEvent[]) => {
        x[2]!.extra = 1;
      },
      'AUDIT_HASH_MISMATCH@2',
    ],
    [
      'add an own __proto__ key',
      (x: EditableEvent[]) => {
        x[2] = JSON.parse(JSON.stringify(x[2]).replace('"rule":"r"', '"rule":"r","__proto__":{"decision":"allow"}'));
      },
      'AUDIT_HASH_MISMATCH@2',
    ],
    [
      'remove an optional field',
      (x: EditableEvent[]) => {
        delete x[2]!.rule;
      },
      'AUDIT_HASH_MISMATCH@2',
    ],
    [
      'delete an event',
      (x: EditableEvent[]) => {
        x.splice(2, 1);
      },
      'AUDIT_PREV_MISMATCH@2',
    ],
    [
      'swap two events',
      (x: EditableEvent[]) => {
        [x[1], x[2]] = [x[2]!, x[1]!];
      },
      'AUDIT_PREV_MISMATCH@1',
    ],
    [
      'duplicate an event',
      (x: EditableEvent[]) => {
        x.splice(3, 0, x[2]!);
      },
      'AUDIT_PREV_MISMATCH@3',
    ],
    [
      'drop the first event',
      (x: EditableEvent[]) => {
        x.shift();
      },
      'AUDIT_PREV_MISMATCH@0',
    ],
    [
      'insert a correctly sealed forged event',
      (x: EditableEvent[]) => {
        x.splice(
          2,
          0,
          sealEvent(
            { principal: { kind: 'plugin', id: 'p' }, action: 'x', target: 't', decision: 'allow' },
            x[1]!.hash,
            x[1]!.time,
          ) as never,
        );
      },
      'AUDIT_PREV_MISMATCH@3',
    ],
    [
      'set v to 2',
      (x: EditableEvent[]) => {
        x[0]!.v = 2;
      },
      'AUDIT_VERSION@0',
    ],
    [
      'set v to "1"',
      (x: EditableEvent[]) => {
        x[0]!.v = '1';
      },
      'AUDIT_VERSION@0',
    ],
    [
      'uppercase the hash',
      (x: EditableEvent[]) => {
        x[0]!.hash = String(x[0]!.hash).toUpperCase();
      },
      'AUDIT_MALFORMED@0',
    ],
    [
      'an unknown principal kind',
      (x: EditableEvent[]) => {
        x[0]!.principal.kind = 'root';
      },
      'AUDIT_MALFORMED@0',
    ],
    [
      'a BigInt detail',
      (x: EditableEvent[]) => {
        x[0]!.details = { big: 2n ** 64n };
      },
      'AUDIT_MALFORMED@0',
    ],
    [
      'a cyclic detail',
      (x: EditableEvent[]) => {
        const c: Record<string, unknown> = {};
        c.self = c;
        x[0]!.details = c;
      },
      'AUDIT_MALFORMED@0',
    ],
    [
      'a null event',
      (x: EditableEvent[]) => {
        x[0] = null as never;
      },
      'AUDIT_MALFORMED@0',
    ],
  ])('%s is detected', (_what, tamper, expected) => {
    const x = copy();
    tamper(x);
    expect(verdict(x)).toBe(expected);
  });
  it('a hash computed over plain JSON.stringify (a different canonicalisation) is rejected', async () => {
    const { createHash } = await import('node:crypto');
    const x = copy();
    const { hash: _h, ...rest } = x[0]!;
    x[0]!.hash = createHash('sha256').update(JSON.stringify(rest)).digest('hex');
    expect(verdict(x)).toBe('AUDIT_HASH_MISMATCH@0');
  });
  it('truncating or resealing the tail verifies on its own but yields a different head than the stored one', () => {
    const stored = verifyChain(good);
    const cut = copy().slice(0, 3);
    const cutV = verifyChain(asEvents(cut));
    expect(cutV.ok && stored.ok && cutV.head !== stored.head).toBe(true);
    const resealed = copy();
    let prev = resealed[2]!.hash as string;
    for (let i = 3; i < resealed.length; i++) {
      const { v: _v, time, prev: _p, hash: _h, ...input } = resealed[i]!;
      resealed[i] = sealEvent(
        { ...(input as Record<string, unknown>), decision: 'allow' } as never,
        prev,
        time as string,
      ) as never;
      prev = resealed[i]!.hash as string;
    }
    const rv = verifyChain(asEvents(resealed));
    expect(rv.ok && stored.ok && rv.head !== stored.head).toBe(true);
  });
  it('a chain continued from a different head is rejected at its first event', () => {
    expect(verdict(copy(), 'f'.repeat(64))).toBe('AUDIT_PREV_MISMATCH@0');
  });
});
