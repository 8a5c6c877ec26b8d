import { describe, expect, it } from 'vitest';
import { parseSandboxPolicy } from './policy.js';
import { PROTECTED_ENTRIES, protectedEntriesOf } from './protected-paths.js';

// sandbox-runtime's mandatory-deny list, each by the entry that covers it here.
const MANDATORY_DENY: readonly [string, string][] = [
  ['.bashrc', '.bashrc'],
  ['.bash_profile', '.bash_profile'],
  ['.zshrc', '.zshrc'],
  ['.zprofile', '.zprofile'],
  ['.profile', '.profile'],
  ['.gitconfig', '.gitconfig'],
  ['.gitmodules', '.gitmodules'],
  ['.ripgreprc', '.ripgreprc'],
  ['.mcp.json', '.mcp.json'],
  ['.vscode/', '.vscode'],
  ['.idea/', '.idea'],
  ['.claude/commands/', '.claude'],
  ['.claude/agents/', '.claude'],
];

describe('the protected list', () => {
  it.each(MANDATORY_DENY)('covers %s (by %s)', (_path, name) => {
    expect(PROTECTED_ENTRIES.map((e) => e.name)).toContain(name);
  });

  it.each(['.cursor', '.claude', '.idea', '.vscode'])('protects %s as a whole directory', (name) => {
    expect(PROTECTED_ENTRIES.find((e) => e.name === name)?.type).toBe('dir');
  });

  it('is extended by the policy: "name" a file, "name/" a directory, built-ins not overridden', () => {
    const policy = parseSandboxPolicy({
      v: 1,
      protectedPaths: ['.tool-versions', '.continue/', '.claude', '.bashrc/'],
    });
    const added = protectedEntriesOf(policy).slice(PROTECTED_ENTRIES.length);
    expect(added.map((e) => [e.name, e.type])).toEqual([
      ['.tool-versions', 'file'],
      ['.continue', 'dir'],
    ]);
    expect(protectedEntriesOf(policy).find((e) => e.name === '.bashrc')?.type).toBe('file');
  });

  it.each([['a/b'], ['..'], ['.'], ['./'], [''], ['/abs'], ['x\0y'], ['x\ny'], ['.git'], ['.git/']])(
    'refuses protectedPaths entry %j',
    (name) => {
      expect(() => parseSandboxPolicy({ v: 1, protectedPaths: [name] })).toThrowTrustError('SANDBOX_POLICY_INVALID');
    },
  );
});
