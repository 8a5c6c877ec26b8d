import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../api';
import { ErrorNote, useStudio } from '../studio-context';
import { ruleSection } from '../sandbox-request';
import type { SandboxEventPage, SandboxLiveRun, SandboxRunEvent } from '../sandbox-types';

type Egress = Extract<SandboxRunEvent, { kind: 'egress' }>;
type Output = Extract<SandboxRunEvent, { kind: 'output' }>;

/**
 * One run started from the studio: its output as it is written, each egress decision as it is
 * made (a denial links to the rule of the run's egress policy that made it), the exit, and Kill
 * while it runs. Events are read with polls that the server holds until something happens.
 */
export function SandboxRunPanel({ id, onChange }: { id: string; onChange(): void }) {
  const { api, onDenied } = useStudio();
  const [run, setRun] = useState<SandboxLiveRun>();
  const [events, setEvents] = useState<SandboxRunEvent[]>([]);
  const [error, setError] = useState<ApiError>();
  const [highlight, setHighlight] = useState<string>();
  const fail = (e: unknown) => {
    if (e instanceof ApiError && e.status === 401) onDenied();
    setError(e instanceof ApiError ? e : new ApiError(0, 'NETWORK', String(e)));
  };
  // The latest callbacks, read by the poll loop without restarting it.
  const latest = useRef({ fail, onChange });
  latest.current = { fail, onChange };

  useEffect(() => {
    let live = true;
    const fail = (e: unknown) => latest.current.fail(e);
    setEvents([]);
    setRun(undefined);
    const follow = async () => {
      let after = 0;
      for (let failures = 0; live && failures < 5; ) {
        try {
          const page = await api.get<SandboxEventPage>(`/sandbox/runs/${encodeURIComponent(id)}/events/${after}`);
          if (!live) return;
          failures = 0;
          if (page.events.length > 0) setEvents((prev) => [...prev, ...page.events]);
          after = page.next;
          if (page.state === 'exited') break;
        } catch (e) {
          if (!live) return;
          failures += 1;
          fail(e);
          await new Promise((r) => setTimeout(r, 1000));
        }
      }
      const r = await api.get<{ run: SandboxLiveRun }>(`/sandbox/runs/${encodeURIComponent(id)}`).catch(fail);
      if (live && r) {
        setRun(r.run);
        latest.current.onChange();
      }
    };
    api
      .get<{ run: SandboxLiveRun }>(`/sandbox/runs/${encodeURIComponent(id)}`)
      .then((r) => live && setRun(r.run), fail);
    void follow();
    return () => {
      live = false;
    };
  }, [api, id]);

  const kill = () => {
    api.send<{ run: SandboxLiveRun }>('POST', `/sandbox/runs/${encodeURIComponent(id)}/kill`, {}).then((r) => {
      setRun(r.run);
      onChange();
    }, fail);
  };
  const exit = events.find((e): e is Extract<SandboxRunEvent, { kind: 'exit' }> => e.kind === 'exit')?.exit;
  const output = events.filter((e): e is Output => e.kind === 'output');
  const egress = events.filter((e): e is Egress => e.kind === 'egress');
  const running = exit === undefined;

  return (
    <div className="sandbox-run" data-run={id} data-state={running ? 'running' : 'exited'}>
      <header className="view-head">
        <h3>
          Run <code>{id.slice(0, 8)}</code>: <code className="run-argv">{run?.argv.join(' ') ?? ''}</code>
        </h3>
        {running ? (
          <button type="button" className="danger" onClick={kill}>
            Kill
          </button>
        ) : null}
      </header>
      <ErrorNote error={error} />
      <p className="muted run-status" role="status">
        {running ? 'running… ' : `${describeExit(exit)} `}
        {run ? `limits: ${run.limits.timeMs / 1000} s, ${run.limits.outputBytes} bytes kept per stream` : ''}
      </p>
      <h4>Output</h4>
      <pre className="run-output" role="log" aria-label="run output">
        {output.map((o) => (
          <span key={o.seq} className={o.stream}>
            {o.text}
          </span>
        ))}
      </pre>
      {output.length === 0 ? <p className="muted empty">No output{running ? ' yet' : ''}.</p> : null}
      <h4>Egress decisions and violations</h4>
      {egress.length === 0 ? (
        <p className="muted empty">No connection attempts{running ? ' yet' : ''}: nothing was allowed or denied.</p>
      ) : (
        <table className="run-egress">
          <thead>
            <tr>
              <th>Time</th>
              <th>Decision</th>
              <th>Action</th>
              <th>Target</th>
              <th>Rule</th>
              <th>Code</th>
            </tr>
          </thead>
          <tbody>
            {egress.map((e) => {
              const section = ruleSection(e.rule);
              return (
                <tr key={e.seq} className={e.decision === 'deny' ? 'denied' : ''} data-decision={e.decision}>
                  <td>{e.time.slice(11, 19)}</td>
                  <td>
                    <span className={e.decision === 'allow' ? 'badge ok' : 'badge deny'}>{e.decision}</span>
                  </td>
                  <td>
                    <code>{e.action}</code>
                  </td>
                  <td className="target">{e.target}</td>
                  <td className="rule">
                    {section !== undefined ? (
                      <button
                        type="button"
                        className="link"
                        data-rule-link={section}
                        onClick={() => {
                          setHighlight(section);
                          document.getElementById(`rule-${id}-${section}`)?.scrollIntoView({ block: 'center' });
                        }}
                      >
                        {e.rule}
                      </button>
                    ) : (
                      (e.rule ?? '')
                    )}
                  </td>
                  <td>{e.code ?? ''}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {run ? <PolicyRules run={run} highlight={highlight} /> : null}
    </div>
  );
}

function describeExit(exit: Extract<SandboxRunEvent, { kind: 'exit' }>['exit'] | undefined): string {
  if (exit === undefined) return '';
  const how = exit.killed
    ? 'killed'
    : exit.timedOut
      ? 'timed out'
      : exit.code !== null
        ? `exited ${exit.code}`
        : `ended by ${exit.signal}`;
  return `${how} after ${(exit.durationMs / 1000).toFixed(1)} s${exit.truncated ? ' (output cut at the cap)' : ''}.`;
}

/** The run's egress policy, one row per rule section, so a decision can point at its rule. */
export function PolicyRules({ run, highlight }: { run: SandboxLiveRun; highlight: string | undefined }) {
  const rows: [string, unknown][] = [];
  const egress = run.egress;
  if (typeof egress === 'object' && egress !== null) {
    for (const [key, val] of Object.entries(egress as Record<string, unknown>)) {
      if (typeof val === 'object' && val !== null && !Array.isArray(val) && key !== 'guard') {
        for (const [sub, v] of Object.entries(val as Record<string, unknown>)) {
          if (Array.isArray(v) && sub === 'inject') {
            for (const [i, x] of v.entries()) rows.push([`${key}.inject.${i}`, x]);
          } else rows.push([`${key}.${sub}`, v]);
        }
      } else rows.push([key, val]);
    }
  }
  return (
    <div className="run-policy">
      <h4>Egress policy of this run</h4>
      {rows.length === 0 ? (
        <p className="muted">None: the run had no network capability, so every connection was refused.</p>
      ) : (
        <dl className="rules">
          {rows.map(([path, v]) => (
            <div
              key={path}
              id={`rule-${run.id}-${path}`}
              data-section={path}
              className={highlight === path ? 'rule-row highlight' : 'rule-row'}
            >
              <dt>
                <code>{path}</code>
              </dt>
              <dd>
                <code>{JSON.stringify(v)}</code>
              </dd>
            </div>
          ))}
        </dl>
      )}
      <h4>Sandbox policy of this run</h4>
      <pre className="details run-sandbox-policy">{JSON.stringify(run.policy, null, 2)}</pre>
    </div>
  );
}
