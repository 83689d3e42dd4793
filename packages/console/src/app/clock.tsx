// Clock: the emulator's time, frozen or passing; set, advanced, or back to real time. Tokens, message
// times, retention, rate limits and timestamps follow it.
import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, must, type Schemas } from './api.js';
import { Notice, Problem } from './ui.js';

/** A passing clock is read again this often. */
const REFRESH_MS = 1000;

export function ClockView() {
  const [clock, setClock] = useState<Schemas['Clock']>();
  const [problem, setProblem] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [now, setNow] = useState('');
  const [seconds, setSeconds] = useState('60');

  const load = () => must(api.GET('/_emulator/clock')).then(setClock, (error: unknown) => setProblem(messageOf(error)));
  useEffect(() => {
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => clearInterval(timer);
  }, []);

  const change = async (body: Schemas['ClockChange'], what: string) => {
    setProblem(undefined);
    try {
      setClock(await must(api.PUT('/_emulator/clock', { body })));
      setNotice(what);
    } catch (error) {
      setProblem(messageOf(error));
    }
  };
  const realTime = async () => {
    try {
      await must(api.DELETE('/_emulator/clock'));
      setNotice('The clock follows real time again.');
      await load();
    } catch (error) {
      setProblem(messageOf(error));
    }
  };
  const setTime = (event: Event) => {
    event.preventDefault();
    const instant = new Date(now.trim());
    if (!now.trim() || Number.isNaN(instant.getTime()))
      return setProblem('Give a date and time, e.g. 2030-01-01T00:00:00Z');
    change({ now: instant.toISOString() }, `Set to ${instant.toISOString()}.`);
  };
  const advance = (event: Event) => {
    event.preventDefault();
    const by = Number(seconds);
    if (!Number.isFinite(by) || by < 0) return setProblem('Advance by a number of seconds, 0 or more');
    change({ advance_seconds: by }, `Advanced by ${by} s.`);
  };

  return (
    <>
      <p class="lead">The emulator's time. Tokens, message times, retention, rate limits and timestamps follow it.</p>
      {problem && <Problem>{problem}</Problem>}
      <dl class="clock">
        <dt>Emulator time</dt>
        <dd data-clock-now>{clock?.now ?? '…'}</dd>
        <dt>State</dt>
        <dd data-clock-frozen>{clock === undefined ? '…' : clock.frozen ? 'Frozen' : 'Passing'}</dd>
      </dl>
      {notice && <Notice>{notice}</Notice>}
      <div class="actions">
        {clock?.frozen ? (
          <button type="button" onClick={() => change({ frozen: false }, 'The clock passes again.')}>
            Unfreeze
          </button>
        ) : (
          <button type="button" onClick={() => change({ frozen: true }, 'The clock is frozen.')}>
            Freeze
          </button>
        )}
        <button type="button" onClick={realTime}>
          Back to real time
        </button>
      </div>
      <div class="columns">
        <form onSubmit={setTime} aria-labelledby="set-title">
          <h2 id="set-title">Set the time</h2>
          <div class="field">
            <label for="clock-now">Date and time</label>
            <input
              id="clock-now"
              placeholder="2030-01-01T00:00:00Z"
              value={now}
              onInput={(e) => setNow(e.currentTarget.value)}
            />
          </div>
          <button type="submit">Set time</button>
        </form>
        <form onSubmit={advance} aria-labelledby="advance-title">
          <h2 id="advance-title">Advance the time</h2>
          <div class="field">
            <label for="clock-advance">Seconds</label>
            <input
              id="clock-advance"
              inputMode="decimal"
              value={seconds}
              onInput={(e) => setSeconds(e.currentTarget.value)}
            />
          </div>
          <button type="submit">Advance</button>
        </form>
      </div>
    </>
  );
}
