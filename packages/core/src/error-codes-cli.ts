/**
 * Stable error codes of `@trust/cli`: usage errors, input files, the model setup and the studio commands.
 * The list is data: `@trust/core` collects every package's codes so that `TrustError` accepts only
 * known ones. A package that adds a code adds it here, one per line.
 *
 * @example
 * CLI_ERROR_CODES.includes('CLI_USAGE_UNKNOWN_OPTION'); // true
 */
export const CLI_ERROR_CODES = Object.freeze([
  'AGENT_TASK_NOT_FOUND',
  'CLI_FILE_EXISTS',
  'CLI_FILE_INVALID_JSON',
  'CLI_FILE_NOT_FOUND',
  'CLI_FILE_UNREADABLE',
  'CLI_INTERNAL',
  'CLI_USAGE',
  'CLI_USAGE_INVALID_VALUE',
  'CLI_USAGE_MISSING_ARGUMENT',
  'CLI_USAGE_MISSING_COMMAND',
  'CLI_USAGE_MISSING_OPTION',
  'CLI_USAGE_UNEXPECTED_ARGUMENT',
  'CLI_USAGE_UNKNOWN_COMMAND',
  'CLI_USAGE_UNKNOWN_OPTION',
  'CONTROL_ERROR',
  'MODEL_API_KEY_ENV_INVALID',
  'MODEL_API_KEY_ENV_REFUSED',
  'MODEL_API_KEY_INVALID',
  'MODEL_API_KEY_MISSING',
  'MODEL_AUDIT_NOT_READY',
  'MODEL_BASE_URL_INSECURE',
  'MODEL_BASE_URL_INVALID',
  'MODEL_BASE_URL_LOCAL',
  'MODEL_ID_MISSING',
  'MODEL_SETUP_FAILED',
  'STUDIO_ALREADY_RUNNING',
  'STUDIO_NOT_BUILT',
  'STUDIO_NOT_RUNNING',
  'CLI_NOT_A_FILE',
  'CLI_USAGE_INVALID_ARGUMENT',
  'CLI_USAGE_INVALID_URL',
  'STUDIO_PLUGIN_BUSY',
  'STUDIO_PLUGIN_EXISTS',
  'STUDIO_PLUGIN_GRANT_WIDER',
  'STUDIO_PLUGIN_LIMIT',
  'STUDIO_PLUGIN_NOT_FOUND',
  'STUDIO_PLUGIN_NOT_LOADED',
] as const);
/** One of `CLI_ERROR_CODES`. */
export type CliErrorCode = (typeof CLI_ERROR_CODES)[number];
