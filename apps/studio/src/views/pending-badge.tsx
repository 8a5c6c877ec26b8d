import { useLoad } from '../studio-context';
import type { ApprovalTask } from '../types';

/** How many approvals wait, next to the Approvals entry; nothing when none do. Live through the event stream. */
export function PendingBadge() {
  const { data } = useLoad<{ tasks: ApprovalTask[] }>('/tasks');
  const n = (data?.tasks ?? []).filter((t) => t.status === 'pending').length;
  if (n === 0) return null;
  return (
    <span className="badge warn nav-badge" data-pending={n} role="img" aria-label={`${n} waiting`}>
      {n}
    </span>
  );
}
