/** Messages between a plugin's WASI imports (worker) and the host's network broker (main thread). */

/** `http.start`: a request whose body follows in `http.write` calls unless `end` is set. */
export interface BridgeHttpStart {
  readonly method: string;
  readonly url: string;
  readonly headers: readonly (readonly [string, string])[];
  /** The body written so far (all of it when `end`). */
  readonly body?: Uint8Array;
  readonly end: boolean;
  /** The guest's own timeout (from request-options), capped by the host's. */
  readonly timeoutMs?: number;
}

/** What the broker answers to the `http.*` calls. */
export type BridgeHttpResult =
  | { readonly kind: 'ok'; readonly id: number }
  | { readonly kind: 'head'; readonly status: number; readonly headers: readonly (readonly [string, string])[] }
  | { readonly kind: 'chunk'; readonly data: Uint8Array; readonly done: boolean }
  | {
      readonly kind: 'error';
      readonly error:
        | 'denied'
        | 'timeout'
        | 'refused'
        | 'dns'
        | 'too-large'
        | 'body-too-large'
        | 'invalid-uri'
        | 'closed'
        | 'other';
      readonly message: string;
    };

export type BridgeTcpResult =
  | {
      readonly kind: 'ok';
      readonly id?: number;
      readonly data?: Uint8Array;
      readonly closed?: boolean;
      readonly datagrams?: readonly Uint8Array[];
    }
  | {
      readonly kind: 'error';
      readonly error: 'denied' | 'refused' | 'timeout' | 'closed' | 'too-large' | 'other';
      readonly message: string;
    };

/** An IP address as the guest's `ip-address` variant: 4 bytes, or 8 16-bit groups. */
export interface GuestIpAddress {
  readonly tag: 'ipv4' | 'ipv6';
  readonly val: readonly number[];
}

/**
 * A name lookup through the egress guard; `error` is the guest's `wasi:sockets` error code.
 * Addresses arrive already in the guest's form, so the worker needs no address parser.
 */
export type BridgeLookupResult =
  | { readonly kind: 'ok'; readonly addresses: readonly GuestIpAddress[] }
  | {
      readonly kind: 'error';
      readonly error:
        | 'access-denied'
        | 'name-unresolvable'
        | 'temporary-resolver-failure'
        | 'permanent-resolver-failure';
      readonly message: string;
    };
