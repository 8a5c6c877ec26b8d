/** The capability kinds of the grammar (see `parseCapabilities`). */
export type CapabilityName =
  | 'env'
  | 'fs'
  | 'args'
  | 'stdin'
  | 'stdout'
  | 'stderr'
  | 'http'
  | 'tcp'
  | 'udp'
  | 'network'
  | 'sockets'
  | 'clocks'
  | 'random';
