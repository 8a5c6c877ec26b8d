import { z } from 'zod';
import { guardField } from './dispatcher.js';
import { auditSchema, duration, policySchema, port, principalSchema, withMethods } from './egress-options.js';
import { clientLimitsSchema } from './proxy-client-limits.js';
import { limitsSchema } from './limits.js';

// The options of `createEgressProxy`, checked once at its start (see `checkEgressOptions`).

const loopback = z.enum(['127.0.0.1', '::1'], {
  error: 'the proxy listens only on loopback (127.0.0.1 or ::1) or on a unix socket',
});

const listenSchema = z
  .object({
    path: z.string().min(1).optional().describe('a unix socket path, e.g. "/run/trust/run-1.sock"'),
    host: loopback.optional().describe('a loopback address, e.g. "127.0.0.1"'),
    port: port('a TCP port, 0 = pick one, e.g. 0', 0).optional(),
  })
  .strict()
  .refine(
    (l) =>
      l.path !== undefined
        ? l.host === undefined && l.port === undefined
        : l.host !== undefined && l.port !== undefined,
    { message: 'give either { path } or both { host, port }' },
  )
  .describe('where the proxy listens, e.g. { host: "127.0.0.1", port: 0 } or { path: "/run/trust/p.sock" }');

const relayCount = (what: string) => z.number().int().positive().max(65_535).optional().describe(what);

/** The strict schema of `EgressProxyOptions`; every field described with a valid example. */
export const proxyOptionsSchema = z
  .object({
    policy: policySchema,
    guard: guardField,
    audit: auditSchema.optional(),
    principal: principalSchema,
    listen: listenSchema,
    limits: limitsSchema.optional(),
    clientLimits: clientLimitsSchema.optional(),
    connectionBudget: withMethods('a budget shared by proxies, e.g. createConnectionBudget()', 'tryAcquire').optional(),
    allowTrace: z.boolean().optional().describe('forward TRACE when the policy allows it, e.g. false'),
    connectAs: z.enum(['http', 'tcp']).optional().describe('how CONNECT tunnels are judged, e.g. "http"'),
    closeGraceMs: duration('grace for forwarded requests at close() in ms, e.g. 1000', 0).optional(),
    udp: z
      .object({
        announce: z
          .object({
            host: loopback.describe('e.g. "127.0.0.1"'),
            port: port('the datagram bridge port, e.g. 40000'),
          })
          .strict()
          .describe('where clients send datagrams, e.g. { host: "127.0.0.1", port: 40000 }'),
        limits: z
          .object({
            maxAssociations: relayCount('open UDP associations, e.g. 64'),
            maxPeersPerAssociation: relayCount('peers of one association, e.g. 256'),
            maxPending: relayCount('datagrams waiting for a verdict, e.g. 16'),
          })
          .strict()
          .optional()
          .describe('relay limits, e.g. { maxAssociations: 64 }'),
      })
      .strict()
      .optional()
      .describe('SOCKS5 UDP ASSOCIATE, e.g. { announce: { host: "127.0.0.1", port: 40000 } }'),
  })
  .strict();
