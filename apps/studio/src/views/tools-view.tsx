import { ErrorNote, useLoad, useStudio } from '../studio-context';
import type { ConfigView, ToolRow } from '../types';
import { AgentPicker } from './agent-picker';
import { ConfigPanel } from './config-panel';
import { ToolsMatrix } from './tools-matrix';

/** The access matrix, editable by the owner, and the config with what the agent may not change. */
export function ToolsView() {
  const { agent } = useStudio();
  const base = agent === undefined ? undefined : `/agents/${encodeURIComponent(agent)}`;
  const tools = useLoad<{ tools: ToolRow[] }>(base && `${base}/tools`);
  const config = useLoad<ConfigView>(base && `${base}/config`);

  return (
    <section>
      <header className="view-head">
        <h2>Tools & config</h2>
        <AgentPicker />
      </header>
      {base === undefined ? (
        <p className="muted empty">No agent yet. Create one in Agents, then set its tool access here.</p>
      ) : null}
      <ErrorNote error={tools.error} />
      {base !== undefined && tools.data ? (
        <ToolsMatrix base={base} tools={tools.data.tools} reload={tools.reload} />
      ) : null}
      <p className="note">
        Visibility only decides what the model is shown; “enabled” decides what may run; “restricted” calls from the
        loop wait for your approval.
      </p>

      <h3>Config</h3>
      <ErrorNote error={config.error} />
      {base !== undefined && config.data ? <ConfigPanel base={base} view={config.data} reload={config.reload} /> : null}
    </section>
  );
}
