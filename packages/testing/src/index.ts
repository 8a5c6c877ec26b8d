export { startPeer } from './peer.js';
export type { Peer, StartPeerOptions } from './peer.js';
export { createStubResolver } from './stub-resolver.js';
export type { StubAnswer, StubOutcome, StubResolver, StubResolverOptions } from './stub-resolver.js';
export type { PeerRequest, PeerRoute, PeerStats } from './peer-protocol.js';
