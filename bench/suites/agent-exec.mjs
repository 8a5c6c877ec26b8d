// Agent runtime part 2 (execution): sys_code in the QuickJS-WASM isolate against node:vm (the
// design ADF 0.4.2 used, which is escapable: see the package README), shell preflight of a
// 20-command pipeline against parsing alone, and the loop's overhead per tool-using turn with the
// scripted provider against calling the tool directly.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import vm from 'node:vm';
import { createRequire } from 'node:module';
import { allow } from '@trust/core';
import { createAdf, createScriptedProvider, defaultAgentConfig, openAgent } from '@trust/agent-runtime';
import { createCodeSandbox } from '@trust/agent-runtime/code';
import { createShell } from '@trust/agent-runtime/shell';
import { fsReadTool } from '@trust/agent-runtime/tools';
import { percentile, sample } from '../lib/table.mjs';

const ms = (ns) => ns / 1e6;

export default async function run({ log }) {
  const rows = [];
  const bridge = async () => null;

  // sys_code warm: a fresh QuickJS runtime + context per execution, in a loaded WebAssembly module.
  const sandbox = createCodeSandbox();
  for (let i = 0; i < 50; i++) await sandbox.run({ code: 'return 1 + 1', bridge });
  const warm = await sample(() => sandbox.run({ code: 'return 1 + 1', bridge }), 500);
  const vmWarm = await sample(() => vm.runInNewContext('1 + 1'), 500);
  rows.push({
    measure: 'sys_code trivial, warm (p50)',
    unit: 'ms',
    ours: ms(percentile(warm, 50)),
    baseline: ms(percentile(vmWarm, 50)),
    baselineName: 'node:vm new context (escapable)',
    better: 'lower',
    target: { max: 5 },
  });
  rows.push({
    measure: 'sys_code trivial, warm (p99)',
    unit: 'ms',
    ours: ms(percentile(warm, 99)),
    baseline: ms(percentile(vmWarm, 99)),
    baselineName: 'node:vm new context (escapable)',
    better: 'lower',
  });
  const bridged = await sample(
    () => sandbox.run({ code: 'for (let i = 0; i < 10; i++) await adf.x({ i }); return 1', bridge }),
    200,
  );
  rows.push({
    measure: 'sys_code with 10 bridge calls (p50)',
    unit: 'ms',
    ours: ms(percentile(bridged, 50)),
    baseline: ms(percentile(warm, 50)),
    baselineName: 'sys_code trivial',
    better: 'lower',
  });

  // cold: a new sandbox (WebAssembly module instantiated) and its first execution.
  const cold = await sample(async () => {
    await createCodeSandbox().run({ code: 'return 1', bridge });
  }, 8);
  const vmCold = await sample(() => {
    vm.runInNewContext('1', {});
  }, 8);
  rows.push({
    measure: 'sys_code cold start (p50)',
    unit: 'ms',
    ours: ms(percentile(cold, 50)),
    baseline: ms(percentile(vmCold, 50)),
    baselineName: 'node:vm new context (escapable)',
    better: 'lower',
  });

  // shell: preflight + interpretation of a 20-command pipeline against parsing the same script.
  const gate = { preflight: async () => allow('bench'), call: async () => ({ content: '' }) };
  const shell = createShell({ gate });
  const script = Array.from({ length: 20 }, (_v, i) => (i === 0 ? 'echo a b c' : i % 2 ? 'cat' : 'grep -v zzz')).join(
    ' | ',
  );
  for (let i = 0; i < 20; i++) await shell.run(script);
  const sh = await sample(() => shell.run(script), 200);
  // the parser the shell uses, resolved from the runtime package (it is not a bench dependency)
  let mvdan;
  try {
    mvdan = createRequire(import.meta.resolve('@trust/agent-runtime'))('mvdan-sh');
  } catch {
    mvdan = undefined;
  }
  let parseOnly;
  if (mvdan) {
    const parser = mvdan.syntax.NewParser();
    parseOnly = await sample(() => parser.Parse(script, 's'), 200);
  }
  rows.push({
    measure: 'shell: 20-command pipeline, preflight + run (p50)',
    unit: 'ms',
    ours: ms(percentile(sh, 50)),
    ...(parseOnly ? { baseline: ms(percentile(parseOnly, 50)), baselineName: 'mvdan/sh parse only' } : {}),
    better: 'lower',
  });
  // the same length of pipeline through the text commands agents use (sed, awk, cut, sort, tr, …)
  const textCmds = [
    "sed 's/a/b/g'",
    "awk '{print $1, NF}'",
    'cut -d" " -f1,2',
    'sort',
    'uniq -c',
    'tr a-z A-Z',
    'tr A-Z a-z',
    'grep -v zzz',
    'rev',
    'rev',
  ];
  const textScript = [
    'printf "a b c\\nd e f\\n"',
    ...Array.from({ length: 19 }, (_v, i) => textCmds[i % textCmds.length]),
  ].join(' | ');
  for (let i = 0; i < 20; i++) await shell.run(textScript);
  const shText = await sample(() => shell.run(textScript), 200);
  rows.push({
    measure: 'shell: 20-command pipeline of sed/awk/cut/sort/tr…, preflight + run (p50)',
    unit: 'ms',
    ours: ms(percentile(shText, 50)),
    baseline: ms(percentile(sh, 50)),
    baselineName: 'echo/cat/grep pipeline',
    better: 'lower',
  });

  // loop: one tool-using turn pair (model asks fs_read, then answers) against fs_read run directly.
  const dir = mkdtempSync(join(tmpdir(), 'bench-agent-exec-'));
  try {
    const path = join(dir, 'a.adf');
    const adf = createAdf(path, { template: JSON.parse(JSON.stringify(defaultAgentConfig())) });
    adf.files.write('notes.md', 'hello');
    adf.close();
    const provider = createScriptedProvider();
    const agent = openAgent(path, { provider });
    const N = 200;
    const step = () => {
      provider.push(
        { content: [{ type: 'tool_use', id: 't', name: 'fs_read', input: { path: 'notes.md' } }] },
        { content: [{ type: 'text', text: 'ok' }] },
      );
      return agent.send('read it');
    };
    for (let i = 0; i < 20; i++) await step();
    const loop = await sample(step, N);
    const ctx = { adf: agent.adf, config: agent.adf.config() };
    const direct = await sample(() => fsReadTool.run({ path: 'notes.md' }, ctx), N);
    rows.push({
      measure: 'loop: tool-using turn, scripted provider (p50)',
      unit: 'ms',
      ours: ms(percentile(loop, 50)),
      baseline: ms(percentile(direct, 50)),
      baselineName: 'fs_read called directly',
      better: 'lower',
    });
    log(`loop rows after run: ${agent.adf.loop.list().length}`);
    agent.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
