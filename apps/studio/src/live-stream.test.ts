import { describe, expect, it } from 'vitest';
import { MAX_PAUSE_MS, nextPause, runLiveStream, type LiveStreamDeps } from './live-stream';

/** A scripted server: each connect takes the next outcome; sleeps are recorded, not waited. */
function script(outcomes: ('drop' | 'fail' | 'denied')[], ac: AbortController) {
  const pauses: number[] = [];
  const live: boolean[] = [];
  let denied = 0;
  let connects = 0;
  const deps: LiveStreamDeps = {
    async connect() {
      const o = outcomes[connects++];
      if (o === undefined) {
        ac.abort();
        throw new Error('aborted');
      }
      if (o === 'fail') throw new Error('network');
      if (o === 'denied') throw Object.assign(new Error('401'), { status: 401 });
    },
    isDenied: (e) => (e as { status?: number }).status === 401,
    onLive: (l) => live.push(l),
    onDenied: () => void denied++,
    sleep: async (ms) => void pauses.push(ms),
  };
  return { deps, pauses, live, denied: () => denied, connects: () => connects };
}

describe('live stream reconnect', () => {
  it('backs off 1 s, 2 s, 4 s … up to 30 s while the stream keeps failing', async () => {
    const ac = new AbortController();
    const s = script(Array(9).fill('fail'), ac);
    await runLiveStream(s.deps, ac.signal);
    expect(s.pauses).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000]);
    expect(s.connects()).toBe(10);
  });

  it('starts again from 1 s after a stream that was up drops', async () => {
    const ac = new AbortController();
    const s = script(['fail', 'fail', 'drop', 'fail'], ac);
    await runLiveStream(s.deps, ac.signal);
    expect(s.pauses).toEqual([1000, 2000, 1000, 2000]);
  });

  it('stops for good on 401 and reports it once; the badge goes offline', async () => {
    const ac = new AbortController();
    const s = script(['fail', 'denied', 'drop'], ac);
    await runLiveStream(s.deps, ac.signal);
    expect(s.denied()).toBe(1);
    expect(s.connects()).toBe(2);
    expect(s.live.at(-1)).toBe(false);
  });

  it('does nothing once aborted', async () => {
    const ac = new AbortController();
    ac.abort();
    const s = script(['drop'], ac);
    await runLiveStream(s.deps, ac.signal);
    expect(s.connects()).toBe(0);
  });

  it('nextPause never exceeds the cap', () => {
    expect(nextPause(MAX_PAUSE_MS, false)).toBe(MAX_PAUSE_MS);
    expect(nextPause(8000, true)).toBe(1000);
  });
});
