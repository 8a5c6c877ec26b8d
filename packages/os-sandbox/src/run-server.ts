import { startSpawnServer, type SpawnServer } from './spawn-server.js';

/**
 * A sandbox's spawn server: started at the first run that needs it (see `startSpawnServer`),
 * again if it died, never again once it proved unusable here; ended by `close()`.
 *
 * @example
 * const servers = createRunServer(launcher.path, options.spawnServer !== false);
 * if (servers.enabled) servers.ensure();
 */
export function createRunServer(launcherPath: string | undefined, enabled: boolean) {
  let server: SpawnServer | undefined;
  let use = enabled;
  return {
    /** The server, alive or not; undefined before the first `ensure()`. */
    get current(): SpawnServer | undefined {
      return server;
    },
    /** Whether runs go through it (false when disabled, or once it proved unusable). */
    get enabled(): boolean {
      return use;
    },
    /** Starts it unless one is alive; one that cannot be used is closed and runs go without it. */
    ensure(): void {
      if (server?.alive || launcherPath === undefined) return;
      server = startSpawnServer(launcherPath);
      if (!server.usable) {
        server.close();
        use = false;
      }
    },
    close(): void {
      server?.close();
    },
  };
}

/** One sandbox's spawn server (see `createRunServer`). */
export type RunServer = ReturnType<typeof createRunServer>;
