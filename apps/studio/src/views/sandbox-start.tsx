import { useEffect, useState } from 'react';
import { ApiError } from '../api';
import { ErrorNote, useStudio } from '../studio-context';
import { DEFAULT_DOC, applyForm, parseDoc, problemsUnder, readForm, type StartForm } from '../sandbox-request';
import type { SandboxCheck, SandboxLiveRun, SandboxProblem, SandboxStarted } from '../sandbox-types';

/** Waits this long after the last keystroke before asking the server to validate. */
const SETTLE_MS = 300;

/**
 * Starts a sandbox run: a form over the sandbox policy (command, network, hosts, directories,
 * environment, time limit) and the request JSON it writes, which may be edited directly. The
 * server validates it with the sandbox's own schema and spawn boundary as you type; each problem
 * is shown under the JSON and beside the field it concerns.
 */
export function SandboxStart({ onStarted }: { onStarted(run: SandboxLiveRun): void }) {
  const { api } = useStudio();
  const [text, setText] = useState(() => JSON.stringify(DEFAULT_DOC, null, 2));
  // What the owner is typing in a field, kept as typed (a trailing space, an empty line).
  const [drafts, setDrafts] = useState<Partial<StartForm>>({});
  const [check, setCheck] = useState<SandboxCheck>();
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const parsed = parseDoc(text);
  const fail = (e: unknown) => setError(e instanceof ApiError ? e : new ApiError(0, 'NETWORK', String(e)));

  useEffect(() => {
    const doc = parseDoc(text);
    if (!doc.ok) {
      setCheck(undefined);
      return;
    }
    let live = true;
    const t = setTimeout(() => {
      api.send<SandboxCheck>('POST', '/sandbox/validate', doc.doc).then(
        (c) => {
          if (!live) return;
          setCheck(c);
          setError(undefined);
        },
        (e: unknown) => live && setError(e instanceof ApiError ? e : new ApiError(0, 'NETWORK', String(e))),
      );
    }, SETTLE_MS);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [api, text]);

  const form = parsed.ok ? readForm(parsed.doc) : undefined;
  const set = (field: keyof StartForm, value: string) => {
    if (!parsed.ok) return;
    setDrafts((d) => ({ ...d, [field]: value }));
    setText(JSON.stringify(applyForm(parsed.doc, field, value), null, 2));
  };
  const value = (field: keyof StartForm): string => drafts[field] ?? form?.[field] ?? '';
  const problems = check?.ok === false ? check.problems : [];

  const start = () => {
    if (!parsed.ok) return;
    setBusy(true);
    api.send<SandboxStarted>('POST', '/sandbox/runs', parsed.doc).then(
      (r) => {
        setBusy(false);
        setError(undefined);
        if (r.ok) onStarted(r.run);
        else setCheck({ ok: false, problems: r.problems });
      },
      (e: unknown) => {
        setBusy(false);
        fail(e);
      },
    );
  };

  return (
    <div className="sandbox-start">
      <h3>Start a run</h3>
      <div className="policy-grid">
        <fieldset className="start-form" disabled={!parsed.ok}>
          <label className="stack">
            Command (no shell: words split on spaces, quotes group)
            <input
              value={value('command')}
              onChange={(e) => set('command', e.target.value)}
              aria-label="command"
              spellCheck={false}
            />
          </label>
          <FieldProblems problems={[...problemsUnder(problems, 'argv'), ...problemsUnder(problems, 'cwd')]} />
          <label className="stack">
            Network
            <select value={value('network')} onChange={(e) => set('network', e.target.value)} aria-label="network">
              <option value="none">none (no network at all)</option>
              <option value="http">http (through the egress proxy)</option>
              <option value="tcp">tcp (through the egress proxy)</option>
            </select>
          </label>
          {value('network') !== 'none' ? (
            <>
              <label className="stack">
                Allowed hosts (one a line: host, host:port, *.example.com)
                <textarea
                  value={value('hosts')}
                  onChange={(e) => set('hosts', e.target.value)}
                  rows={3}
                  aria-label="allowed hosts"
                  spellCheck={false}
                />
              </label>
              <label className="stack">
                Address guard
                <select value={value('guard')} onChange={(e) => set('guard', e.target.value)} aria-label="guard mode">
                  <option value="strict">strict</option>
                  <option value="default">default</option>
                  <option value="allow-local">allow-local</option>
                </select>
              </label>
              <FieldProblems problems={problemsUnder(problems, 'egress')} />
            </>
          ) : null}
          <label className="stack">
            Read-only directories (one a line)
            <textarea
              value={value('readDirs')}
              onChange={(e) => set('readDirs', e.target.value)}
              rows={2}
              aria-label="read-only directories"
              spellCheck={false}
            />
          </label>
          <label className="stack">
            Writable directories (one a line)
            <textarea
              value={value('writeDirs')}
              onChange={(e) => set('writeDirs', e.target.value)}
              rows={2}
              aria-label="writable directories"
              spellCheck={false}
            />
          </label>
          <label className="stack">
            Environment variables passed (names, one a line)
            <textarea
              value={value('env')}
              onChange={(e) => set('env', e.target.value)}
              rows={2}
              aria-label="environment names"
              spellCheck={false}
            />
          </label>
          <label className="stack">
            Standard input (text; grants <code>stdin</code>)
            <textarea
              value={value('stdin')}
              onChange={(e) => set('stdin', e.target.value)}
              rows={2}
              aria-label="standard input"
              spellCheck={false}
            />
          </label>
          <FieldProblems problems={problemsUnder(problems, 'stdin')} />
          <label className="stack">
            Time limit (seconds)
            <input
              value={value('timeoutSeconds')}
              onChange={(e) => set('timeoutSeconds', e.target.value)}
              aria-label="time limit"
              size={8}
            />
          </label>
          <FieldProblems problems={problemsUnder(problems, 'policy')} />
        </fieldset>
        <div className="policy-editor">
          <label className="stack" htmlFor="sandbox-request">
            Request (JSON: argv, cwd, the sandbox policy and the egress policy)
          </label>
          <textarea
            id="sandbox-request"
            className="args policy-text"
            value={text}
            onChange={(e) => {
              setDrafts({});
              setText(e.target.value);
            }}
            spellCheck={false}
            rows={18}
            aria-label="run request"
            aria-invalid={!parsed.ok || check?.ok === false}
          />
          {!parsed.ok ? (
            <p className="error" role="alert" data-valid="false">
              {parsed.reason}
            </p>
          ) : check?.ok === true ? (
            <p className="note ok-note" role="status" data-valid="true">
              Valid: the sandbox accepts this request.
            </p>
          ) : problems.length > 0 ? (
            <ul className="problems" role="alert" data-valid="false">
              {problems.map((p) => (
                <ProblemItem key={`${p.path}|${p.code}|${p.message}`} problem={p} />
              ))}
            </ul>
          ) : null}
          <ErrorNote error={error} />
          <button type="button" onClick={start} disabled={!parsed.ok || busy}>
            {busy ? 'Starting…' : 'Start run'}
          </button>
        </div>
      </div>
    </div>
  );
}

function FieldProblems({ problems }: { problems: SandboxProblem[] }) {
  if (problems.length === 0) return null;
  return (
    <ul className="problems field-problems">
      {problems.map((p) => (
        <ProblemItem key={`${p.path}|${p.code}|${p.message}`} problem={p} />
      ))}
    </ul>
  );
}

function ProblemItem({ problem: p }: { problem: SandboxProblem }) {
  return (
    <li className="problem" data-path={p.path}>
      <code>{p.path}</code> <span className="badge deny">{p.code}</span> {p.message}
      {p.hint ? <div className="hint muted">fix: {p.hint}</div> : null}
    </li>
  );
}
