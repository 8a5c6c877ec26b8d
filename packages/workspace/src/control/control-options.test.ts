import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rejectionOf } from '@trust/core/testing';
import { describe, expect, it } from 'vitest';
import { createAgentOpener } from './agent-runtime-hooks.js';
import { createTestAgents } from './control-fixture.test-helper.js';
import { type ControlServer, createControlServer } from './control-server.js';
import { type EventHub, createEventHub } from './event-hub.js';
import { createWorkspaceAgents } from './workspace-agents.js';
import { createScriptedProvider } from '@trust/agent-runtime';
import { controlServerOptionsSchema } from './control-options.js';
import { checkOptions } from './strict-options.js';
import { describeStrictOptions } from './strict-options.test-helper.js';

const dir = mkdtempSync(join(tmpdir(), 'control-options-'));
const provider = () => createScriptedProvider([]);
const makeServer = (x: Record<string, unknown>) =>
  createControlServer({ agents: createTestAgents(), token: 't'.repeat(43), ...x });
const releaseServer = (made: unknown) => (made as ControlServer).close();

describeStrictOptions('the control server checks its options once, strictly', [
  {
    name: 'createControlServer',
    make: makeServer,
    release: releaseServer,
    typo: 'allowedHost',
    meant: 'allowedHosts',
    wrong: 'studio.lan:7400',
  },
  {
    name: 'createControlServer',
    make: makeServer,
    release: releaseServer,
    typo: 'timeout',
    meant: 'timeouts',
    wrong: 'slow',
  },
  {
    name: 'createWorkspaceAgents',
    make: (x) => createWorkspaceAgents({ dir, ...x }),
    release: (made) => (made as { close(): void }).close(),
    typo: 'clok',
    meant: 'clock',
  },
  {
    name: 'createAgentOpener',
    make: (x) => createAgentOpener({ provider, ...x }),
    typo: 'maxTurn',
    meant: 'maxTurns',
    wrong: 0,
  },
  {
    name: 'createEventHub',
    make: (x) => createEventHub({ heartbeatMs: 60_000, ...x }),
    release: (made) => (made as EventHub).close(),
    typo: 'maxClient',
    meant: 'maxClients',
    wrong: -1,
  },
]);

describe('checked control options keep their identity', () => {
  it('returns the very options object with its injected agents and hooks', () => {
    const agents = createTestAgents();
    const onError = () => undefined;
    const options = { agents, port: 0, onError, meshWebSocket: false as const };
    const checked = checkOptions('createControlServer', controlServerOptionsSchema, options);
    expect(checked).toBe(options);
    expect([checked.agents, checked.onError]).toEqual([agents, onError]);
  });

  it('refuses a misspelt nested timeout, naming its path', async () => {
    const refused = await rejectionOf(async () => releaseServer(await makeServer({ timeouts: { headerMs: 5_000 } })));
    expect(refused).toRefuseOptions('AGENT_OPTIONS_INVALID', [
      { code: 'AGENT_OPTIONS_UNKNOWN_KEY', path: 'timeouts.headerMs', hint: 'did you mean "headersMs"?' },
    ]);
  });

  it('refuses an agents registry without list() and open() before binding anything', async () => {
    await expect(createControlServer({ agents: {} as never })).rejects.toThrowTrustError('AGENT_OPTIONS_INVALID');
  });
});

describe('injected hook objects are checked by what they must have, not refused for what else they hold', () => {
  it('accepts plugin actions with members of their own (close), refuses a hook that is no function', async () => {
    const pluginActions = { pluginsLoaded: () => [], close: async () => undefined };
    const options = { agents: createTestAgents(), token: 't'.repeat(43), pluginActions };
    expect(checkOptions('createControlServer', controlServerOptionsSchema, options)).toBe(options);
    const server = await createControlServer(options);
    await server.close();
    const wrong = { ...options, pluginActions: { pluginLoad: 'load' } };
    await expect(createControlServer(wrong as never)).rejects.toThrowTrustError('AGENT_OPTIONS_INVALID');
  });
});
