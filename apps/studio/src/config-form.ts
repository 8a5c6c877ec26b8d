// Logic of the studio config editor: the fields of the config schema (JSON Schema from the
// server), each with its current value, its kind, and whether it is locked and why.

/** The part of a JSON Schema node the editor reads. */
export interface SchemaNode {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  properties?: Record<string, SchemaNode>;
  anyOf?: SchemaNode[];
  minimum?: number;
  maximum?: number;
}

export type FieldKind = 'boolean' | 'integer' | 'number' | 'string' | 'enum' | 'json';

/** One editable leaf of the config. */
export interface ConfigField {
  path: string;
  kind: FieldKind;
  value: unknown;
  description: string;
  options?: string[];
  /** Why the field cannot be edited here; undefined when it can. */
  locked?: string;
}

/** Sections the editor leaves to other views or never offers. */
const SKIPPED = new Set(['tools', 'v', 'id']);
const REDACTED = '__redacted__';

/**
 * The fields of `config` along `schema`: objects with properties are walked, everything else is a
 * leaf. A field under (or equal to) a locked path carries that path's reason.
 */
export function configFields(
  schema: SchemaNode,
  config: unknown,
  locks: readonly { path: string; why: string }[],
): ConfigField[] {
  const out: ConfigField[] = [];
  const walk = (node: SchemaNode, value: unknown, path: string) => {
    const props = objectProps(node);
    if (props !== undefined && path !== '') {
      for (const [k, child] of Object.entries(props)) walk(child, field(value, k), `${path}.${k}`);
      return;
    }
    if (props !== undefined) {
      for (const [k, child] of Object.entries(props)) if (!SKIPPED.has(k)) walk(child, field(value, k), k);
      return;
    }
    const lock = locks.find((l) => path === l.path || path.startsWith(`${l.path}.`));
    const kind = kindOf(node);
    const f: ConfigField = { path, kind, value, description: node.description ?? '' };
    if (kind === 'enum') f.options = (node.enum ?? node.anyOf?.find((a) => a.enum)?.enum ?? []).map(String);
    if (lock !== undefined) f.locked = lock.why;
    else if (value === REDACTED) f.locked = 'a secret, shown redacted: set it in the agent file, not here';
    out.push(f);
  };
  walk(schema, config, '');
  return out;
}

function objectProps(node: SchemaNode): Record<string, SchemaNode> | undefined {
  if (node.properties !== undefined && Object.keys(node.properties).length > 0) return node.properties;
  return undefined;
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

function kindOf(node: SchemaNode): FieldKind {
  if (node.enum !== undefined) return 'enum';
  const types = (Array.isArray(node.type) ? node.type : [node.type]).filter((t) => t !== undefined && t !== 'null');
  if (types.length === 1 && (types[0] === 'boolean' || types[0] === 'integer' || types[0] === 'number'))
    return types[0];
  if (types.length === 1 && types[0] === 'string') return 'string';
  return 'json';
}

/** The text an input shows for a value of a kind. */
export function fieldText(kind: FieldKind, value: unknown): string {
  if (value === undefined) return '';
  if (kind === 'json') return JSON.stringify(value, null, 1) ?? '';
  return String(value);
}

/**
 * The value a typed text stands for. Numbers and JSON that do not parse are sent as the text, so
 * the server's validator (not this form) says what is wrong.
 */
export function fieldValue(kind: FieldKind, text: string): unknown {
  if (kind === 'string' || kind === 'enum') return text;
  if (kind === 'boolean') return text === 'true';
  if (kind === 'integer' || kind === 'number')
    return text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text;
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
