import type { PolicyErrorCode } from './error-codes.js';
import { z } from 'zod';
import { parseCidr } from './cidr.js';
import { tryParseHostRule } from './host-rule.js';

/** Extra data carried by custom issues so they map to our own problem codes. */
export interface IssueParams {
  readonly trustCode: PolicyErrorCode;
  readonly hint: string;
}

const hostRule = z
  .string()
  .superRefine((text, ctx) => {
    const r = tryParseHostRule(text);
    if (!r.ok) {
      ctx.addIssue({
        code: 'custom',
        message: r.error.message,
        params: { trustCode: 'POLICY_HOST_RULE_INVALID', hint: r.error.hint ?? '' } satisfies IssueParams,
      });
    }
  })
  .describe(
    'A host rule: "api.example.com", "*.example.com" (subdomains only), "10.0.0.5", "[::1]:8080" or ' +
      '"10.0.0.0/8"; an optional ":port" on names and IPs.',
  );

const cidr = z
  .string()
  .superRefine((text, ctx) => {
    if (!parseCidr(text)) {
      ctx.addIssue({
        code: 'custom',
        message: `${JSON.stringify(text)} is not a valid CIDR block`,
        params: {
          trustCode: 'POLICY_CIDR_INVALID',
          hint: 'write e.g. "10.1.0.0/16" or "fd00::/8"',
        } satisfies IssueParams,
      });
    }
  })
  .describe('An address block such as "10.1.0.0/16" or "fd00::/8"; a bare address is a single host.');

const allowList = z.array(hostRule).describe('Destinations to allow. An empty list allows nothing.');
const denyList = z
  .array(hostRule)
  .describe('Destinations to deny even when an allow rule matches. Omitted or [] denies nothing extra.');

const headerValue = z
  .union([
    z.string().describe('A literal header value (a secret: never logged or echoed).'),
    z
      .object({
        env: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
          .describe('Name of the host environment variable holding the value, e.g. "GITHUB_TOKEN".'),
      })
      .strict()
      .describe('Read the value from a host environment variable when the policy is compiled.'),
  ])
  .describe('A header value: a string, or { "env": "NAME" } to take it from the host environment.');

const injectRule = z
  .object({
    hosts: z.array(hostRule).describe('Hosts whose requests get the headers. [] injects nothing.'),
    headers: z
      .record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/), headerValue)
      .describe('Header name to value; a header the caller sent with the same name is replaced.'),
  })
  .strict()
  .describe('Headers (usually credentials) the host adds to matching requests, so the caller never holds them.');

const peerSection = (kind: string) =>
  z
    .object({
      allow: allowList.describe(
        `${kind} peers to allow ("db.example.com:5432", "10.0.0.0/8"). An empty list allows nothing.`,
      ),
      deny: denyList.optional(),
    })
    .strict()
    .describe(`Outbound ${kind}. Omitted means no ${kind} at all.`);

/**
 * The zod schema of a policy file (format `v: 1`). Objects are strict: unknown keys are errors.
 * Use `parsePolicyFile`, which turns zod issues into `POLICY_INVALID` problems with hints.
 *
 * @example
 * const json = policyFileSchema.toJSONSchema(); // for editors and docs
 */
export const policyFileSchema = z
  .object({
    v: z.literal(1).describe('Format version of the policy file; always 1.'),
    name: z.string().min(1).max(100).optional().describe('A short name used in decisions and audit events.'),
    description: z.string().max(2000).optional().describe('What this policy is for, for people.'),
    http: z
      .object({
        allow: allowList,
        deny: denyList.optional(),
        methods: z
          .array(
            z
              .string()
              .regex(/^[A-Za-z][A-Za-z-]*$/)
              .describe('An HTTP method, e.g. "GET".'),
          )
          .optional()
          .describe('Allowed HTTP methods. Omitted means any method; [] allows none.'),
        inject: z.array(injectRule).optional().describe('Header injection rules, applied in order.'),
      })
      .strict()
      .optional()
      .describe('Outbound HTTP(S) and WebSocket. Omitted means no HTTP at all.'),
    tcp: peerSection('TCP').optional(),
    udp: peerSection('UDP').optional(),
    guard: z
      .object({
        mode: z
          .enum(['default', 'allow-local', 'strict'])
          .optional()
          .describe('Address guard mode for the egress engine. Omitted means "default".'),
        protectedPorts: z
          .array(z.number().int().min(1).max(65535).describe('A port number.'))
          .optional()
          .describe('Ports the guard refuses on any address. Omitted means the engine default.'),
        allowCidrs: z
          .array(cidr)
          .optional()
          .describe('Blocks the guard lets through although they are private or local. Omitted or [] adds none.'),
        denyCidrs: z.array(cidr).optional().describe('Extra blocks the guard refuses. Omitted or [] adds none.'),
      })
      .strict()
      .optional()
      .describe('Settings for the address guard the egress engine applies on the dialled address.'),
  })
  .strict()
  .describe('A trust egress policy file.');

/** A validated policy file. */
export type PolicyFile = z.infer<typeof policyFileSchema>;
