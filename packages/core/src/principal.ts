/**
 * Who is acting. Every egress request, tool call and audit event names a principal, so a policy
 * can treat one plugin, sandbox run or agent origin differently from another.
 *
 * - `owner`: the human who owns the agent or host.
 * - `llm`: the agent's model loop.
 * - `code`: agent code without authorization.
 * - `authorized-code`: agent code from a file the owner authorized.
 * - `plugin`: a WebAssembly plugin instance.
 * - `process`: a sandboxed OS process run.
 * - `peer`: a remote agent or network peer.
 */
export type PrincipalKind = 'owner' | 'llm' | 'code' | 'authorized-code' | 'plugin' | 'process' | 'peer';

/** A principal: its kind, a stable id, and optionally the agent it acts for. */
export interface Principal {
  readonly kind: PrincipalKind;
  readonly id: string;
  readonly agent?: string;
}

/**
 * All principal kinds, in a fixed order.
 *
 * @example
 * PRINCIPAL_KINDS.includes('plugin'); // true
 */
export const PRINCIPAL_KINDS: readonly PrincipalKind[] = Object.freeze([
  'owner',
  'llm',
  'code',
  'authorized-code',
  'plugin',
  'process',
  'peer',
]);

/**
 * Builds a frozen principal.
 *
 * @example
 * createPrincipal('plugin', 'weather', 'agent-1'); // { kind: 'plugin', id: 'weather', agent: 'agent-1' }
 */
export function createPrincipal(kind: PrincipalKind, id: string, agent?: string): Principal {
  return Object.freeze(agent === undefined ? { kind, id } : { kind, id, agent });
}
