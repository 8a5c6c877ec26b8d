import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAdf } from './adf-file.js';

// The one log reader (adf.logs.list) with the filters the studio's Logs tab pages with.
describe('adf.logs.list filters and cursor', () => {
  const make = () => {
    let t = Date.parse('2026-01-01T00:00:00.000Z');
    const adf = createAdf(join(mkdtempSync(join(tmpdir(), 'adf-logs-')), 'a.adf'), {
      template: { v: 1 },
      clock: () => {
        t += 1000;
        return new Date(t);
      },
    });
    for (let i = 0; i < 10; i++) adf.logs.add({ level: i % 3 === 0 ? 'warn' : 'info', message: `m${i}` });
    return adf;
  };

  it.each([
    [{}, ['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9']],
    [{ limit: 3 }, ['m7', 'm8', 'm9']],
    [{ level: 'warn' }, ['m0', 'm3', 'm6', 'm9']],
    [{ level: 'warn', limit: 2 }, ['m6', 'm9']],
    [{ since: 'm7' }, ['m7', 'm8', 'm9']],
    [{ beforeId: 4 }, ['m0', 'm1', 'm2']],
    [{ beforeId: 9, limit: 2 }, ['m6', 'm7']],
    [{ level: 'info', since: 'm2', beforeId: 9 }, ['m2', 'm4', 'm5', 'm7']],
    [{ level: "warn' OR 1=1 --" }, []],
    [{ since: '2027-01-01T00:00:00.000Z' }, []],
  ])('%j gives %j (oldest first)', (options, messages) => {
    const adf = make();
    // `since: 'mN'` stands for the time row mN was written (the file's own clock ticks too).
    const at = (m: string) => adf.logs.list().find((l) => l.message === m)?.createdAt ?? m;
    const o = 'since' in options ? { ...options, since: at(options.since) } : options;
    expect(adf.logs.list(o).map((l) => l.message)).toEqual(messages);
    adf.close();
  });
});
