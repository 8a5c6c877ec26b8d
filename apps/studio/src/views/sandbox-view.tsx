import { useState } from 'react';
import { withContentKeys } from '../content-keys';
import { ErrorNote, useLoad } from '../studio-context';
import type { SandboxLiveRun } from '../sandbox-types';
import type { SandboxRun } from '../types';
import { SandboxRunPanel } from './sandbox-run';
import { SandboxStart } from './sandbox-start';

/** Sandboxed process runs: policy, exit, violations and egress decisions. */
export function SandboxView() {
  const { data, error, reload } = useLoad<{ provided: boolean; runs: SandboxRun[] }>('/sandbox-runs');
  const studioRuns = useLoad<{ provided: boolean; runs: SandboxLiveRun[] }>('/sandbox/runs');
  const [selected, setSelected] = useState<string>();
  const changed = () => {
    reload();
    studioRuns.reload();
  };
  return (
    <section>
      <h2>Sandbox runs</h2>
      {studioRuns.data?.provided ? (
        <SandboxStart
          onStarted={(run) => {
            setSelected(run.id);
            changed();
          }}
        />
      ) : null}
      {studioRuns.data && !studioRuns.data.provided ? (
        <p className="muted empty">
          This server cannot start sandbox runs. Start the studio with <code>trust studio</code> to run commands under
          the OS sandbox from here.
        </p>
      ) : null}
      {selected !== undefined ? <SandboxRunPanel key={selected} id={selected} onChange={changed} /> : null}
      {(studioRuns.data?.runs.length ?? 0) > 0 ? (
        <>
          <h3>Started from this studio</h3>
          <ul className="studio-runs">
            {studioRuns.data!.runs.map((r) => (
              <li key={r.id} data-run={r.id}>
                <button type="button" className="link" onClick={() => setSelected(r.id)}>
                  <code>{r.argv.join(' ')}</code>
                </button>{' '}
                <span className="muted">
                  {r.startedAt.slice(11, 19)} · {r.state} · {r.counts.allowed} allowed, {r.counts.denied} denied
                </span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <h3>Recorded runs</h3>
      <ErrorNote error={error} />
      {data && !data.provided ? (
        <p className="muted empty">
          This server provides no sandbox run records. Start the studio with <code>trust studio</code>: it shows the
          runs of <code>trust sandbox</code>.
        </p>
      ) : null}
      {data?.provided && data.runs.length === 0 ? (
        <p className="muted empty">
          No runs yet. Run a command under a policy with <code>trust sandbox</code>; each run is recorded with its exit
          code, violations and egress decisions.
        </p>
      ) : null}
      {data && data.runs.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th>Started</th>
              <th>Command</th>
              <th>Policy</th>
              <th>Exit</th>
              <th>Violations</th>
              <th>Egress</th>
            </tr>
          </thead>
          <tbody>
            {data.runs.map((r) => (
              <tr key={r.id}>
                <td>{r.startedAt?.slice(11, 19) ?? ''}</td>
                <td>
                  <code>{r.command}</code>
                </td>
                <td className="details">{JSON.stringify(r.policy)}</td>
                <td>{r.exitCode ?? '—'}</td>
                <td>{(r.violations ?? []).join('; ') || 'none'}</td>
                <td>
                  {withContentKeys(r.egress ?? [], (e) => `${e.decision}|${e.target}|${e.rule ?? ''}`).map(
                    ({ key, item: e }) => (
                      <div key={key}>
                        <span className={e.decision === 'allow' ? 'badge ok' : 'badge deny'}>{e.decision}</span>{' '}
                        {e.target} {e.rule ? <span className="muted">({e.rule})</span> : null}
                      </div>
                    ),
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
