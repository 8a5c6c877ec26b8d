import { describe, expect, it } from 'vitest';
import { createEnvelopeKeyPair } from '../identity/envelope.js';
import { createIdentityTools } from '../identity/identity-tools.js';
import { createScriptedProvider } from '../providers/scripted-provider.js';
import { createModelInvokeTool } from '../tools/code-methods.js';
import { createSysFetchTool } from '../tools/fetch-tool.js';
import { checkOptions } from './strict-options.js';
import { describeStrictOptions } from './strict-options.test-helper.js';
import { identityToolsDepsSchema, modelInvokeToolDepsSchema } from './tool-factory-options.js';

const egress = { fetch: async () => new Response('') };
const owner = createEnvelopeKeyPair();
const runtime = createEnvelopeKeyPair();
const sealTo = { owner: owner.publicKey, runtime: runtime.publicKey };
const provider = () => createScriptedProvider([]);

describeStrictOptions('tool factories check their dependencies once, strictly', [
  {
    name: 'createSysFetchTool',
    make: (x) =>
      createSysFetchTool({
        clients: { default: egress as never },
        runner: () => undefined as never,
        agentId: 'a',
        ...x,
      }),
    typo: 'agentID',
    meant: 'agentId',
    wrong: '',
  },
  {
    name: 'createModelInvokeTool',
    make: (x) => createModelInvokeTool({ provider, ...x }),
    typo: 'onModelCal',
    meant: 'onModelCall',
  },
  {
    name: 'createIdentityTools',
    make: (x) => createIdentityTools({ privateKey: runtime.privateKey, sealTo, ...x }),
    typo: 'sealto',
    meant: 'sealTo',
    wrong: [owner.publicKey],
  },
]);

describe('checked tool dependencies keep their identity', () => {
  it('returns the very dependency objects', () => {
    const deps = { provider, onModelCall: () => undefined };
    expect(checkOptions('createModelInvokeTool', modelInvokeToolDepsSchema, deps)).toBe(deps);
    const id = { privateKey: runtime.privateKey, sealTo };
    const checked = checkOptions('createIdentityTools', identityToolsDepsSchema, id);
    expect(checked).toBe(id);
    expect(checked.sealTo).toBe(sealTo);
  });

  it('refuses a public key where the private one belongs', () => {
    const wrong = { privateKey: runtime.publicKey as never, sealTo };
    expect(() => createIdentityTools(wrong)).toThrowTrustError('AGENT_OPTIONS_INVALID');
  });
});
