/** Messages between a plugin's WASI imports (worker) and the host's network broker (main thread). */

export interface BridgeHttpRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: readonly (readonly [string, string])[];
  readonly body?: Uint8Array;
  /** The guest's own timeout (from request-options), capped by the host's. */
  readonly timeoutMs?: number;
}

export type BridgeHttpResult =
  | { readonly kind: 'ok'; readonly status: number; readonly headers: readonly (readonly [string, string])[]; readonly body: Uint8Array }
  | { readonly kind: 'error'; readonly error: 'denied' | 'timeout' | 'refused' | 'dns' | 'too-large' | 'other'; readonly message: string };

export type BridgeTcpResult =
  | { readonly kind: 'ok'; readonly id?: number; readonly data?: Uint8Array; readonly closed?: boolean }
  | { readonly kind: 'error'; readonly error: 'denied' | 'refused' | 'timeout' | 'closed' | 'other'; readonly message: string };
