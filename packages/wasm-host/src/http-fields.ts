import type { BridgeHttpResult } from './net-protocol.js';

/** Header names a guest may not set (hop-by-hop or owned by the connection). */
const FORBIDDEN = new Set(['connection', 'keep-alive', 'host', 'proxy-connection', 'transfer-encoding', 'upgrade']);
/** An HTTP token (RFC 9110): valid header names and methods. */
export const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * The `wasi:http` `fields` resource of one instance. Fields handed to a request or returned in
 * a response are locked (in `locked`): mutations then fail with `immutable`.
 */
export function createFieldsClass() {
  const locked = new WeakSet<object>();
  class Fields {
    entriesList: [string, Uint8Array][] = [];
    static fromList(entries: [string, Uint8Array][]): Fields {
      const f = new Fields();
      for (const [k, v] of entries) f.append(k, v);
      return f;
    }
    get(name: string): Uint8Array[] {
      const n = name.toLowerCase();
      return this.entriesList.filter(([k]) => k.toLowerCase() === n).map(([, v]) => v);
    }
    has(name: string): boolean {
      return this.get(name).length > 0;
    }
    set(name: string, values: Uint8Array[]): void {
      this.checkName(name);
      this.delete(name);
      for (const v of values) this.entriesList.push([name, v]);
    }
    delete(name: string): void {
      if (locked.has(this)) throw { tag: 'immutable' };
      const n = name.toLowerCase();
      this.entriesList = this.entriesList.filter(([k]) => k.toLowerCase() !== n);
    }
    append(name: string, value: Uint8Array): void {
      this.checkName(name);
      this.entriesList.push([name, value]);
    }
    entries(): [string, Uint8Array][] {
      return this.entriesList.map(([k, v]) => [k, v]);
    }
    clone(): Fields {
      const f = new Fields();
      f.entriesList = this.entries();
      return f;
    }
    checkName(name: string): void {
      if (locked.has(this)) throw { tag: 'immutable' };
      if (!TOKEN.test(name)) throw { tag: 'invalid-syntax' };
      if (FORBIDDEN.has(name.toLowerCase())) throw { tag: 'forbidden' };
    }
  }
  return { Fields, locked };
}

/** The wasi:http `error-code` for a broker error. */
export function errorCode(res: Extract<BridgeHttpResult, { kind: 'error' }>): unknown {
  switch (res.error) {
    case 'denied':
      return { tag: 'HTTP-request-denied' };
    case 'timeout':
      return { tag: 'connection-timeout' };
    case 'refused':
      return { tag: 'connection-refused' };
    case 'dns':
      return { tag: 'DNS-error', val: { rcode: undefined, infoCode: undefined } };
    case 'too-large':
      return { tag: 'HTTP-response-body-size', val: undefined };
    case 'body-too-large':
      return { tag: 'HTTP-request-body-size', val: undefined };
    case 'invalid-uri':
      return { tag: 'HTTP-request-URI-invalid' };
    default:
      return { tag: 'internal-error', val: res.message };
  }
}
