import { useState } from 'react';
import { ApiError } from '../api';
import type { TemplateList } from '../agent-detail-types';
import { ErrorNote, useLoad, useStudio } from '../studio-context';

/** Create an agent from a template with a chosen model provider; only the key's env var name is asked. */
export function TemplateCreate({ onCreated }: { onCreated(id: string): void }) {
  const { api } = useStudio();
  const list = useLoad<TemplateList>('/agent-templates');
  const [template, setTemplate] = useState('blank');
  const [provider, setProvider] = useState('scripted');
  const [name, setName] = useState('');
  const [modelId, setModelId] = useState('');
  const [keyEnv, setKeyEnv] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [error, setError] = useState<ApiError>();
  const chosen = list.data?.templates.find((t) => t.id === template);

  const create = () => {
    const body = {
      name: name.trim(),
      provider,
      ...(modelId.trim() === '' ? {} : { model_id: modelId.trim() }),
      ...(keyEnv.trim() === '' ? {} : { api_key_env: keyEnv.trim() }),
      ...(baseUrl.trim() === '' ? {} : { base_url: baseUrl.trim() }),
    };
    api.send<{ agent: { id: string } }>('POST', `/agent-templates/${encodeURIComponent(template)}`, body).then(
      (d) => {
        setError(undefined);
        setName('');
        onCreated(d.agent.id);
      },
      (e: unknown) => setError(e instanceof ApiError ? e : new ApiError(0, 'NETWORK', String(e))),
    );
  };

  return (
    <details className="template-create">
      <summary>Create from a template</summary>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          create();
        }}
      >
        <select aria-label="template" value={template} onChange={(e) => setTemplate(e.target.value)}>
          {(list.data?.templates ?? []).map((t) => (
            <option key={t.id} value={t.id}>
              {t.title}
            </option>
          ))}
        </select>
        {chosen ? <p className="muted">{chosen.description}</p> : null}
        <input
          aria-label="template agent name"
          placeholder="agent name"
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
        <select aria-label="provider" value={provider} onChange={(e) => setProvider(e.target.value)}>
          {(list.data?.providers ?? []).map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
        {provider === 'scripted' ? null : (
          <>
            <input
              aria-label="model id"
              placeholder="model id"
              value={modelId}
              onChange={(e) => setModelId(e.target.value)}
            />
            <input
              aria-label="API key env var"
              placeholder="API key env var, e.g. ANTHROPIC_API_KEY"
              value={keyEnv}
              onChange={(e) => setKeyEnv(e.target.value)}
            />
            {provider === 'openai-compatible' ? (
              <input
                aria-label="base URL"
                placeholder="https://…/v1"
                value={baseUrl}
                onChange={(e) => setBaseUrl(e.target.value)}
              />
            ) : null}
          </>
        )}
        <button type="submit">Create from template</button>
      </form>
      <ErrorNote error={error ?? list.error} />
    </details>
  );
}
