import type { AuditEvent } from '../types';

/** Allow/deny counts per time bucket as stacked SVG bars (12 buckets over the events' span). */
export function AuditChart({ events }: { events: Pick<AuditEvent, 'time' | 'decision'>[] }) {
  if (events.length === 0) return null;
  const times = events.map((e) => Date.parse(e.time));
  const min = Math.min(...times);
  const span = Math.max(1, Math.max(...times) - min);
  const buckets = Array.from({ length: 12 }, (_, slot) => ({ slot, allow: 0, deny: 0 }));
  events.forEach((e, i) => {
    const b = Math.min(11, Math.floor(((times[i]! - min) / span) * 12));
    buckets[b]![e.decision] += 1;
  });
  const top = Math.max(1, ...buckets.map((b) => b.allow + b.deny));
  const w = 24;
  const h = 80;
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${12 * (w + 4)} ${h + 2}`} role="img" aria-label="decisions over time">
        {buckets.map((b) => {
          const ah = (b.allow / top) * h;
          const dh = (b.deny / top) * h;
          return (
            <g key={b.slot}>
              <rect className="bar-allow" x={b.slot * (w + 4)} y={h - ah - dh} width={w} height={ah} />
              <rect className="bar-deny" x={b.slot * (w + 4)} y={h - dh} width={w} height={dh} />
            </g>
          );
        })}
      </svg>
      <figcaption>
        <span className="key allow" /> allow <span className="key deny" /> deny —{' '}
        {new Date(min).toISOString().slice(11, 19)} to {new Date(min + span).toISOString().slice(11, 19)}
      </figcaption>
    </figure>
  );
}
