import { useState } from 'react';
import { ApiError } from '../api';
import { type ConfigField, configFields, fieldText, fieldValue, type SchemaNode } from '../config-form';
import { ErrorNote, useLoad, useStudio } from '../studio-context';
import type { ConfigView } from '../types';

/**
 * The config as a form over the config schema. Locked fields are read-only with their reason;
 * a change is validated by the server's own config schema and its error shows beside the field.
 */
export function ConfigEditor({ agent }: { agent: string }) {
  const base = `/agents/${encodeURIComponent(agent)}`;
  const schema = useLoad<{ schema: SchemaNode }>('/config-schema');
  const view = useLoad<ConfigView>(`${base}/config`);
  if (schema.error || view.error) return <ErrorNote error={schema.error ?? view.error} />;
  if (schema.data === undefined || view.data === undefined) return <p className="muted">Loading the config…</p>;
  const fields = configFields(schema.data.schema, view.data.config, view.data.lockedFields);
  return (
    <div className="config-editor">
      <p className="note">
        Changes are yours as owner and are audited. Locked fields can only change with a one-time owner approval outside
        the studio; tool flags are in Tools &amp; config.
      </p>
      <ul className="config-fields">
        {fields.map((f) => (
          <FieldRow key={f.path} base={base} field={f} reload={view.reload} />
        ))}
      </ul>
    </div>
  );
}

function FieldRow({ base, field, reload }: { base: string; field: ConfigField; reload(): void }) {
  const { api } = useStudio();
  const [text, setText] = useState<string>();
  const [error, setError] = useState<ApiError>();
  const [done, setDone] = useState(false);
  const shown = text ?? fieldText(field.kind, field.value);
  const id = `cfg-${field.path.replace(/\./g, '-')}`;
  const save = () =>
    api.send('PATCH', `${base}/config`, { path: field.path, value: fieldValue(field.kind, shown) }).then(
      () => {
        setError(undefined);
        setText(undefined);
        setDone(true);
        reload();
      },
      (e: unknown) => {
        setDone(false);
        setError(e instanceof ApiError ? e : new ApiError(0, 'NETWORK', String(e)));
      },
    );
  const edit = (t: string) => {
    setText(t);
    setDone(false);
  };
  const locked = field.locked !== undefined;
  const common = {
    id,
    'aria-label': field.path,
    disabled: locked,
    readOnly: locked,
    'aria-invalid': error !== undefined,
  };
  return (
    <li className={locked ? 'config-field locked' : 'config-field'} data-path={field.path}>
      <label htmlFor={id}>
        <code>{field.path}</code>
        {locked ? <span className="badge warn">locked</span> : null}
      </label>
      <span className="muted">{field.description}</span>
      <form
        className="inline"
        onSubmit={(e) => {
          e.preventDefault();
          if (!locked) void save();
        }}
      >
        {field.kind === 'boolean' ? (
          <select {...common} value={shown} onChange={(e) => edit(e.target.value)}>
            <option value="true">true</option>
            <option value="false">false</option>
          </select>
        ) : field.kind === 'enum' ? (
          <select {...common} value={shown} onChange={(e) => edit(e.target.value)}>
            {(field.options ?? []).map((o) => (
              <option key={o} value={o}>
                {o}
              </option>
            ))}
          </select>
        ) : field.kind === 'json' || field.path === 'instructions' ? (
          <textarea {...common} rows={3} value={shown} onChange={(e) => edit(e.target.value)} />
        ) : (
          <input {...common} value={shown} onChange={(e) => edit(e.target.value)} />
        )}
        {locked ? null : <button type="submit">Set</button>}
      </form>
      {locked ? <p className="lock-why">Locked: {field.locked}</p> : null}
      <ErrorNote error={error} />
      {done && error === undefined ? (
        <p className="note" role="status">
          {field.path} updated (audited)
        </p>
      ) : null}
    </li>
  );
}
