/** The default flags of one built-in tool. */
export interface BuiltInTool {
  readonly name: string;
  readonly enabled: boolean;
  readonly visible: boolean;
  readonly restricted: boolean;
  readonly locked: boolean;
}

const t = (name: string, enabled: boolean, visible: boolean, restricted = false, locked = false): BuiltInTool =>
  Object.freeze({ name, enabled, visible, restricted, locked });

/**
 * Built-in tools with their default enabled/visible/restricted/locked flags, following the
 * default security posture: `adf_shell` and `ws_*` off and locked, `sys_fetch` on (the egress
 * guard confines it), self-configuration restricted, dangerous toggles locked.
 */
export const BUILT_IN_TOOLS: readonly BuiltInTool[] = Object.freeze([
  t('fs_read', true, true),
  t('fs_write', true, true),
  t('fs_list', true, true),
  t('fs_delete', false, false),
  t('msg_send', true, true),
  t('msg_list', true, true),
  t('msg_read', true, true),
  t('msg_update', true, true),
  t('msg_delete', false, false),
  t('agent_discover', true, true),
  t('sys_code', true, true),
  t('sys_lambda', true, true),
  t('sys_set_timer', true, true),
  t('sys_list_timers', true, true),
  t('sys_delete_timer', true, true),
  t('sys_get_config', true, true),
  t('sys_update_config', true, true, true),
  t('sys_create_adf', false, false, true, true),
  t('db_query', true, true),
  t('db_execute', false, false),
  t('loop_compact', false, false),
  t('loop_clear', false, false),
  t('say', true, true),
  t('ask', true, true),
  t('sys_set_state', true, true),
  t('sys_get_meta', true, true),
  t('sys_set_meta', true, true),
  t('sys_delete_meta', true, true),
  t('sys_fetch', true, true),
  t('adf_shell', false, false, false, true),
  t('ws_connect', false, false, false, true),
  t('ws_send', false, false, false, true),
  t('ws_disconnect', false, false, false, true),
  t('compute_exec', false, false, true, true),
  t('mcp_install', false, false, true, true),
]);

/** Tools code may never call: `say` would let code monopolise chat, `ask` would bypass approval. */
export const CODE_EXCLUDED_TOOLS: readonly string[] = Object.freeze(['say', 'ask']);
