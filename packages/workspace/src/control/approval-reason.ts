/** Why an approval task exists, in words the owner can act on. `detail` is the runtime's note. */
export function describeApprovalReason(tool: string, meta: Readonly<Record<string, unknown>> | null): string {
  const kind = String(meta?.['reason'] ?? 'restricted');
  const base =
    kind === 'restricted'
      ? `${tool} is restricted: calls from the model loop need your approval`
      : kind === 'protection'
        ? `${tool} would change something protected; approving grants a one-time override`
        : kind === 'authorized-target'
          ? `${tool} would run authorized code, which acts with elevated rights`
          : `${tool} needs approval (${kind})`;
  return meta?.['detail'] ? `${base}: ${String(meta['detail'])}` : base;
}
