import { createContext, useCallback, useContext, useEffect, useState } from 'react';
import { ApiError, type Api } from './api';

/** What every view needs: the API client, a counter bumped by live events, and the selected agent. */
export interface Studio {
  api: Api;
  tick: number;
  agent: string | undefined;
  selectAgent(id: string): void;
  onDenied(): void;
}

export const StudioContext = createContext<Studio | undefined>(undefined);

export function useStudio(): Studio {
  const s = useContext(StudioContext);
  if (s === undefined) throw new Error('useStudio outside StudioContext');
  return s;
}

/** Loads `path` (skipped when undefined), again on every live event. */
export function useLoad<T>(path: string | undefined): {
  data: T | undefined;
  error: ApiError | undefined;
  reload(): void;
} {
  const { api, tick, onDenied } = useStudio();
  const [data, setData] = useState<T>();
  const [error, setError] = useState<ApiError>();
  const [n, setN] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: tick and n are the refetch triggers
  useEffect(() => {
    if (path === undefined) return;
    let live = true;
    api.get<T>(path).then(
      (d) => {
        if (!live) return;
        setData(d);
        setError(undefined);
      },
      (e: unknown) => {
        if (!live) return;
        if (e instanceof ApiError && e.status === 401) onDenied();
        setError(e instanceof ApiError ? e : new ApiError(0, 'NETWORK', String(e)));
      },
    );
    return () => {
      live = false;
    };
  }, [api, path, tick, n, onDenied]);
  return { data, error, reload: useCallback(() => setN((x) => x + 1), []) };
}

/** Shows an API error as text: code, message, hint. */
export function ErrorNote({ error }: { error: ApiError | undefined }) {
  if (error === undefined) return null;
  return (
    <p className="error" role="alert">
      <code>{error.code}</code> {error.message}
      {error.hint ? <span className="hint"> — {error.hint}</span> : null}
    </p>
  );
}
