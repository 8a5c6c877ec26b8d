/** The risk level the studio shows for a capability. */
export function riskLevel(capability: string): 'low' | 'medium' | 'high' {
  if (/^(network|sockets|http|tcp|udp)$/.test(capability) || capability.startsWith('fs:rw:')) return 'high';
  if (capability.startsWith('fs:ro:') || capability.startsWith('env:') || capability === 'stdin') return 'medium';
  return 'low';
}
