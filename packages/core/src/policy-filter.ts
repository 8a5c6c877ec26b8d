import { deny, type Decision } from './decision.js';
import type { EgressContext, EgressHttpRequest, EgressPeer, EgressPolicy } from './egress-policy.js';

/** Where a built-in filter keeps its checks, for `chain` to call. */
export const FILTER_CHECKS = Symbol('trust.filter.checks');

/** A filter's checks: a deny objects, `undefined` means no objection. */
export interface FilterChecks {
  readonly http?: (request: EgressHttpRequest, context: EgressContext) => Decision | undefined;
  readonly tcp?: (peer: EgressPeer, context: EgressContext) => Decision | undefined;
  readonly udp?: (peer: EgressPeer, context: EgressContext) => Decision | undefined;
}

/** The checks of a built-in filter, or `undefined` for any other policy. */
export function filterChecksOf(policy: EgressPolicy): FilterChecks | undefined {
  return (policy as { [FILTER_CHECKS]?: FilterChecks })[FILTER_CHECKS];
}

/**
 * Builds a filter policy. Inside `chain(...)` its checks run and "no objection" passes on. Used on
 * its own it fails closed: where it has no objection it still denies (`EGRESS_NO_POLICY`),
 * because a filter grants nothing, so handing a bare filter to an enforcement point cannot open
 * egress by mistake.
 */
export function createFilter(name: string, checks: FilterChecks): EgressPolicy {
  const alone = (what: string, objection: Decision | undefined): Decision =>
    objection ??
    deny('EGRESS_NO_POLICY', `egress denied: ${what}: ${name} is a filter and grants nothing on its own`, {
      rule: name,
      hint: `combine it with a gate, e.g. chain(allowHosts([...]), ${name})`,
    });
  const { http, tcp, udp } = checks;
  return Object.freeze({
    name,
    role: 'filter' as const,
    [FILTER_CHECKS]: Object.freeze({ ...checks }),
    authorizeHttp: (request: EgressHttpRequest, context: EgressContext) =>
      alone(`${request.host}:${request.port}`, http?.(request, context)),
    ...(tcp
      ? {
          authorizeTcp: (peer: EgressPeer, context: EgressContext) =>
            alone(`tcp ${peer.host}:${peer.port}`, tcp(peer, context)),
        }
      : {}),
    ...(udp
      ? {
          authorizeUdp: (peer: EgressPeer, context: EgressContext) =>
            alone(`udp ${peer.host}:${peer.port}`, udp(peer, context)),
        }
      : {}),
  });
}
