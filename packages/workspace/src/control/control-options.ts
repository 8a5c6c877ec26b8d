import { z } from 'zod';
import { meshWsLimitsSchema } from '@trust/agent-runtime/host';
import { triggerLimitsSchema } from '@trust/agent-runtime/host';
import { count, fn, positive, withMethods } from './strict-options.js';

// The strict schemas of the control server's `create*` options (createControlServer,
// createWorkspaceAgents, createAgentOpener and the server's event hub), each checked once at its
// boundary.

const audit = withMethods('audit sink, e.g. createMemoryAuditSink()', 'record');

const timeoutsSchema = z
  .object({
    headersMs: positive('time to receive the request headers in ms, e.g. 10000').optional(),
    requestMs: positive('time to receive the whole request in ms, e.g. 10000').optional(),
    keepAliveMs: positive('idle keep-alive time in ms, e.g. 5000').optional(),
    checkIntervalMs: positive('how often the deadlines are checked in ms, e.g. 1000').optional(),
  })
  .strict();

const meshWebSocketSchema = z
  .object({
    maxSockets: count('open mesh sockets at once, e.g. 64').optional(),
    maxSocketsPerAddress: count('open mesh sockets from one address, e.g. 16').optional(),
    limits: meshWsLimitsSchema.optional().describe('per-connection limits, e.g. { maxFrameBytes: 1048576 }'),
    audit: audit.optional(),
  })
  .strict();

const pluginActionsSchema = z
  .object({
    pluginsLoaded: fn('lists the loaded plugins, e.g. () => host.list()').optional(),
    pluginLoad: fn('loads a plugin, e.g. (input) => host.load(input)').optional(),
    pluginCall: fn('calls an export, e.g. (id, name, args) => host.call(id, name, args)').optional(),
    pluginUnload: fn('unloads a plugin, e.g. (id) => host.unload(id)').optional(),
    pluginUpload: fn('stores an uploaded package, e.g. (input) => host.upload(input)').optional(),
  })
  // An implementation of the hooks, not a settings bag: members of its own (e.g. close) are its business.
  .loose();

/** The strict schema of `createControlServer`'s options. */
export const controlServerOptionsSchema = z
  .object({
    agents: withMethods('the workspace agents, e.g. createWorkspaceAgents({ dir })', 'list', 'open'),
    token: z.string().min(1).optional().describe('the bearer token to require, e.g. generateControlToken()'),
    tokenFile: z.string().min(1).optional().describe('where the token lives, e.g. ".trust/control-token"'),
    port: z.number().int().min(0).max(65_535).optional().describe('the port, 0 for an ephemeral one, e.g. 7400'),
    host: z.string().min(1).optional().describe('the address to bind, e.g. "127.0.0.1" or "::1"'),
    allowLan: z.boolean().optional().describe('opt in to a non-loopback bind, e.g. true'),
    allowedHosts: z
      .array(z.string().min(1))
      .optional()
      .describe('extra host:port values of the Host header, e.g. ["studio.lan:7400"]; [] or absent: loopback only'),
    studioDir: z.string().min(1).optional().describe('folder of the built studio, e.g. "apps/studio/dist"'),
    csp: z.string().optional().describe('a Content-Security-Policy override (tests only), e.g. "default-src \'none\'"'),
    maxBodyBytes: count('largest JSON body in bytes, e.g. 65536').optional(),
    plugins: fn('host data of the plugin inspector, e.g. () => []').optional(),
    sandboxRuns: fn('host data of the sandbox-runs view, e.g. () => []').optional(),
    auditLogs: fn("the host's decision logs, e.g. () => []").optional(),
    policyEnv: fn('values for env header injections, e.g. () => process.env').optional(),
    policyFile: withMethods(
      'the egress policy file store, e.g. createPolicyFileStore(path)',
      'read',
      'write',
    ).optional(),
    sandboxControl: withMethods(
      'starts and follows sandbox runs, e.g. createSandboxControl({ … })',
      'validate',
      'start',
      'list',
      'get',
      'events',
      'kill',
    ).optional(),
    mesh: withMethods('the agents receiving mesh mail, e.g. createLocalMesh()', 'register', 'lookup').optional(),
    meshWebSocket: z
      .union([meshWebSocketSchema, z.literal(false)])
      .optional()
      .describe('mesh WebSocket caps, or false to turn it off, e.g. { maxSockets: 64 }'),
    timeouts: timeoutsSchema.optional().describe('deadlines of slow clients, e.g. { headersMs: 10000 }'),
    maxConnections: count('open connections at once, e.g. 128').optional(),
    audit: audit.optional(),
    pluginActions: pluginActionsSchema.optional().describe('the plugin actions, e.g. { pluginLoad }'),
    onError: fn('receives unexpected handler errors, e.g. (e) => console.error(e)').optional(),
  })
  .strict()
  .describe('createControlServer options, e.g. { agents, tokenFile }');

/** The strict schema of `createWorkspaceAgents`'s options. */
export const workspaceAgentsOptionsSchema = z
  .object({
    dir: z.string().min(1).describe('folder of <id>.adf files, e.g. "agents"'),
    open: fn('opens an agent with its runtime, e.g. createAgentOpener({ provider })').optional(),
    clock: fn('clock, e.g. () => new Date()').optional(),
  })
  .strict()
  .describe('createWorkspaceAgents options, e.g. { dir: "agents" }');

/** The strict schema of `createAgentOpener`'s options. */
export const agentOpenerOptionsSchema = z
  .object({
    provider: fn('the model provider of each agent, e.g. (id) => createScriptedProvider([])'),
    egress: fn('the egress clients of each agent, e.g. (id) => ({ http })').optional(),
    clock: fn('clock, e.g. () => new Date()').optional(),
    maxTurns: count('model turns per activation, e.g. 8').optional(),
    scheduler: withMethods('the timer scheduler, e.g. nodeTimerScheduler', 'setTimeout', 'clearTimeout').optional(),
    triggerLimits: triggerLimitsSchema.optional().describe('bounds on trigger firings, e.g. { maxDepth: 3 }'),
    mcp: fn("how each agent's MCP servers are placed and sandboxed, e.g. (id) => ({ sandbox })").optional(),
    identityKeys: z
      .custom<object>(
        (v) => typeof v === 'object' && v !== null && 'owner' in v && 'runtime' in v && 'sealTo' in v,
        'expected identity keys ({ owner, runtime, sealTo })',
      )
      .optional()
      .describe("the keys agents' identities are sealed to, e.g. loadOrCreateIdentityKeys(file)"),
    mesh: withMethods(
      'the workspace mesh agents message over, e.g. createLocalMesh()',
      'register',
      'lookup',
    ).optional(),
  })
  .strict()
  .describe('createAgentOpener options, e.g. { provider: (id) => createScriptedProvider([]) }');

/** The strict schema of the control server's event hub options. */
export const eventHubOptionsSchema = z
  .object({
    heartbeatMs: positive('keep-alive comment interval in ms, e.g. 15000').optional(),
    maxClients: count('SSE clients at once (the oldest is dropped), e.g. 32').optional(),
  })
  .strict()
  .describe('createEventHub options, e.g. { heartbeatMs: 15000 }');
