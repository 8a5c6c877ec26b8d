import type { Problem } from '@trust/core';
import type { JsonSchema } from './tool-definition.js';

/**
 * Validates a value against the JSON Schema subset tools use: `type` (object, array, string,
 * number, integer, boolean, null, or a list), `properties`, `required`, `additionalProperties`
 * (false or a schema), `items`, `enum`, `minimum`/`maximum`, `maxLength`. Unknown keywords are
 * ignored. Returns every problem.
 */
export function validateJsonSchema(schema: JsonSchema, value: unknown, path = ''): Problem[] {
  const out: Problem[] = [];
  const p = (message: string) =>
    out.push({ code: 'TOOL_ARGS_INVALID', message: `${path || '(args)'}: ${message}`, path });
  const type = schema['type'];
  if (type !== undefined) {
    const types = Array.isArray(type) ? (type as string[]) : [type as string];
    if (!types.some((t) => matches(t, value))) {
      p(`expected ${types.join(' or ')}, got ${kind(value)}`);
      return out;
    }
  }
  const en = schema['enum'];
  if (Array.isArray(en) && !en.some((e) => e === value))
    p(`must be one of ${en.map((e) => JSON.stringify(e)).join(', ')}`);
  if (typeof value === 'number') {
    if (typeof schema['minimum'] === 'number' && value < schema['minimum']) p(`must be >= ${schema['minimum']}`);
    if (typeof schema['maximum'] === 'number' && value > schema['maximum']) p(`must be <= ${schema['maximum']}`);
  }
  if (typeof value === 'string' && typeof schema['maxLength'] === 'number' && value.length > schema['maxLength'])
    p(`longer than ${schema['maxLength']}`);
  if (Array.isArray(value) && schema['items'] && typeof schema['items'] === 'object') {
    for (const [i, v] of value.entries())
      out.push(...validateJsonSchema(schema['items'] as JsonSchema, v, `${path}[${i}]`));
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    const props = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
    for (const r of (schema['required'] ?? []) as string[]) if (!Object.hasOwn(obj, r)) p(`missing required "${r}"`);
    for (const [k, v] of Object.entries(obj)) {
      const sub = Object.hasOwn(props, k) ? props[k] : undefined;
      const child = path ? `${path}.${k}` : k;
      if (sub) out.push(...validateJsonSchema(sub, v, child));
      else if (schema['additionalProperties'] === false)
        out.push({ code: 'TOOL_ARGS_INVALID', message: `${child}: unknown argument`, path: child });
      else if (schema['additionalProperties'] && typeof schema['additionalProperties'] === 'object')
        out.push(...validateJsonSchema(schema['additionalProperties'] as JsonSchema, v, child));
    }
  }
  return out;
}

function kind(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

function matches(t: string, v: unknown): boolean {
  switch (t) {
    case 'object':
      return v !== null && typeof v === 'object' && !Array.isArray(v);
    case 'array':
      return Array.isArray(v);
    case 'integer':
      return Number.isInteger(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'null':
      return v === null;
    default:
      return typeof v === t;
  }
}
