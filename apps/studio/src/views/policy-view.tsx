import { useCallback, useEffect, useState } from 'react';
import { ApiError } from '../api';
import { withContentKeys } from '../content-keys';
import { ErrorNote, useStudio } from '../studio-context';
import type { PolicyCheck, PolicyProblem, PolicyValidation } from '../types';
import { PolicyFileBar } from './policy-file-bar';

export const EXAMPLE_POLICY = `{
  "v": 1,
  "name": "github-read",
  "http": {
    "allow": ["api.github.com"],
    "methods": ["GET"]
  },
  "guard": { "mode": "default" }
}
`;

/** Waits this long after the last keystroke before asking the server. */
const SETTLE_MS = 300;

/**
 * The egress policy editor: the text is validated by the core validator on the server as you
 * type (problems in place, under the editor), and a URL is checked against the address guard
 * and the policy, step by step, as `trust egress check --policy` prints it. The workspace's policy
 * file can be opened into the editor and saved back (see PolicyFileBar).
 */
export function PolicyView() {
  const { api } = useStudio();
  const [text, setText] = useState(EXAMPLE_POLICY);
  const [url, setUrl] = useState('https://api.github.com/zen');
  const [mode, setMode] = useState('');
  const [validation, setValidation] = useState<PolicyValidation>();
  const [check, setCheck] = useState<PolicyCheck>();
  const [error, setError] = useState<ApiError>();
  const fail = useCallback(
    (e: unknown) => setError(e instanceof ApiError ? e : new ApiError(0, 'NETWORK', String(e))),
    [],
  );

  useEffect(() => {
    let live = true;
    const t = setTimeout(() => {
      api.send<PolicyValidation>('POST', '/policy/validate', { text }).then((v) => {
        if (!live) return;
        setValidation(v);
        setError(undefined);
      }, fail);
    }, SETTLE_MS);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [api, text, fail]);

  const run = () => {
    setCheck(undefined);
    api.send<PolicyCheck>('POST', '/policy/check', { text, url, ...(mode === '' ? {} : { mode }) }).then((c) => {
      setCheck(c);
      setError(undefined);
    }, fail);
  };

  return (
    <section className="policy">
      <header className="view-head">
        <h2>Egress policy</h2>
        <span className="muted">
          checked by the same validator and guard as <code>trust egress check</code>; nothing is sent to the URL, and
          the file is saved only when you press Save
        </span>
      </header>
      <div className="policy-grid">
        <div className="policy-editor">
          <PolicyFileBar text={text} onOpen={setText} />
          <label className="stack" htmlFor="policy-text">
            Policy file (JSON, format v: 1)
          </label>
          <textarea
            id="policy-text"
            className="args policy-text"
            value={text}
            onChange={(e) => setText(e.target.value)}
            spellCheck={false}
            rows={16}
            aria-label="policy text"
            aria-invalid={validation?.ok === false}
          />
          <Problems validation={validation} />
        </div>
        <div className="policy-check">
          <form
            className="inline"
            onSubmit={(e) => {
              e.preventDefault();
              run();
            }}
          >
            <input
              value={url}
              onChange={(e) => setUrl(e.target.value)}
              aria-label="URL to check"
              placeholder="https://api.github.com/zen"
              size={36}
            />
            <select value={mode} onChange={(e) => setMode(e.target.value)} aria-label="guard mode">
              <option value="">mode from the policy</option>
              <option value="default">default</option>
              <option value="allow-local">allow-local</option>
              <option value="strict">strict</option>
            </select>
            <button type="submit">Check</button>
          </form>
          <ErrorNote error={error} />
          {check ? (
            <CheckSteps check={check} />
          ) : (
            <p className="muted empty">
              Enter a URL and press Check: each step of the decision is shown, the address guard first, then your
              policy.
            </p>
          )}
        </div>
      </div>
    </section>
  );
}

function Problems({ validation }: { validation: PolicyValidation | undefined }) {
  if (validation === undefined) return null;
  if (validation.ok) {
    return (
      <p className="note ok-note" role="status" data-valid="true">
        Valid{validation.name ? ` (${validation.name})` : ''}:{' '}
        {validation.sections.length === 0
          ? 'no sections, so nothing is allowed'
          : `sections ${validation.sections.join(', ')}`}
        .
      </p>
    );
  }
  return (
    <ul className="problems" role="alert" data-valid="false">
      {withContentKeys(validation.problems, problemText).map(({ key, item }) => (
        <ProblemItem key={key} problem={item} />
      ))}
    </ul>
  );
}

function problemText(p: PolicyProblem): string {
  return `${p.path}|${p.code}|${p.message}`;
}

function ProblemItem({ problem: p }: { problem: PolicyProblem }) {
  return (
    <li className="problem" data-path={p.path}>
      <code>{p.path || '(file)'}</code> <span className="badge deny">{p.code}</span> {p.message}
      {p.hint ? <div className="hint muted">fix: {p.hint}</div> : null}
    </li>
  );
}

function CheckSteps({ check }: { check: PolicyCheck }) {
  return (
    <div className="check-result" data-allow={check.allow ? 'true' : 'false'}>
      <ol className="steps">
        {withContentKeys(check.steps, (s) => `${s.step}|${s.detail}`).map(({ key, item: s }) => (
          <li key={key} className={s.ok ? 'step ok' : 'step fail'} data-step={s.step}>
            <span className="mark">{s.ok ? '✓' : '✗'}</span> <span className="step-name">{s.step}</span>{' '}
            <span className="detail">{s.detail}</span>
          </li>
        ))}
      </ol>
      {check.allow ? (
        <p className="verdict ok-note">allowed (rule {check.rule ?? 'public'})</p>
      ) : (
        <p className="verdict error">
          denied [{check.code}]: {check.reason}
          {check.hint ? <span className="hint"> — hint: {check.hint}</span> : null}
        </p>
      )}
      {check.problems ? (
        <ul className="problems">
          {withContentKeys(check.problems, problemText).map(({ key, item }) => (
            <ProblemItem key={key} problem={item} />
          ))}
        </ul>
      ) : null}
    </div>
  );
}
