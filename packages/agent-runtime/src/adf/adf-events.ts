import type { AdfTask } from './adf-tasks.js';
import type { LogRow, MailRow } from './adf-records.js';

/**
 * A change to an `.adf` file that the runtime may react to (triggers, the timer clock). Emitted
 * after the write committed, whoever made it: a tool, agent code, messaging ingress, the owner.
 */
export type AdfEvent =
  | { readonly kind: 'file'; readonly path: string; readonly change: 'write' | 'delete' }
  | { readonly kind: 'inbox'; readonly row: MailRow; readonly source: string }
  | { readonly kind: 'outbox'; readonly row: MailRow }
  | { readonly kind: 'task'; readonly change: 'create' | 'complete'; readonly task: AdfTask }
  | { readonly kind: 'log'; readonly row: Pick<LogRow, 'id' | 'level' | 'origin' | 'event' | 'target' | 'message'> }
  | { readonly kind: 'timers'; readonly change: 'add' | 'delete'; readonly id: number };

/** Subscribing to an open file's changes. */
export interface AdfEvents {
  /**
   * Adds a listener; returns its unsubscribe. Listeners run synchronously and must not throw (a throw is swallowed).
   */
  subscribe(listener: (event: AdfEvent) => void): () => void;
}

/** The emitting side, kept inside the file layer. */
export interface AdfEventHub extends AdfEvents {
  emit(event: AdfEvent): void;
}

/**
 * Creates one file's event hub. A listener that throws never breaks the write that emitted the
 * event: the write has already committed.
 *
 * @example
 * const hub = createAdfEventHub();
 * const off = hub.subscribe((e) => console.log(e.kind));
 * hub.emit({ kind: 'file', path: 'a.md', change: 'write' });
 * off();
 */
export function createAdfEventHub(): AdfEventHub {
  const listeners = new Set<(event: AdfEvent) => void>();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    emit(event) {
      for (const l of [...listeners]) {
        try {
          l(event);
        } catch {
          /* observers never break a committed write */
        }
      }
    },
  };
}
