import { writeThroughStream } from './output-stream.js';
import { randomBytes } from 'node:crypto';
import * as shim from '@bytecodealliance/preview2-shim';
import { createGuestFilesystem } from './fs/guest-filesystem.js';
import { createHttpImports } from './http-imports.js';
import type { ImportPlan } from './import-plan.js';
import type { BridgeHttpResult, BridgeLookupResult, BridgeTcpResult } from './net-protocol.js';
import { createSocketImports } from './socket-imports.js';
import type { SyncCall } from './sync-bridge.js';

/**
 * The parts of preview2-shim this file uses, as the host uses them. The shim's own declarations
 * type its interfaces for the versioned import object, which the host does not build; here each
 * interface is an import-object entry and each class only a base the host's classes extend.
 */
interface ShimView {
  readonly io: {
    readonly streams: Record<string, unknown> & {
      readonly InputStream: new () => object;
      readonly OutputStream: new () => object;
    };
    readonly error: Record<string, unknown> & { readonly Error: new (payload: unknown) => object };
    readonly poll: Record<string, unknown>;
  };
  readonly clocks: {
    readonly monotonicClock: Record<string, unknown> & { subscribeDuration(ns: bigint): unknown };
    readonly wallClock: Record<string, unknown>;
  };
  readonly random: { readonly random: Record<string, unknown>; readonly insecure: Record<string, unknown> };
  readonly cli: { readonly terminalInput: Record<string, unknown>; readonly terminalOutput: Record<string, unknown> };
}
const wasi = shim as unknown as ShimView;

/** Thrown by the guest's `wasi:cli/exit` instead of exiting the host process. */
export class GuestExit extends Error {
  readonly exitCode: number;
  constructor(code: number) {
    super(`guest exited with code ${code}`);
    this.name = 'GuestExit';
    this.exitCode = code;
  }
}

export interface WasiImportOptions {
  /** Receives captured stdout/stderr bytes (only for streams the plan captures). */
  readonly onOutput: (stream: 'stdout' | 'stderr', data: Uint8Array) => void;
  /** The synchronous bridge to the host's network broker; absent when the plan has no network. */
  readonly bridge?: SyncCall;
  /**
   * In-thread under JSPI: the broker itself, answering HTTP calls with promises (the glue suspends
   * the guest meanwhile). Used instead of `bridge` for HTTP; sockets stay without it.
   */
  readonly httpCall?: (op: string, payload: unknown) => Promise<unknown>;
  readonly maxRequestBodyBytes?: number;
}

/**
 * Executes an import plan: builds a fresh WASI 0.2 import object for one instance. Nothing here
 * touches preview2-shim's process-global state (env, args, cwd, preopens, stdio, exit, network
 * switches): every interface that has such state is replaced by a per-instance object.
 * Keys are unversioned, as jco's generated glue reads them.
 */
export function buildWasiImports(
  plan: ImportPlan,
  options: WasiImportOptions,
): { imports: Record<string, Record<string, unknown>>; close: () => void } {
  const { InputStream, OutputStream } = wasi.io.streams;
  const ready = () => wasi.clocks.monotonicClock.subscribeDuration(0n);

  class Sink extends writeThroughStream(OutputStream, ready) {
    stream: 'stdout' | 'stderr';
    capture: boolean;
    constructor(stream: 'stdout' | 'stderr', capture: boolean) {
      super();
      this.stream = stream;
      this.capture = capture;
    }
    checkWrite() {
      return 1_048_576n;
    }
    override write(buf: Uint8Array): void {
      if (this.capture && buf.length > 0) options.onOutput(this.stream, new Uint8Array(buf));
    }
  }
  class ClosedInput extends InputStream {
    read(): never {
      throw { tag: 'closed' };
    }
    blockingRead(): never {
      throw { tag: 'closed' };
    }
    skip(): never {
      throw { tag: 'closed' };
    }
    blockingSkip(): never {
      throw { tag: 'closed' };
    }
    subscribe() {
      return ready();
    }
  }
  const stdout = new Sink('stdout', plan.stdout === 'capture');
  const stderr = new Sink('stderr', plan.stderr === 'capture');
  const stdin = new ClosedInput();

  const IoError = wasi.io.error.Error;
  // trust's own wasi:filesystem: guest paths resolve beneath the descriptors pinned at load
  const fs = createGuestFilesystem(plan.preopens, { InputStream, OutputStream, IoError, ready }, new Map(plan.fsRoots));

  const env = plan.env.map(([k, v]) => [k, v] as [string, string]);
  const args = [...plan.args];
  const seed = randomBytes(16);

  const imports: Record<string, Record<string, unknown>> = {
    'wasi:cli/environment': {
      getEnvironment: () => env.map(([k, v]) => [k, v]),
      getArguments: () => [...args],
      initialCwd: () => undefined,
    },
    'wasi:cli/exit': {
      exit(status: { tag: string }) {
        throw new GuestExit(status?.tag === 'err' ? 1 : 0);
      },
      exitWithCode(code: number) {
        throw new GuestExit(code);
      },
    },
    'wasi:cli/stdin': { getStdin: () => stdin },
    'wasi:cli/stdout': { getStdout: () => stdout },
    'wasi:cli/stderr': { getStderr: () => stderr },
    'wasi:cli/terminal-input': wasi.cli.terminalInput,
    'wasi:cli/terminal-output': wasi.cli.terminalOutput,
    'wasi:cli/terminal-stdin': { getTerminalStdin: () => undefined },
    'wasi:cli/terminal-stdout': { getTerminalStdout: () => undefined },
    'wasi:cli/terminal-stderr': { getTerminalStderr: () => undefined },
    'wasi:clocks/monotonic-clock': wasi.clocks.monotonicClock,
    'wasi:clocks/wall-clock': wasi.clocks.wallClock,
    'wasi:random/random': wasi.random.random,
    'wasi:random/insecure': wasi.random.insecure,
    'wasi:random/insecure-seed': { insecureSeed: () => [seed.readBigUInt64LE(0), seed.readBigUInt64LE(8)] },
    'wasi:io/error': wasi.io.error,
    'wasi:io/poll': wasi.io.poll,
    'wasi:io/streams': wasi.io.streams,
    'wasi:filesystem/types': fs.types,
    'wasi:filesystem/preopens': fs.preopens,
  };

  const { bridge, httpCall } = options;
  // Without the http grant (or without a bridge to the broker) the interface is still linked and
  // every request is denied: WASI present, zero grants.
  const http = createHttpImports({
    InputStream,
    OutputStream,
    IoError,
    ready,
    call:
      plan.http && httpCall
        ? (op, payload) => httpCall(op, payload) as Promise<BridgeHttpResult>
        : plan.http && bridge
          ? (op, payload) => bridge(op, payload) as BridgeHttpResult
          : () => ({ kind: 'error', error: 'denied', message: 'http is not granted' }),
    maxRequestBodyBytes: plan.http ? (options.maxRequestBodyBytes ?? 16 * 1024 * 1024) : 0,
  });
  imports['wasi:http/types'] = http.types;
  imports['wasi:http/outgoing-handler'] = http.outgoingHandler;
  const sockets = createSocketImports({
    InputStream,
    OutputStream,
    ready,
    tcp: Boolean(bridge) && (plan.tcp || plan.coarse),
    udp: Boolean(bridge) && (plan.udp || plan.coarse),
    call: (op, payload) =>
      bridge
        ? (bridge(op, payload) as BridgeTcpResult | BridgeLookupResult)
        : { kind: 'error', error: 'denied', message: 'no network' },
  });
  Object.assign(imports, sockets);
  return { imports, close: fs.close };
}
