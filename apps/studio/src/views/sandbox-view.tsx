import { ErrorNote, useLoad } from '../studio-context';
import type { SandboxRun } from '../types';

/** Sandboxed process runs: policy, exit, violations and egress decisions. */
export function SandboxView() {
  const { data, error } = useLoad<{ provided: boolean; runs: SandboxRun[] }>('/sandbox-runs');
  return (
    <section>
      <h2>Sandbox runs</h2>
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
                  {(r.egress ?? []).map((e, i) => (
                    <div key={i}>
                      <span className={e.decision === 'allow' ? 'badge ok' : 'badge deny'}>{e.decision}</span>{' '}
                      {e.target} {e.rule ? <span className="muted">({e.rule})</span> : null}
                    </div>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
