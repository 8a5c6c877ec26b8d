import { useLoad, useStudio } from '../studio-context';
import type { AgentSummary } from '../types';

/** A select of the workspace's agents, bound to the studio-wide selection. */
export function AgentPicker() {
  const { agent, selectAgent } = useStudio();
  const { data } = useLoad<{ agents: AgentSummary[] }>('/agents');
  return (
    <label className="picker">
      Agent{' '}
      <select value={agent ?? ''} onChange={(e) => selectAgent(e.target.value)}>
        {(data?.agents ?? []).map((a) => (
          <option key={a.id} value={a.id}>
            {a.name}
          </option>
        ))}
      </select>
    </label>
  );
}
