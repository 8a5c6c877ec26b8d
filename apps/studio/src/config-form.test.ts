import { describe, expect, it } from 'vitest';
import { configFields, fieldText, fieldValue, type SchemaNode } from './config-form';

const schema: SchemaNode = {
  type: 'object',
  properties: {
    v: { type: 'integer' },
    name: { type: 'string', description: 'Display name.' },
    tools: { type: 'array' },
    model: {
      type: 'object',
      properties: {
        provider: { type: 'string', enum: ['scripted', 'anthropic'] },
        api_key: { type: 'string' },
        max_tokens: { type: 'integer' },
      },
    },
    limits: { type: 'object', properties: { max_sql_rows: { type: 'integer', description: 'Rows.' } } },
    triggers: { type: 'array', description: 'Triggers.' },
    security: { type: 'object', properties: { allow_unsigned: { type: 'boolean' } } },
  },
};
const config = {
  v: 1,
  name: 'helper',
  tools: [],
  model: { provider: 'scripted', api_key: '__redacted__' },
  limits: { max_sql_rows: 100 },
  triggers: [{ type: 'on_inbox' }],
  security: { allow_unsigned: false },
};

describe('configFields', () => {
  const fields = configFields(schema, config, [{ path: 'security', why: 'locked in code' }]);
  const byPath = Object.fromEntries(fields.map((f) => [f.path, f]));

  it('walks the schema, skipping tools, v and id, with kinds, values and descriptions', () => {
    expect(fields.map((f) => f.path)).toEqual([
      'name',
      'model.provider',
      'model.api_key',
      'model.max_tokens',
      'limits.max_sql_rows',
      'triggers',
      'security.allow_unsigned',
    ]);
    expect(byPath['limits.max_sql_rows']).toMatchObject({ kind: 'integer', value: 100, description: 'Rows.' });
    expect(byPath['model.provider']).toMatchObject({ kind: 'enum', options: ['scripted', 'anthropic'] });
    expect(byPath['triggers']!.kind).toBe('json');
    expect(byPath['model.max_tokens']!.value).toBeUndefined();
  });

  it('a field under a locked path is locked with its reason; a redacted secret is never editable', () => {
    expect(byPath['security.allow_unsigned']!.locked).toBe('locked in code');
    expect(byPath['model.api_key']!.locked).toContain('redacted');
    expect(byPath['name']!.locked).toBeUndefined();
    // A lock on "limits.max" does not lock "limits.max_sql_rows" (segments, not prefixes).
    const f = configFields(schema, config, [{ path: 'limits.max', why: 'x' }]);
    expect(f.find((x) => x.path === 'limits.max_sql_rows')!.locked).toBeUndefined();
  });
});

describe('fieldText / fieldValue', () => {
  it('round-trips each kind and leaves bad input for the server to judge', () => {
    expect(fieldValue('integer', '250')).toBe(250);
    expect(fieldValue('integer', '-5')).toBe(-5);
    expect(fieldValue('integer', 'lots')).toBe('lots');
    expect(fieldValue('boolean', 'true')).toBe(true);
    expect(fieldValue('json', '[{"type":"on_chat"}]')).toEqual([{ type: 'on_chat' }]);
    expect(fieldValue('json', '{oops')).toBe('{oops');
    expect(fieldValue('json', '')).toBeNull();
    expect(fieldText('json', [1])).toBe('[\n 1\n]');
    expect(fieldText('integer', undefined)).toBe('');
  });
});
