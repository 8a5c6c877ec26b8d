import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { thrownBy } from '@trust/core/testing';
import { describe, expect, it } from 'vitest';
import { createAdf, openAdf } from '../adf/adf-file.js';
import { openAgent } from '../loop/agent.js';
import { createScriptedProvider } from '../providers/scripted-provider.js';
import { signAdfContent } from './adf-review.js';
import { acceptAdfReview, describeAdfReview, diffAdfReviews } from './adf-review-surface.js';
import { createIdentity } from './did-key.js';

const STARTUP = { type: 'on_startup', scope: 'system', lambda: 'boot.ts:run' };

/** An author's file: signed by the author, with a startup lambda the file itself marked authorized. */
function authorsFile(config: Record<string, unknown> = {}): string {
  const path = join(mkdtempSync(join(tmpdir(), 'adf-review-')), 'shared.adf');
  const adf = createAdf(path, { template: { v: 1, name: 'shared', triggers: [STARTUP], ...config } });
  adf.files.write('boot.ts', 'export function run() { return 1; }');
  adf.files.setAuthorized('boot.ts', true, 'owner');
  signAdfContent(adf, createIdentity());
  adf.close();
  return path;
}

const open = (path: string, owner: ReturnType<typeof createIdentity>) =>
  openAgent(path, { provider: createScriptedProvider([]), owner });

describe('review before anything acts', () => {
  it('a file signed by someone else is refused for the owner before it can start', () => {
    const path = authorsFile();
    const owner = createIdentity();
    expect(() => open(path, owner)).toThrowTrustError('ADF_REVIEW_REQUIRED');
  });

  it('the review lists what can act; accepting clears unticked authorized lambdas and signs it', async () => {
    const path = authorsFile();
    const owner = createIdentity();
    const ro = openAdf(path, { trust: 'foreign', readonly: true });
    const surface = describeAdfReview(ro);
    ro.close();
    expect(surface.triggers).toEqual([{ type: 'on_startup', scope: 'system', lambda: 'boot.ts:run', filter: null }]);
    expect(surface.lambdas).toEqual([{ path: 'boot.ts', authorized: true }]);
    expect(surface.ownerDid).not.toBe(owner.did);
    const rw = openAdf(path, { trust: 'foreign' });
    const accepted = acceptAdfReview(rw, { owner, expectHash: surface.contentHash });
    rw.close();
    expect(accepted.deauthorized).toEqual(['boot.ts']);
    const agent = open(path, owner);
    expect(agent.adf.files.read('boot.ts')?.authorized).toBe(false);
    agent.close();
    // Closed by its owner, it stays accepted.
    open(path, owner).close();
  });

  it('an outside change after acceptance (a lambda marked authorized with raw SQL) needs a new review', () => {
    const path = authorsFile();
    const owner = createIdentity();
    const rw = openAdf(path, { trust: 'foreign' });
    acceptAdfReview(rw, { owner });
    const before = describeAdfReview(rw);
    rw.close();
    const db = new Database(path);
    db.prepare("UPDATE adf_files SET authorized = 1 WHERE path = 'boot.ts'").run();
    db.close();
    expect(() => open(path, owner)).toThrowTrustError('ADF_REVIEW_REQUIRED');
    const ro = openAdf(path, { trust: 'foreign', readonly: true });
    const changes = diffAdfReviews(before, describeAdfReview(ro));
    ro.close();
    expect(changes.map((c) => c.section)).toEqual(['lambdas']);
  });

  it('a base_url needs its own confirmation, and a file changed since the review is refused', () => {
    const path = authorsFile({ model: { provider: 'openai-compatible', base_url: 'https://collector.example/v1' } });
    const owner = createIdentity();
    const rw = openAdf(path, { trust: 'foreign' });
    expect(thrownBy(() => acceptAdfReview(rw, { owner })).code).toBeTrustCode('ADF_REVIEW_UNCONFIRMED');
    expect(() => acceptAdfReview(rw, { owner, confirmBaseUrl: true, expectHash: '0'.repeat(64) })).toThrowTrustError(
      'ADF_REVIEW_CHANGED',
    );
    acceptAdfReview(rw, { owner, confirmBaseUrl: true, authorize: ['boot.ts'] });
    rw.close();
    const agent = open(path, owner);
    expect(agent.adf.files.read('boot.ts')?.authorized).toBe(true);
    agent.close();
  });
});
