import { useState } from 'react';
import { ApiError } from '../api';
import { ErrorNote, useStudio } from '../studio-context';
import { callableExports, type LoadedPlugin, type PluginCallResult } from '../plugin-types';
import { PluginDecisions } from './plugin-decisions';
import { PluginEgressRules } from './plugin-egress';

/**
 * One loaded plugin: call an export with JSON arguments (checked and parsed by the server), then
 * its result, its captured output and the decisions made during the call; or unload it. Results
 * and output are plugin data, shown as text only.
 */
export function PluginCall({ plugin: p, onChanged }: { plugin: LoadedPlugin; onChanged(): void }) {
  const { api } = useStudio();
  const names = callableExports(p.exports);
  const [name, setName] = useState(names[0] ?? '');
  const [args, setArgs] = useState('[]');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  const [answer, setAnswer] = useState<PluginCallResult>();
  const [policyOpen, setPolicyOpen] = useState(false);
  const run = async (what: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await what();
    } catch (e) {
      setError(e instanceof ApiError ? e : new ApiError(0, 'NETWORK', String(e)));
    } finally {
      setBusy(false);
    }
  };
  const id = encodeURIComponent(p.id);
  const call = () =>
    run(async () => {
      setAnswer(undefined);
      setAnswer(await api.send('POST', `/plugins/loaded/${id}/call`, { export: name, args }));
      onChanged();
    });
  const unload = () =>
    run(async () => {
      await api.send('POST', `/plugins/loaded/${id}/unload`, {});
      onChanged();
    });
  return (
    <article className="plugin-loaded" data-loaded={p.id}>
      <h3>
        <code>{p.id}</code> <span className="muted">{p.version ?? ''}</span>
        {p.dead ? <span className="badge deny">dead</span> : <span className="badge ok">loaded</span>}
      </h3>
      <p className="muted">
        granted {p.capabilities.length === 0 ? 'nothing' : p.capabilities.join(', ')} of{' '}
        {p.requested.length === 0 ? 'nothing requested' : p.requested.join(', ')} · digest{' '}
        <code>{p.digest.slice(0, 16)}</code>
      </p>
      {p.egress ? (
        <div className="plugin-egress-policy">
          <p className="muted">
            network under the egress policy <code>{p.egress.file}</code>{' '}
            <button type="button" className="link show-egress-policy" onClick={() => setPolicyOpen((o) => !o)}>
              {policyOpen ? 'hide policy' : 'policy ›'}
            </button>
          </p>
          {policyOpen ? <PluginEgressRules egress={p.egress} /> : null}
        </div>
      ) : null}
      {p.dead ? (
        <p className="error">
          <code>{p.dead.code}</code> {p.dead.message}
        </p>
      ) : null}
      <div className="call-form">
        <label>
          export{' '}
          <input
            className="call-export"
            list={`exports-${p.id}`}
            value={name}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
        </label>
        <datalist id={`exports-${p.id}`}>
          {names.map((n) => (
            <option key={n} value={n} />
          ))}
        </datalist>
        <label>
          arguments (a JSON array){' '}
          <textarea
            className="call-args"
            rows={2}
            value={args}
            onInput={(e) => setArgs((e.target as HTMLTextAreaElement).value)}
          />
        </label>
        <button type="button" className="call-plugin" disabled={busy || name === ''} onClick={() => void call()}>
          Call
        </button>{' '}
        <button type="button" className="unload-plugin" disabled={busy} onClick={() => void unload()}>
          Unload
        </button>
      </div>
      <ErrorNote error={error} />
      {answer ? (
        <div className="call-result" role="status">
          {answer.error ? (
            <p className="error call-error">
              <code>{answer.error.code}</code> {answer.error.message}
              {answer.error.hint ? <span className="hint"> — {answer.error.hint}</span> : null}
            </p>
          ) : (
            <>
              <h4>
                Result of <code>{answer.export}</code> <span className="muted">({answer.ms} ms)</span>
              </h4>
              <pre className="call-value">{JSON.stringify(answer.result, null, 2)}</pre>
            </>
          )}
          <h4>Output</h4>
          {answer.output.stdout === '' && answer.output.stderr === '' ? (
            <p className="muted">No output (only granted stdout/stderr is captured).</p>
          ) : (
            <>
              <pre className="call-stdout">{answer.output.stdout}</pre>
              <pre className="call-stderr">{answer.output.stderr}</pre>
            </>
          )}
          <h4>Decisions during the call</h4>
          <PluginDecisions
            decisions={answer.decisions}
            empty="No egress or other decisions were made."
            egress={answer.plugin.egress}
          />
        </div>
      ) : null}
    </article>
  );
}
