import { describe, expect, it } from 'vitest';
import {
  DEFAULT_DOC,
  applyForm,
  joinCommand,
  parseDoc,
  problemsUnder,
  readForm,
  ruleSection,
  splitCommand,
  type StartDoc,
} from './sandbox-request';

describe('splitCommand / joinCommand (no shell: spaces and quotes only)', () => {
  it.each([
    ['echo hi', ['echo', 'hi']],
    ['  sleep   30 ', ['sleep', '30']],
    [`sh -c 'echo $HOME; ls'`, ['sh', '-c', 'echo $HOME; ls']],
    [`echo "a 'b'" ''`, ['echo', "a 'b'", '']],
    ['echo `id` $(id) a\\ b', ['echo', '`id`', '$(id)', 'a\\', 'b']],
  ])('%s', (line, argv) => {
    expect(splitCommand(line)).toEqual(argv);
    expect(splitCommand(joinCommand(argv))).toEqual(argv);
  });
});

describe('the form over the request document', () => {
  it('reads and writes fields, keeping what the form does not show', () => {
    let doc: StartDoc = {
      ...DEFAULT_DOC,
      policy: { ...DEFAULT_DOC.policy, capabilities: ['stdout', 'args'], unixSockets: [] },
    };
    doc = applyForm(doc, 'network', 'http');
    doc = applyForm(doc, 'hosts', '127.0.0.1:8080\n\n api.example.com ');
    doc = applyForm(doc, 'guard', 'default');
    doc = applyForm(doc, 'readDirs', '/opt/node');
    doc = applyForm(doc, 'timeoutSeconds', '5');
    doc = applyForm(doc, 'command', 'sleep 30');
    expect(doc).toEqual({
      argv: ['sleep', '30'],
      policy: {
        v: 1,
        capabilities: ['stdout', 'args', 'http', 'fs:ro:/opt/node'],
        limits: { timeMs: 5000 },
        unixSockets: [],
      },
      egress: { v: 1, http: { allow: ['127.0.0.1:8080', 'api.example.com'] }, guard: { mode: 'default' } },
    });
    expect(readForm(doc)).toMatchObject({
      network: 'http',
      guard: 'default',
      hosts: '127.0.0.1:8080\napi.example.com',
    });
    const off = applyForm(doc, 'network', 'none');
    expect(off.egress).toBeUndefined();
    expect(off.policy.capabilities).toEqual(['stdout', 'args', 'fs:ro:/opt/node']);
  });

  it('standard input goes into the request with the stdin grant; emptied, both leave', () => {
    const withInput = applyForm(DEFAULT_DOC, 'stdin', 'line one\n');
    expect(withInput.stdin).toBe('line one\n');
    expect(withInput.policy.capabilities).toEqual(['stdout', 'stderr', 'stdin']);
    expect(readForm(withInput).stdin).toBe('line one\n');
    const again = applyForm(withInput, 'stdin', 'two');
    expect(again.policy.capabilities).toEqual(['stdout', 'stderr', 'stdin']);
    const cleared = applyForm(again, 'stdin', '');
    expect('stdin' in cleared).toBe(false);
    expect(cleared.policy.capabilities).toEqual(['stdout', 'stderr']);
  });

  it('a timeout that is not a number goes into the JSON as written, for the server to refuse in place', () => {
    expect((applyForm(DEFAULT_DOC, 'timeoutSeconds', 'soon').policy.limits as { timeMs: unknown }).timeMs).toBe('soon');
  });

  it.each([
    ['{', false],
    ['[]', false],
    ['{"argv":"echo hi","policy":{}}', false],
    ['{"argv":["echo"],"policy":null}', false],
    ['{"argv":["echo"],"policy":{"v":1}}', true],
  ])('parseDoc(%s) ok=%s', (text, ok) => expect(parseDoc(text).ok).toBe(ok));
});

describe('ruleSection: a decision rule to its place in the egress policy', () => {
  it.each([
    ['policy-file:http.allow', 'http.allow'],
    ['policy-file:http.allow:127.0.0.1:8080', 'http.allow'],
    ['mine:http.deny', 'http.deny'],
    ['p:http.inject[2]', 'http.inject.2'],
    ['p:tcp.allow:db.example.com:5432', 'tcp.allow'],
    ['block-link-local', 'guard'],
    ['sandbox-capability', undefined],
    [undefined, undefined],
  ])('%s → %s', (rule, want) => expect(ruleSection(rule)).toBe(want));
});

it('problemsUnder picks a place and everything under it', () => {
  const ps = [{ path: 'argv.1' }, { path: 'argv' }, { path: 'argvx' }, { path: 'policy.v' }];
  expect(problemsUnder(ps, 'argv')).toEqual([{ path: 'argv.1' }, { path: 'argv' }]);
});
