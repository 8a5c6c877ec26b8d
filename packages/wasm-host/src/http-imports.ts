import { createFieldsClass } from './http-fields.js';
import { RequestOptions } from './http-request-options.js';
import { Exchange, HTTP_CHUNK, type BrokerCall } from './http-exchange.js';
import { createOutgoingTypes } from './http-outgoing.js';
import { createIncomingTypes } from './http-incoming.js';
import { andThen, type MaybePromise } from './maybe-async.js';

export { HTTP_CHUNK };

/**
 * A per-instance `wasi:http` (types + outgoing-handler) whose requests go to the host's egress
 * broker instead of the shim's own HTTP client. Bodies stream in both directions in chunks of
 * at most `HTTP_CHUNK` bytes, one bridge call each:
 * - the request starts (`http.start`) when the guest has handed it to `handle` and then finishes
 *   its body, or writes more than one chunk, or asks for the response; a small body therefore
 *   travels with the start, a large one follows in `http.write` calls (`http.end` closes it);
 * - the response (`http.response`) carries status and headers; the body is read with
 *   `http.read` as the guest reads its stream, and the broker enforces the size cap while it
 *   streams: an oversized response fails the guest's read with `HTTP-response-body-size`.
 * A denial reaches the guest as `error-code::HTTP-request-denied`.
 *
 * `call` answers synchronously through a worker's bridge. In-thread under JSPI it answers with a
 * promise: the import that made the call (`handle`, a body write or read, `finish`, `get`) then
 * returns a promise too, and the glue suspends the guest until it settles (see jspi.ts).
 */
export interface HttpImportDeps {
  /** The shim's stream classes, which the body streams extend. */
  readonly InputStream: new () => object;
  readonly OutputStream: new () => object;
  /** `wasi:io/error`'s error resource (guest-visible stream errors carry one). */
  readonly IoError: new (
    payload: unknown,
  ) => object;
  /** An always-ready pollable. */
  readonly ready: () => unknown;
  /** A call to the broker (`http.start`, `http.write`, `http.end`, `http.response`, `http.read`, `http.close`). */
  readonly call: BrokerCall;
  readonly maxRequestBodyBytes: number;
}

/** Builds the `wasi:http/types` and `wasi:http/outgoing-handler` imports of one instance. */
export function createHttpImports(deps: HttpImportDeps): {
  types: Record<string, unknown>;
  outgoingHandler: Record<string, unknown>;
} {
  const fields = createFieldsClass();
  const { OutgoingBody, OutgoingRequest } = createOutgoingTypes(deps, fields.locked);
  const incoming = createIncomingTypes(deps, fields);
  type OutgoingRequest = InstanceType<typeof OutgoingRequest>;

  class Unsupported {
    constructor() {
      throw new Error('wasi:http incoming handlers are not supported by @trust/wasm-host');
    }
  }

  return {
    types: {
      Fields: fields.Fields,
      FutureIncomingResponse: incoming.FutureIncomingResponse,
      FutureTrailers: incoming.FutureTrailers,
      IncomingBody: incoming.IncomingBody,
      IncomingRequest: Unsupported,
      IncomingResponse: incoming.IncomingResponse,
      OutgoingBody,
      OutgoingRequest,
      OutgoingResponse: Unsupported,
      ResponseOutparam: Unsupported,
      RequestOptions,
      httpErrorCode: incoming.httpErrorCode,
    },
    outgoingHandler: {
      handle(request: OutgoingRequest, options?: RequestOptions): MaybePromise<unknown> {
        const exchange = new Exchange(deps, request, options);
        const body = request.bodyValue;
        body.exchange = exchange;
        // a body finished before handle() goes out with the start; a large one starts streaming now
        const started = body.finished
          ? exchange.start(true)
          : body.pendingBytes > HTTP_CHUNK
            ? exchange.start(false)
            : undefined;
        return andThen(started, () => new incoming.FutureIncomingResponse(exchange));
      },
    },
  };
}
