import { type Dirent, lstatSync, readdirSync } from 'node:fs';
import { z } from 'zod';
import { checkSandboxOptions } from './sandbox-options.js';

/** Options of one scan. */
export interface NestedGitScanOptions {
  /** Paths not entered (hidden and sensitive roots). */
  readonly skip?: readonly string[];
  /** Levels below each root that are entered; default 3. */
  readonly maxDepth?: number;
  /** Directories visited in all; default 2000. */
  readonly maxDirs?: number;
}

/** What the last scan did: directories visited, and how many of them had to be listed again. */
export interface NestedGitScanStats {
  readonly visited: number;
  readonly listed: number;
}

/** Finds `.git` entries of repositories nested below writable roots; see `createNestedGitScanner`. */
export interface NestedGitScanner {
  scan(roots: readonly string[], options?: NestedGitScanOptions): string[];
  readonly lastScan: NestedGitScanStats;
}

interface Listing {
  readonly ino: number;
  readonly ctimeMs: number;
  /** Child directories to enter, and whether a `.git` entry (file or directory) is present. */
  readonly dirs: readonly string[];
  readonly git: boolean;
}

const scannerOptionsSchema = z
  .object({
    racyMs: z
      .number()
      .min(0)
      .max(2_147_483_647)
      .optional()
      .describe('a directory changed this recently (ms) is listed on every scan, e.g. 2000'),
    now: z
      .custom<() => number>((v) => typeof v === 'function', 'expected a function')
      .optional()
      .describe('the clock in ms, e.g. Date.now'),
  })
  .strict();

/**
 * A scanner for `.git` entries of repositories nested below `roots` (not the roots' own `.git`),
 * so a plan can bind them read-only. Bounded: `maxDepth` levels below each root and `maxDirs`
 * directories in all; `node_modules`, `.git` and every path in `skip` are not entered; symlinks
 * are not followed. Repositories created during a run, or deeper than the bound, are not found.
 *
 * Every scan visits the same directories, but lists a directory again only when its inode or its
 * change time differs from the last listing. Adding, removing or renaming an entry changes the
 * directory's ctime, and unlike mtime no unprivileged process can set it back (`utimes` itself
 * updates it). A directory whose ctime lies within `racyMs` of the scan is listed every time,
 * since a change in the same clock tick would not move its ctime. One `lstat` instead of a
 * listing per directory: a workspace of a thousand directories costs about a millisecond, not
 * six, per spawn. (Milliseconds as a double are exact enough: a listing is kept only once its
 * ctime is `racyMs` old, so any later change moves the ctime by at least that much.)
 *
 * @example
 * const scanner = createNestedGitScanner();
 * scanner.scan(['/srv/project'], { skip: ['/root'] }); // ['/srv/project/vendor/lib/.git']
 */
export function createNestedGitScanner(options: { racyMs?: number; now?: () => number } = {}): NestedGitScanner {
  checkSandboxOptions('createNestedGitScanner', scannerOptionsSchema, options);
  const racyMs = options.racyMs ?? 2000;
  const now = options.now ?? Date.now;
  let cache = new Map<string, Listing>();
  let lastScan: NestedGitScanStats = { visited: 0, listed: 0 };

  const list = (dir: string, ino: number, ctimeMs: number): Listing | undefined => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return undefined;
    }
    const dirs: string[] = [];
    let git = false;
    for (const e of entries) {
      if (e.name === '.git') git ||= e.isDirectory() || e.isFile();
      else if (e.isDirectory() && e.name !== 'node_modules') dirs.push(e.name);
    }
    return { ino, ctimeMs, dirs, git };
  };

  return {
    get lastScan() {
      return lastScan;
    },
    scan(roots, scanOptions = {}) {
      const skip = new Set(scanOptions.skip ?? []);
      const maxDepth = scanOptions.maxDepth ?? 3;
      let budget = scanOptions.maxDirs ?? 2000;
      const stableBefore = now() - racyMs;
      const next = new Map<string, Listing>();
      const out: string[] = [];
      let visited = 0;
      let listed = 0;
      const walk = (dir: string, depth: number): void => {
        if (budget-- <= 0) return;
        visited++;
        const st = lstatSync(dir, { throwIfNoEntry: false });
        if (!st?.isDirectory()) return;
        const known = cache.get(dir);
        let listing =
          known && known.ino === st.ino && known.ctimeMs === st.ctimeMs && st.ctimeMs < stableBefore
            ? known
            : undefined;
        if (!listing) {
          listed++;
          listing = list(dir, st.ino, st.ctimeMs);
          if (!listing) return;
        }
        if (listing.ctimeMs < stableBefore) next.set(dir, listing);
        if (depth > 0 && listing.git) out.push(`${dir === '/' ? '' : dir}/.git`);
        if (depth >= maxDepth) return;
        for (const name of listing.dirs) {
          const path = `${dir === '/' ? '' : dir}/${name}`;
          if (!skip.has(path)) walk(path, depth + 1);
        }
      };
      for (const r of roots) walk(r, 0);
      // Only what this scan saw is kept: a directory that left the bound is forgotten.
      cache = next;
      lastScan = { visited, listed };
      return [...new Set(out)];
    },
  };
}
