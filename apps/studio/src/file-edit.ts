// Logic of the studio file editor: which language a file gets, what a save sends, and what the
// editor says about a file it will not let you change.

/** The language CodeMirror highlights for a path; everything but JSON is plain text. */
export function editorLanguage(path: string): 'json' | 'text' {
  return /\.json$/i.test(path) ? 'json' : 'text';
}

/** A file as the control API gives it to the editor (`GET …/file-text/*path`). */
export interface EditableFile {
  path: string;
  content: string;
  sha256: string;
  size: number;
  protection: string;
  editable: boolean;
  refused?: { code: string; reason: string };
}

/** Encodes each segment of a file path for the URL; the server decodes once and validates. */
export function encodeFilePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** The body of a save: the text and the hash of what was read (null: a new file). */
export function saveBody(file: EditableFile | undefined, text: string): { content: string; base: string | null } {
  return { content: text, base: file === undefined ? null : file.sha256 };
}

/** UTF-8 size of the text, to say before saving that it is over the cap. */
export function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** Why a save cannot start now, or undefined when it can. */
export function saveBlocker(file: EditableFile | undefined, text: string, maxBytes: number): string | undefined {
  if (file !== undefined && !file.editable) return `${file.refused?.code ?? 'REFUSED'}: ${file.refused?.reason ?? ''}`;
  if (utf8Bytes(text) > maxBytes) return `the text is ${utf8Bytes(text)} bytes; at most ${maxBytes} can be saved here`;
  if (file !== undefined && text === file.content) return 'no change to save';
  return undefined;
}
