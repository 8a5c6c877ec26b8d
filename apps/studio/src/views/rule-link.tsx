import { type ReactNode, useState } from 'react';
import { ApiError } from '../api';
import { ErrorNote } from '../studio-context';

/**
 * A denial's "rule ›" link: the first open loads what holds the rule (once), then `children`
 * shows it; a failed load shows its error in place.
 */
export function RuleLink<T>({
  section,
  load,
  children,
}: {
  section: string;
  load: () => Promise<T>;
  children: (loaded: T) => ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const [loaded, setLoaded] = useState<{ value: T }>();
  const [error, setError] = useState<ApiError>();
  const toggle = () => {
    setOpen((o) => !o);
    if (loaded !== undefined) return;
    load().then(
      (value) => setLoaded({ value }),
      (e: unknown) => setError(e instanceof ApiError ? e : new ApiError(0, 'NETWORK', String(e))),
    );
  };
  return (
    <div className="denial-rule">
      <button type="button" className="link" data-rule-link={section} onClick={toggle}>
        {open ? 'hide rule' : `rule ${section} ›`}
      </button>
      {open ? (
        <>
          <ErrorNote error={error} />
          {loaded === undefined ? null : children(loaded.value)}
        </>
      ) : null}
    </div>
  );
}
