import { afterAll, describe, expect, it } from 'vitest';
import { rootHelpTexts } from './root-help.js';
import { createTempHome, runCli } from './run-cli.test-helper.js';

// bin/trust.cjs prints the root help from dist/root-help.json without loading the ES module CLI;
// it must print exactly what the CLI's own formatter prints, with the same colour rule.
describe('bin/trust.cjs root help fast path', () => {
  const home = createTempHome();
  afterAll(() => home.cleanup());
  const texts = rootHelpTexts();

  it.each([[[]], [['--help']], [['-h']]])(
    'prints the plain root help for %j when stdout is not a terminal',
    async (args) => {
      const r = await runCli(args, { home: home.home });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(texts.plain);
    },
  );

  it('styles it under FORCE_COLOR, and NO_COLOR wins over FORCE_COLOR', async () => {
    expect(texts.color).not.toBe(texts.plain);
    expect((await runCli(['--help'], { home: home.home, env: { FORCE_COLOR: '1' } })).stdout).toBe(texts.color);
    expect((await runCli(['--help'], { home: home.home, env: { FORCE_COLOR: '1', NO_COLOR: '1' } })).stdout).toBe(
      texts.plain,
    );
  });

  it('hands everything else to the ES module CLI, exit code included', async () => {
    const version = await runCli(['--version'], { home: home.home });
    expect(version.stdout).toMatch(/^trust \d+\.\d+\.\d+\n$/);
    const bad = await runCli(['--help', 'nonsense-command'], { home: home.home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('nonsense-command');
  });
});
