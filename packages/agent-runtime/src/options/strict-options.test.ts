import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createAdf } from '../adf/adf-file.js';
import { createToolRegistry } from '../gate/tool-definition.js';
import { createToolGate } from '../gate/tool-gate.js';
import { createIdentity } from '../identity/did-key.js';
import { createTimerClock } from '../loop/timer-clock.js';
import { createAgentMessaging } from '../messaging/agent-messaging.js';
import { createIngress } from '../messaging/ingress.js';
import { DEFAULT_INGRESS_SETTINGS } from '../messaging/ingress-settings.js';
import { createMeshWsSession } from '../messaging/mesh-ws-session.js';
import { createReplayGuard } from '../messaging/replay-guard.js';
import { createAnthropicProvider } from '../providers/anthropic-provider.js';
import { createOpenAIProvider } from '../providers/openai-provider.js';
import { createShell } from '../shell/shell-interpreter.js';
import { createExecutionTools } from '../tools/built-in-tools.js';
import { createTriggerDispatcher } from '../triggers/trigger-dispatcher.js';
import { describeStrictOptions } from './strict-options.test-helper.js';

// Every create* of the package that takes an options object checks it once with a strict schema:
// an unknown key (here a misspelt one) is refused with a "did you mean" hint, a wrong value with
// the field's example, every problem at once.
const dir = mkdtempSync(join(tmpdir(), 'strict-options-'));
const adf = createAdf(join(dir, 'agent.adf'));
afterAll(() => adf.close());

const now = () => Date.now();
const clock = () => new Date();
const egress = { fetch: async () => ({ status: 200 }) };
const shellGate = { preflight: async () => ({ allow: true }), call: async () => undefined };

type Make = (extra: Record<string, unknown>) => unknown;
const CASES: ReadonlyArray<readonly [string, Make, string, string]> = [
  // [function, call with extra options, a misspelt key, the key it should be]
  ['createAdf', (x) => createAdf(join(dir, `${Math.random()}.adf`), { ...x }), 'clok', 'clock'],
  ['createToolGate', (x) => createToolGate({ adf, registry: createToolRegistry(), ...x }), 'aprover', 'approver'],
  ['createShell', (x) => createShell({ gate: shellGate as never, ...x }), 'maxDepht', 'maxDepth'],
  [
    'createOpenAIProvider',
    (x) => createOpenAIProvider({ baseUrl: 'https://api.example.com/v1', model: 'm', egress: egress as never, ...x }),
    'strem',
    'stream',
  ],
  [
    'createAnthropicProvider',
    (x) => createAnthropicProvider({ baseUrl: 'https://api.example.com', model: 'm', egress: egress as never, ...x }),
    'maxToken',
    'maxTokens',
  ],
  ['createAgentMessaging', (x) => createAgentMessaging({ adf, identity: createIdentity(), ...x }), 'mesh_', 'mesh'],
  [
    'createIngress',
    (x) =>
      createIngress({
        self: { did: createIdentity().did },
        settings: () => DEFAULT_INGRESS_SETTINGS,
        replay: createReplayGuard({ now }),
        now,
        store: () => undefined,
        ...x,
      }),
    'audti',
    'audit',
  ],
  ['createReplayGuard', (x) => createReplayGuard({ now, ...x }), 'maxEntrie', 'maxEntries'],
  [
    'createMeshWsSession',
    (x) =>
      createMeshWsSession({
        serverDid: createIdentity().did,
        ingest: async () => ({ accepted: true }) as never,
        peer: { send: () => undefined, close: () => undefined },
        ...x,
      }),
    'remot',
    'remote',
  ],
  [
    'createTriggerDispatcher',
    (x) =>
      createTriggerDispatcher({
        adf,
        runner: { runSystemLambda: async () => ({}) } as never,
        wake: () => ({ woke: false }) as never,
        ...x,
      }),
    'limit',
    'limits',
  ],
  [
    'createTimerClock',
    (x) => createTimerClock({ timers: adf.timers, clock, fire: async () => undefined, ...x }),
    'onErorr',
    'onError',
  ],
  [
    'createExecutionTools',
    (x) =>
      createExecutionTools({
        gate: () => undefined as never,
        runner: () => undefined as never,
        chat: () => undefined as never,
        agentId: 'a',
        ...x,
      }),
    'clok',
    'clock',
  ],
];

describeStrictOptions(
  'create* options are checked once with a strict schema',
  CASES.map(([name, make, typo, meant]) => ({ name, make, typo, meant })),
);
