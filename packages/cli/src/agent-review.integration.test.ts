import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { openAdf } from '@trust/agent-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { agentInspectSchema, agentReviewSchema, failureSchema } from './json-schemas.js';
import { createTempHome, runCli } from './run-cli.test-helper.js';

// Two people: the author, who makes and shares a file, and the owner, who receives it.
const author = createTempHome();
const owner = createTempHome();
afterAll(() => {
  author.cleanup();
  owner.cleanup();
});
const as = (home: { home: string }, args: string[], input?: string) =>
  runCli(args, { home: home.home, ...(input === undefined ? {} : { input }) });

/** The author's edit with raw SQL on the file's connection: a code file marked authorized, no approval. */
function markAuthorized(path: string): void {
  const adf = openAdf(path, { trust: 'owned' });
  if (!adf.files.read('boot.ts')) adf.files.write('boot.ts', 'export function run() { return 1; }');
  adf.db.prepare("UPDATE adf_files SET authorized = 1 WHERE path = 'boot.ts'").run();
  adf.close();
}

describe('trust agent review (built binary): a foreign file never acts before its owner accepted it', () => {
  const received = join(owner.home, 'shared.adf');

  it("the author's own file chats; the same file received by someone else is refused until reviewed", async () => {
    const template = join(author.home, 'tpl.json');
    writeFileSync(
      template,
      JSON.stringify({ v: 1, triggers: [{ type: 'on_startup', scope: 'system', lambda: 'boot.ts:run' }] }),
    );
    expect((await as(author, ['agent', 'new', 'shared.adf', '--template', template])).code).toBe(0);
    expect((await as(author, ['agent', 'chat', 'shared.adf', '--json'], 'hi\n')).code).toBe(0);
    markAuthorized(join(author.home, 'shared.adf'));
    copyFileSync(join(author.home, 'shared.adf'), received);
    const refused = await as(owner, ['agent', 'chat', 'shared.adf', '--json'], 'hi\n');
    expect(refused.code).toBe(1);
    expect(failureSchema.parse(refused.json()).error.code).toBeTrustCode('ADF_REVIEW_REQUIRED');
  });

  it('review shows the trigger and the self-authorized lambda; --accept clears the flag and signs', async () => {
    const r = await as(owner, ['agent', 'review', 'shared.adf', '--json']);
    expect(r.code).toBe(0);
    const doc = agentReviewSchema.parse(r.json()).result;
    expect(doc.status).toBe('not-reviewed');
    expect(doc.surface.triggers).toEqual([expect.objectContaining({ type: 'on_startup', lambda: 'boot.ts:run' })]);
    expect(doc.surface.lambdas).toEqual([{ path: 'boot.ts', authorized: true }]);
    expect(doc.changes).toEqual([{ section: 'first-review', before: null, after: null }]);
    const human = await as(owner, ['agent', 'review', 'shared.adf']);
    expect(human.stdout).toContain('AUTHORIZED by the file');
    const accepted = agentReviewSchema.parse(
      (await as(owner, ['agent', 'review', 'shared.adf', '--accept', '--json'])).json(),
    ).result;
    expect(accepted.status).toBe('accepted');
    expect(accepted.accepted?.deauthorized).toEqual(['boot.ts']);
    expect((await as(owner, ['agent', 'chat', 'shared.adf', '--json'], 'hi\n')).code).toBe(0);
    const again = agentReviewSchema.parse((await as(owner, ['agent', 'review', 'shared.adf', '--json'])).json());
    expect(again.result.status).toBe('accepted');
  });

  it('an outside change after acceptance needs a new review, which shows what changed', async () => {
    markAuthorized(received);
    const refused = await as(owner, ['agent', 'chat', 'shared.adf', '--json'], 'hi\n');
    expect(failureSchema.parse(refused.json()).error.code).toBeTrustCode('ADF_REVIEW_REQUIRED');
    const doc = agentReviewSchema.parse((await as(owner, ['agent', 'review', 'shared.adf', '--json'])).json());
    expect(doc.result.status).toBe('not-reviewed');
    expect(doc.result.changes.map((c) => c.section)).toEqual(['lambdas']);
  });
});

describe('inspect and review read what an open would load (built binary)', () => {
  it('a hot -journal beside the file: both show the config that would run, not the one in the file', async () => {
    const template = join(author.home, 'auto.json');
    writeFileSync(template, JSON.stringify({ v: 1, autonomous: true }));
    expect((await as(author, ['agent', 'new', 'hot.adf', '--template', template])).code).toBe(0);
    const path = join(author.home, 'hot.adf');
    // The attacker's raw SQLite: the file says "not autonomous", its hot journal restores "autonomous".
    const runtime = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '@trust', 'agent-runtime');
    const lib = createRequire(join(realpathSync(runtime), 'package.json')).resolve('better-sqlite3');
    const child = `
      const Database = require(process.argv[1]);
      const db = new Database(process.argv[2]);
      db.pragma('journal_mode = DELETE');
      db.pragma('cache_size = 1');
      db.exec('BEGIN IMMEDIATE');
      db.prepare("UPDATE adf_config SET config_json = json_set(config_json, '$.autonomous', json('false'))").run();
      const ins = db.prepare("INSERT INTO adf_logs (level, message, created_at) VALUES ('info', ?, '')");
      for (let i = 0; i < 400; i++) ins.run('x'.repeat(2000));
      process.kill(process.pid, 'SIGKILL');
    `;
    spawnSync(process.execPath, ['-e', child, lib, path], { cwd: dirname(lib) });
    expect(existsSync(`${path}-journal`)).toBe(true);
    const inspect = agentInspectSchema.parse((await as(author, ['agent', 'inspect', 'hot.adf', '--json'])).json());
    expect(inspect.result.autonomous).toBe(true);
    const review = agentReviewSchema.parse((await as(author, ['agent', 'review', 'hot.adf', '--json'])).json());
    expect(review.result.surface.autonomous).toBe(true);
    expect(existsSync(`${path}-journal`)).toBe(true); // the user's directory is left as it was
  });
});
