// The start form of a sandbox run, as pure functions over the request document (the JSON the
// owner sees and may edit): the form reads its fields from the document and writes them back, so
// the JSON is the one source of truth. No shell: a command line is split on spaces and quotes only.

/** The request the control API takes: `{ argv, cwd?, policy, egress?, stdin? }`. */
export interface StartDoc {
  argv: string[];
  cwd?: string;
  policy: Record<string, unknown>;
  egress?: Record<string, unknown> | null;
  /** Text given to the run as standard input; the form grants `stdin` with it. */
  stdin?: string;
}

export type NetworkMode = 'none' | 'http' | 'tcp';

/** The form's fields. */
export interface StartForm {
  command: string;
  network: NetworkMode;
  guard: 'strict' | 'default' | 'allow-local';
  hosts: string;
  readDirs: string;
  writeDirs: string;
  env: string;
  timeoutSeconds: string;
  stdin: string;
}

export const DEFAULT_DOC: StartDoc = {
  argv: ['echo', 'hello from the sandbox'],
  policy: { v: 1, capabilities: ['stdout', 'stderr'], limits: { timeMs: 30_000 } },
};

/** Splits a command line into argv: spaces separate words, '…' and "…" group them. Nothing is expanded. */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (const ch of line) {
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      else word = (word ?? '') + ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      word ??= '';
    } else if (ch === ' ' || ch === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + ch;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** argv as a command line that `splitCommand` reads back to the same words. */
export function joinCommand(argv: readonly string[]): string {
  return argv.map((w) => (w !== '' && !/[\s'"]/.test(w) ? w : w.includes("'") ? `"${w}"` : `'${w}'`)).join(' ');
}

/** Parses the JSON text into a request document, or says why not. */
export function parseDoc(text: string): { ok: true; doc: StartDoc } | { ok: false; reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, reason: `not valid JSON: ${(e as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, reason: 'the request must be a JSON object {"argv": [...], "policy": {...}}' };
  const d = value as Record<string, unknown>;
  if (!Array.isArray(d.argv) || !d.argv.every((w) => typeof w === 'string'))
    return { ok: false, reason: '"argv" must be a list of strings, e.g. ["echo", "hi"]' };
  if (typeof d.policy !== 'object' || d.policy === null || Array.isArray(d.policy))
    return { ok: false, reason: '"policy" must be an object, e.g. {"v":1,"capabilities":["stdout"]}' };
  return { ok: true, doc: value as StartDoc };
}

const capsOf = (doc: StartDoc): string[] =>
  Array.isArray(doc.policy.capabilities) ? doc.policy.capabilities.map(String) : [];
const lines = (text: string): string[] =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');

/** The form fields a document shows. */
export function readForm(doc: StartDoc): StartForm {
  const caps = capsOf(doc);
  const egress = doc.egress ?? undefined;
  const section = (egress?.http ?? egress?.tcp) as { allow?: unknown } | undefined;
  const guard = (egress?.guard as { mode?: StartForm['guard'] } | undefined)?.mode ?? 'strict';
  const limits = doc.policy.limits as { timeMs?: unknown } | undefined;
  return {
    command: joinCommand(doc.argv),
    network: caps.includes('http') ? 'http' : caps.includes('tcp') ? 'tcp' : 'none',
    guard,
    hosts: Array.isArray(section?.allow) ? section.allow.map(String).join('\n') : '',
    readDirs: caps
      .filter((c) => c.startsWith('fs:ro:'))
      .map((c) => c.slice(6))
      .join('\n'),
    writeDirs: caps
      .filter((c) => c.startsWith('fs:rw:'))
      .map((c) => c.slice(6))
      .join('\n'),
    env: caps
      .filter((c) => c.startsWith('env:'))
      .map((c) => c.slice(4))
      .join('\n'),
    timeoutSeconds: typeof limits?.timeMs === 'number' ? String(limits.timeMs / 1000) : '',
    stdin: typeof doc.stdin === 'string' ? doc.stdin : '',
  };
}

/** The document with one form field changed; everything the form does not show is kept as it is. */
export function applyForm(doc: StartDoc, field: keyof StartForm, value: string): StartDoc {
  const form = { ...readForm(doc), [field]: value } as StartForm;
  if (field === 'command') return { ...doc, argv: splitCommand(value) };
  if (field === 'stdin') return withStdin(doc, value);
  const others = capsOf(doc).filter(
    (c) => !(c === 'http' || c === 'tcp' || c.startsWith('fs:') || c.startsWith('env:')),
  );
  const capabilities = [
    ...others,
    ...(form.network === 'none' ? [] : [form.network]),
    ...lines(form.readDirs).map((d) => `fs:ro:${d}`),
    ...lines(form.writeDirs).map((d) => `fs:rw:${d}`),
    ...lines(form.env).map((n) => `env:${n}`),
  ];
  const seconds = Number(form.timeoutSeconds);
  const limits = { ...((doc.policy.limits as Record<string, unknown> | undefined) ?? {}) };
  if (form.timeoutSeconds.trim() === '') delete limits.timeMs;
  else limits.timeMs = Number.isFinite(seconds) ? Math.round(seconds * 1000) : form.timeoutSeconds;
  const next: StartDoc = { ...doc, policy: { ...doc.policy, capabilities, limits } };
  if (form.network === 'none') {
    delete next.egress;
    return next;
  }
  const base = doc.egress ?? { v: 1 };
  const { http: _h, tcp: _t, ...rest } = base;
  next.egress = {
    ...rest,
    v: base.v ?? 1,
    [form.network]: { allow: lines(form.hosts) },
    guard: { ...((base.guard as Record<string, unknown> | undefined) ?? {}), mode: form.guard },
  };
  return next;
}

/**
 * The place in the run's egress policy a decision's rule names: `name:http.allow` and
 * `name:http.allow:host` → `http.allow`, `name:http.inject[0]` → `http.inject.0`; the address guard's
 * rules (`block-private`, …) → `guard`. Undefined for rules outside the policy file.
 */
export function ruleSection(rule: string | undefined): string | undefined {
  if (rule === undefined) return undefined;
  const m = /(?:^|:)((?:http|tcp|udp)\.(?:allow|deny|inject(?:\[\d+\])?|methods))(?::|$)/.exec(rule);
  if (m) return m[1]!.replace(/\[(\d+)\]/, '.$1');
  if (/^(block-|address-guard|guard)/.test(rule)) return 'guard';
  return undefined;
}

/** The problems whose path is `prefix` or lies under it. */
export function problemsUnder<P extends { path: string }>(problems: readonly P[], prefix: string): P[] {
  return problems.filter((p) => p.path === prefix || p.path.startsWith(`${prefix}.`));
}

/** The document with `text` as the run's standard input and the `stdin` grant; '' removes both. */
function withStdin(doc: StartDoc, text: string): StartDoc {
  const { stdin: _old, ...rest } = doc;
  const caps = capsOf(doc).filter((c) => c !== 'stdin');
  const capabilities = text === '' ? caps : [...caps, 'stdin'];
  return { ...rest, ...(text === '' ? {} : { stdin: text }), policy: { ...doc.policy, capabilities } };
}
