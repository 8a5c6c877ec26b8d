import { checkJsonText, checkJsonValue, TrustError, type Decision } from '@trust/core';
import type { AgentConfig } from '../config/agent-config-schema.js';
import { parseAgentConfig } from '../config/agent-config.js';

/** The largest `adf_config.config_json` accepted (a real config is a few kilobytes). */
export const MAX_CONFIG_BYTES = 4 * 1024 * 1024;
/** The deepest nesting accepted anywhere in a config, `metadata` included. */
export const MAX_CONFIG_DEPTH = 64;

function refuse(d: Decision & { allow: false }, what: string): TrustError {
  return new TrustError('ADF_CONFIG_INVALID', `${what}: ${d.reason}`, {
    hint: d.hint ?? `keep the config under ${MAX_CONFIG_BYTES} bytes and ${MAX_CONFIG_DEPTH} levels of nesting`,
  });
}

/**
 * Parses the stored config text: size and depth are checked on the text, in one iterative pass,
 * before `JSON.parse` or anything recursive (validation, freezing) sees it.
 * Too large, too deep or not JSON: `ADF_CONFIG_INVALID`.
 */
export function parseStoredConfig(text: string): AgentConfig {
  const d = checkJsonText(text, { maxBytes: MAX_CONFIG_BYTES, maxDepth: MAX_CONFIG_DEPTH });
  if (!d.allow) throw refuse(d, 'adf_config is out of bounds');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (cause) {
    throw new TrustError('ADF_CONFIG_INVALID', 'adf_config is not JSON', { cause });
  }
  return parseAgentConfig(doc);
}

/** Like {@link parseStoredConfig} for a value a host hands over (`setConfig`, a template): bounded first. */
export function parseConfigValue(value: unknown): AgentConfig {
  const d = checkJsonValue(value, { maxDepth: MAX_CONFIG_DEPTH });
  if (!d.allow) throw refuse(d, 'the config is out of bounds');
  return parseAgentConfig(value);
}
