import { AgentLogs } from './agent-logs';
import { ConfigEditor } from './config-editor';
import { FileEditor } from './file-editor';
import { RuntimePanels } from './runtime-panels';
import { StreamingText } from './streaming-text';

export { TemplateCreate } from './template-create';

/** The agent tabs this module adds next to chat, mail and files. */
export const AGENT_DETAIL_TABS = ['editor', 'config', 'runtime', 'logs'] as const;
export type AgentDetailTabName = (typeof AGENT_DETAIL_TABS)[number];

/** Renders one of {@link AGENT_DETAIL_TABS}, or the streaming answer under the chat; nothing otherwise. */
export function AgentDetailTab({ tab, agent }: { tab: string; agent: string }) {
  if (tab === 'editor') return <FileEditor key={agent} agent={agent} />;
  if (tab === 'config') return <ConfigEditor key={agent} agent={agent} />;
  if (tab === 'runtime') return <RuntimePanels key={agent} agent={agent} />;
  if (tab === 'logs') return <AgentLogs key={agent} agent={agent} />;
  if (tab === 'chat') return <StreamingText key={agent} agent={agent} />;
  return null;
}
