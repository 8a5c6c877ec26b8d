// The staged root, /etc and /dev (launcher --stage-root, --stage, --stage-dev) with real
// bubblewrap: what the command sees, against what bwrap makes itself where the launcher cannot stage.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ETC_FILES } from './protected-paths.js';
import { ensureLauncher } from './launcher.js';
import { probeSandbox } from './probe.js';
import { createSandbox } from './sandbox.js';
import { runIn } from './test-helpers.js';

/** Runs `script` where the launcher stages the base and where bwrap makes it itself; returns both stdouts. */
async function stagedAndPlain(script: string): Promise<[string, string]> {
  const probe = await probeSandbox({ launcherPath: (await ensureLauncher()).path });
  const staged = await createSandbox({ v: 1, capabilities: ['stdout', 'stderr'] }, { probe });
  const plain = await createSandbox(
    { v: 1, capabilities: ['stdout', 'stderr'] },
    { probe: { ...probe, pinNamespace: false } },
  );
  try {
    const [a, b] = await Promise.all([
      runIn(staged, ['/bin/sh', '-c', script]),
      runIn(plain, ['/bin/sh', '-c', script]),
    ]);
    return [a.stdout, b.stdout];
  } finally {
    await Promise.all([staged.close(), plain.close()]);
  }
}

const LIST =
  'ls -A /etc; touch /etc/new 2>&1; { echo x >> /etc/passwd; } 2>&1; grep -c " /etc[ /]" /proc/self/mountinfo';

describe('the staged root, /etc and /dev (bubblewrap)', () => {
  it('holds exactly the host files a sandbox gets, read-only, as one tmpfs with a bind per file', async () => {
    expect(existsSync('/usr/bin/bwrap'), 'bubblewrap must be installed').toBe(true);
    const sb = await createSandbox({ v: 1, capabilities: ['stdout', 'stderr'] });
    try {
      expect(sb.probe.pinNamespace).toBe(true);
      const r = await runIn(sb, ['/bin/sh', '-c', LIST]);
      const lines = r.stdout.trim().split('\n');
      const present = ETC_FILES.filter((f) => existsSync(f)).map((f) => f.slice('/etc/'.length));
      expect(lines.slice(0, present.length)).toEqual([...present].sort());
      expect(lines.slice(present.length, present.length + 2)).toEqual([
        "touch: cannot touch '/etc/new': Read-only file system",
        '/bin/sh: 1: cannot create /etc/passwd: Read-only file system',
      ]);
      // The stage itself plus one mount per present file.
      expect(lines.at(-1)).toBe(String(present.length + 1));
      expect(r.exit.code).toBe(0);
    } finally {
      await sb.close();
    }
  });

  it('with a system root inside /etc the files are bwrap binds, and the root is there too', async () => {
    const sb = await createSandbox({ v: 1, capabilities: ['stdout', 'stderr'], systemRoots: ['/etc/ssl'] });
    try {
      const r = await runIn(sb, ['/bin/sh', '-c', `${LIST}; ls /etc/ssl | head -1`]);
      expect(r.stdout).toContain('passwd\n');
      expect(r.stdout).toContain('Read-only file system');
      expect(r.stdout.trim().split('\n').at(-1)).toBe('certs');
    } finally {
      await sb.close();
    }
  });

  it(
    'the root is what bwrap makes itself: the same entries, ' + 'mounts and mount flags, read-only where it is',
    async () => {
      const BASE =
        'ls -lA / | awk \'$NF != "etc" {print $1, $3, $4, $NF}\'; ' +
        'for d in / /usr /tmp /var/tmp /sandbox/home /run /dev /proc; do awk -v d=$d ' +
        "'$5 == d {print $5, $6, $(NF-2)}' /proc/self/mountinfo; done; " +
        'ls -ld /tmp /var/tmp /sandbox/home /run /var /sandbox; readlink /bin /sbin /lib /lib64 /var/run; ' +
        'for p in /x /tmp/x /var/tmp/x /sandbox/home/x /run/x /usr/x /var/x /sandbox/x ' +
        '/proc/x; do touch $p 2>/dev/null && echo "w $p" || echo "ro $p"; done';
      const [a, b] = await stagedAndPlain(BASE);
      expect(a).toBe(b);
      expect(a).toMatch(/^\/ ro,nosuid,nodev,relatime tmpfs$/m);
      expect(a).toMatch(/^\/usr ro,nosuid,nodev,relatime /m);
      expect(a).toContain(
        'ro /x\nw /tmp/x\nw /var/tmp/x\nw /sandbox/home/x\nw /run/x\nro /usr/x\nro /var/x\nro /sandbox/x\nro /proc/x\n',
      );
      expect(a).toContain('usr/bin\nusr/sbin\nusr/lib\nusr/lib64\n../run\n');
    },
  );

  it('/dev is what bwrap --dev makes: the same entries, modes and mount flags, devices and ptys working', async () => {
    const DEV =
      "ls -lA /dev /dev/pts | awk '{print $1, $NF}'; awk '$5 ~ /^\\/dev/ " +
      "{print $4, $5, $6, $(NF-2)}' /proc/self/mountinfo; " +
      'head -c 4 /dev/urandom | wc -c; echo x > /dev/null && echo null-ok; touch /dev/shm/s && echo shm-ok; ' +
      'python3 -c "import os, pty; m, s = pty.openpty(); print(os.ttyname(s))" 2>&1';
    const [a, b] = await stagedAndPlain(DEV);
    expect(a).toBe(b);
    expect(a).toContain('crw-rw-rw- null\n');
    expect(a).toContain('/null /dev/null rw,nosuid,relatime devtmpfs\n');
    expect(a).toContain('/ /dev/pts rw,nosuid,noexec,relatime devpts\n');
    expect(a).toMatch(/^4\nnull-ok\nshm-ok\n\/dev\/pts\/0\n$/m);
  });
});
