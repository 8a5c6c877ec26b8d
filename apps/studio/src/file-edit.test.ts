import { describe, expect, it } from 'vitest';
import { editorLanguage, encodeFilePath, saveBlocker, saveBody, type EditableFile } from './file-edit';

const file: EditableFile = {
  path: 'a.md',
  content: 'one',
  sha256: 'f'.repeat(64),
  size: 3,
  protection: 'none',
  editable: true,
};

describe('file editor logic', () => {
  it('highlights JSON only', () => {
    expect(editorLanguage('cfg/x.JSON')).toBe('json');
    expect(editorLanguage('notes.md')).toBe('text');
  });
  it('encodes each segment, keeping the slashes for the server to validate', () => {
    expect(encodeFilePath('docs/a b#.md')).toBe('docs/a%20b%23.md');
    expect(encodeFilePath('../x')).toBe('../x');
  });
  it('a save names the hash it read, or null for a new file', () => {
    expect(saveBody(file, 'two')).toEqual({ content: 'two', base: 'f'.repeat(64) });
    expect(saveBody(undefined, 'new')).toEqual({ content: 'new', base: null });
  });
  it('blocks a save that would be refused, with the reason', () => {
    expect(saveBlocker(file, 'two', 100)).toBeUndefined();
    expect(saveBlocker(file, 'one', 100)).toBe('no change to save');
    expect(saveBlocker(file, '€'.repeat(40), 100)).toContain('120 bytes');
    const ro = { ...file, editable: false, refused: { code: 'ADF_FILE_PROTECTED', reason: 'read_only' } };
    expect(saveBlocker(ro, 'two', 100)).toBe('ADF_FILE_PROTECTED: read_only');
    expect(saveBlocker(undefined, '', 100)).toBeUndefined();
  });
});
