import { lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AdfReviewSurface } from '@trust/agent-runtime';
import { CliError } from './cli-error.js';
import { trustHome } from './trust-home.js';

type Env = Readonly<Record<string, string | undefined>>;

/** One review the owner accepted, kept to show what changed at the next review. */
export interface AcceptedReview {
  readonly file: string;
  readonly agentDid: string | null;
  readonly acceptedAt: string;
  readonly surface: AdfReviewSurface;
}

/** Reviews kept; older ones are dropped. */
const MAX_REVIEWS = 200;
const MAX_BYTES = 8 * 1024 * 1024;

const pathOf = (env: Env) => join(trustHome(env), 'adf-reviews.json');

/** The accepted reviews (`<trust home>/adf-reviews.json`, version 1), oldest first; [] when none. */
export async function readAcceptedReviews(env: Env): Promise<AcceptedReview[]> {
  const path = pathOf(env);
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return [];
  const bad = (why: string) =>
    new CliError('CLI_REVIEWS_FILE_INVALID', `${path} ${why}`, {
      hint: 'remove it (only the "what changed" view of the next review is lost)',
    });
  if (!st.isFile() || st.size > MAX_BYTES) throw bad('is not a regular file under 8 MB');
  const { parseJsonWithLimits } = await import('@trust/core');
  const doc = parseJsonWithLimits(readFileSync(path, 'utf8'), { maxBytes: MAX_BYTES, maxDepth: 16 }) as {
    v?: unknown;
    reviews?: unknown;
  };
  if (doc.v !== 1 || !Array.isArray(doc.reviews)) throw bad('is not a version-1 reviews file');
  return doc.reviews as AcceptedReview[];
}

/** The last accepted review of the same agent (by its DID), else of the same file path. */
export async function lastAcceptedReview(
  env: Env,
  file: string,
  agentDid: string | null,
): Promise<AcceptedReview | undefined> {
  const all = await readAcceptedReviews(env);
  for (let i = all.length - 1; i >= 0; i--) {
    const r = all[i] as AcceptedReview;
    if ((agentDid !== null && r.agentDid === agentDid) || (agentDid === null && r.file === file)) return r;
  }
  return undefined;
}

/** Appends an accepted review (atomically: written beside, then renamed). */
export async function recordAcceptedReview(env: Env, review: AcceptedReview): Promise<void> {
  const all = [...(await readAcceptedReviews(env)), review].slice(-MAX_REVIEWS);
  mkdirSync(trustHome(env), { recursive: true, mode: 0o700 });
  const path = pathOf(env);
  writeFileSync(`${path}.tmp`, `${JSON.stringify({ v: 1, reviews: all })}\n`, { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}
