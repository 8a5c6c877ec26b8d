import { spawn } from 'node:child_process';

/**
 * Opens a URL in the user's browser (xdg-open on Linux, open on macOS), detached. Resolves to
 * false when no opener could be started; the caller then prints the URL for the user to open.
 */
export function openBrowser(url: string, platform: NodeJS.Platform): Promise<boolean> {
  const command = platform === 'darwin' ? 'open' : platform === 'win32' ? undefined : 'xdg-open';
  if (!command) return Promise.resolve(false);
  return new Promise((resolve) => {
    const child = spawn(command, [url], { detached: true, stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}
