import { describe, expect, it } from 'vitest';
import { evaluateTriggerMatch, matchesFilterValue, type TriggerConfig } from './trigger-match.js';
import type { TriggerEvent } from './trigger-event.js';

const fileEvent: TriggerEvent = {
  type: 'on_file_change',
  fields: { path: 'docs/guide/a.md', event: 'write' },
  data: {},
};
const inboxEvent: TriggerEvent = {
  type: 'on_inbox',
  fields: { source: 'mesh', sender: 'did:key:zA', to: 'did:key:zB' },
  data: {},
};
const t = (type: TriggerConfig['type'], filter?: Record<string, string>): TriggerConfig => ({
  type,
  scope: 'system',
  lambda: 'a.js:f',
  ...(filter ? { filter } : {}),
});

describe('evaluateTriggerMatch', () => {
  it.each([
    ['no filter matches its type', t('on_file_change'), fileEvent, true, undefined],
    ['another type never matches', t('on_inbox'), fileEvent, false, 'TRIGGER_TYPE_MISMATCH'],
    ['watch ** crosses segments', t('on_file_change', { watch: 'docs/**' }), fileEvent, true, undefined],
    [
      'watch * stays in one segment',
      t('on_file_change', { watch: 'docs/*.md' }),
      fileEvent,
      false,
      'TRIGGER_FILTER_MISMATCH',
    ],
    ['watch alternatives', t('on_file_change', { watch: 'README.md|docs/guide/*.md' }), fileEvent, true, undefined],
    ['event filter', t('on_file_change', { event: 'delete' }), fileEvent, false, 'TRIGGER_FILTER_MISMATCH'],
    ['an unknown key fails closed', t('on_file_change', { wacth: '**' }), fileEvent, false, 'TRIGGER_FILTER_UNKNOWN'],
    [
      'a key of another type fails closed',
      t('on_file_change', { source: 'mesh' }),
      fileEvent,
      false,
      'TRIGGER_FILTER_UNKNOWN',
    ],
    ['source matches exactly', t('on_inbox', { source: 'mesh' }), inboxEvent, true, undefined],
    ['source is not a substring match', t('on_inbox', { source: 'mes' }), inboxEvent, false, 'TRIGGER_FILTER_MISMATCH'],
    [
      'every key must match',
      t('on_inbox', { source: 'mesh', sender: 'did:key:zC' }),
      inboxEvent,
      false,
      'TRIGGER_FILTER_MISMATCH',
    ],
    [
      'a filter on an absent field does not match',
      t('on_inbox', { subject: '*' }),
      inboxEvent,
      false,
      'TRIGGER_FILTER_MISMATCH',
    ],
    [
      'regex characters are literal',
      t('on_inbox', { sender: 'did:key:z.' }),
      inboxEvent,
      false,
      'TRIGGER_FILTER_MISMATCH',
    ],
  ])('%s', (_name, trigger, event, allowed, code) => {
    const d = evaluateTriggerMatch(trigger, event);
    expect(d.allow).toBe(allowed);
    if (!d.allow) expect(d.code).toBe(code);
  });

  it.each([
    ['*', 'anything/at/all', false, true],
    ['*', 'a/b', true, false],
    ['', 'x', false, false],
    ['a||b', 'b', false, true],
  ])('matchesFilterValue(%j, %j, pathLike=%j) is %j', (pattern, value, pathLike, expected) => {
    expect(matchesFilterValue(pattern, value, pathLike)).toBe(expected);
  });
});
