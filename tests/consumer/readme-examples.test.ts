import { describe, expect, it } from 'vitest';
import { extractExamples } from './readme-examples.js';

const md = [
  '# pkg',
  '```ts example',
  "import { a } from 'pkg';",
  'a();',
  '```',
  '```ts',
  'not run();',
  '```',
  '````sh example',
  'echo "```"',
  'trust --help',
  '````',
  '```js   example',
  'console.log(1)',
  '```',
  '```json',
  '{}',
  '```',
].join('\n');

describe('extractExamples', () => {
  it('takes only blocks marked `<lang> example`, with their code and fence line', () => {
    expect(extractExamples(md)).toEqual([
      { lang: 'ts', code: "import { a } from 'pkg';\na();\n", line: 2 },
      { lang: 'sh', code: 'echo "```"\ntrust --help\n', line: 9 },
      { lang: 'js', code: 'console.log(1)\n', line: 13 },
    ]);
  });

  it.each([['```ts'], ['```ts examples'], ['```typescript example'], ['```example']])('ignores %s', (fence) => {
    expect(extractExamples(`${fence}\nx\n\`\`\`\n`)).toEqual([]);
  });

  it('throws on a marked block that is never closed', () => {
    expect(() => extractExamples('```sh example\necho hi\n')).toThrow(/line 1 has no closing fence/);
  });
});
