// Faults: a form that arms one (the next requests to an operation fail with a status, or the next
// batch publishes fail at some positions), and the pending faults, which the emulator serves in order.
import { useEffect, useState } from 'preact/hooks';
import { ApiFailure, api, messageOf, must, type Schemas } from './api.js';
import { type FaultForm, type FieldErrors, faultRequest, violationsByField } from './forms.js';
import { Notice, Problem } from './ui.js';

type FaultList = Schemas['FaultList'];

/** The pending faults are used up by requests the console does not see: it reads them again this often. */
const REFRESH_MS = 1000;

const EMPTY: FaultForm = {
  operation: '',
  status: '',
  code: '',
  times: '1',
  retry_after: '',
  batch_fail_positions: '',
  omit: false,
};

export function FaultsView() {
  const [pending, setPending] = useState<FaultList>();
  const [problem, setProblem] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [operations, setOperations] = useState<string[]>([]);

  const load = () =>
    must(api.GET('/_emulator/faults')).then(
      (list) => {
        setPending(list);
        setProblem(undefined);
      },
      (error: unknown) => setProblem(messageOf(error)),
    );
  useEffect(() => {
    load();
    const timer = setInterval(load, REFRESH_MS);
    platformOperations().then(setOperations, () => setOperations([]));
    return () => clearInterval(timer);
  }, []);

  const clear = async () => {
    try {
      await must(api.DELETE('/_emulator/faults'));
      setNotice('Every pending fault is cleared.');
      await load();
    } catch (error) {
      setProblem(messageOf(error));
    }
  };

  const faults = pending?.faults ?? [];
  const batches = pending?.batch_faults ?? [];
  return (
    <>
      <p class="lead">Make the next requests to an operation fail, as the operation's spec answers that status.</p>
      {problem && <Problem>{problem}</Problem>}
      <div class="columns">
        <InjectForm
          operations={operations}
          onArmed={(what) => {
            setNotice(`Armed: ${what}.`);
            load();
          }}
        />
        <section aria-labelledby="pending-title">
          <h2 id="pending-title">Pending faults</h2>
          {notice && <Notice>{notice}</Notice>}
          {faults.length === 0 && batches.length === 0 ? (
            <p>No fault is pending.</p>
          ) : (
            <table class="faults">
              <caption class="visually-hidden">Pending faults, in the order they are served</caption>
              <thead>
                <tr>
                  <th scope="col">Fails</th>
                  <th scope="col">With</th>
                  <th scope="col">Times left</th>
                </tr>
              </thead>
              <tbody>
                {faults.map((fault, index) => (
                  <tr key={`op-${index}-${fault.operation}`}>
                    <td>{fault.operation}</td>
                    <td>
                      {fault.status}
                      {fault.code && ` ${fault.code}`}
                      {fault.retry_after !== undefined && `, Retry-After ${fault.retry_after} s`}
                    </td>
                    <td>{fault.times}</td>
                  </tr>
                ))}
                {batches.map((fault, index) => (
                  <tr key={`batch-${index}-${fault.batch_fail_positions.join()}`}>
                    <td>batch publish, positions {fault.batch_fail_positions.join(', ')}</td>
                    <td>{fault.omit ? 'left out of the answer' : 'a failure entry'}</td>
                    <td>{fault.times}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <button type="button" class="danger" onClick={clear} disabled={faults.length === 0 && batches.length === 0}>
            Clear faults
          </button>
        </section>
      </div>
    </>
  );
}

function InjectForm({ operations, onArmed }: { operations: string[]; onArmed: (what: string) => void }) {
  const [form, setForm] = useState(EMPTY);
  const [errors, setErrors] = useState<FieldErrors>({});
  const set = (name: keyof FaultForm) => (event: Event) => {
    const target = event.currentTarget as HTMLInputElement;
    setForm({ ...form, [name]: target.type === 'checkbox' ? target.checked : target.value });
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    const built = faultRequest(form);
    if ('errors' in built) return setErrors(built.errors);
    try {
      await must(api.POST('/_emulator/faults', { body: built.request }));
      setErrors({});
      setForm(EMPTY);
      onArmed(
        built.request.batch_fail_positions
          ? `batch positions ${built.request.batch_fail_positions.join(', ')}`
          : `${built.request.operation} answers ${built.request.status}`,
      );
    } catch (error) {
      setErrors(
        error instanceof ApiFailure
          ? { '': error.message, ...violationsByField(error.violations) }
          : { '': messageOf(error) },
      );
    }
  };

  /** Every field has a hint, and an error once it has one. */
  const described = (name: string) => ({
    id: `fault-${name}`,
    'aria-invalid': errors[name] ? true : undefined,
    'aria-describedby': errors[name] ? `fault-${name}-hint fault-${name}-error` : `fault-${name}-hint`,
  });
  const error = (name: string) =>
    errors[name] && (
      <p class="field-error" id={`fault-${name}-error`}>
        {errors[name]}
      </p>
    );

  return (
    <section aria-labelledby="inject-title">
      <h2 id="inject-title">Inject a fault</h2>
      <form onSubmit={submit} noValidate>
        <div class="field">
          <label for="fault-operation">Operation</label>
          <span class="hint" id="fault-operation-hint">
            An operationId of the platform's APIs, e.g. publish_message
          </span>
          <input
            {...described('operation')}
            list="platform-operations"
            value={form.operation}
            onInput={set('operation')}
          />
          <datalist id="platform-operations">
            {operations.map((op) => (
              <option key={op} value={op} />
            ))}
          </datalist>
          {error('operation')}
        </div>
        <div class="field">
          <label for="fault-status">Status</label>
          <span class="hint" id="fault-status-hint">
            400 to 599, one the operation declares
          </span>
          <input {...described('status')} inputMode="numeric" value={form.status} onInput={set('status')} />
          {error('status')}
        </div>
        <div class="field">
          <label for="fault-code">Code (optional)</label>
          <span class="hint" id="fault-code-hint">
            The error code of the body, e.g. TIMEOUT
          </span>
          <input {...described('code')} value={form.code} onInput={set('code')} />
          {error('code')}
        </div>
        <div class="field">
          <label for="fault-times">Times</label>
          <span class="hint" id="fault-times-hint">
            How many requests fail
          </span>
          <input {...described('times')} inputMode="numeric" value={form.times} onInput={set('times')} />
          {error('times')}
        </div>
        <div class="field">
          <label for="fault-retry_after">Retry-After (optional)</label>
          <span class="hint" id="fault-retry_after-hint">
            Seconds, sent in the Retry-After header of a 429
          </span>
          <input
            {...described('retry_after')}
            inputMode="numeric"
            value={form.retry_after}
            onInput={set('retry_after')}
          />
          {error('retry_after')}
        </div>
        <fieldset>
          <legend>Or fail positions of the next batch publishes</legend>
          <div class="field">
            <label for="fault-batch_fail_positions">Batch positions (optional)</label>
            <span class="hint" id="fault-batch_fail_positions-hint">
              0-based, separated by commas, e.g. 0, 2; instead of an operation and a status
            </span>
            <input
              {...described('batch_fail_positions')}
              value={form.batch_fail_positions}
              onInput={set('batch_fail_positions')}
            />
            {error('batch_fail_positions')}
          </div>
          <div class="check">
            <input id="fault-omit" type="checkbox" checked={form.omit} onChange={set('omit')} />
            <label for="fault-omit">Leave the failed positions out of the answer</label>
          </div>
        </fieldset>
        {errors[''] && <Problem>{errors['']}</Problem>}
        <button type="submit">Inject fault</button>
      </form>
    </section>
  );
}

/** The operationIds of the three platform APIs, for the Operation field's suggestions. */
async function platformOperations(): Promise<string[]> {
  const ids: string[] = [];
  for (const name of ['event-streams', 'auth', 'management'] as const) {
    const document = (await must(api.GET('/_emulator/spec/{api}.json', { params: { path: { api: name } } }))) as {
      paths?: Record<string, Record<string, { operationId?: string }>>;
    };
    for (const item of Object.values(document.paths ?? {})) {
      for (const operation of Object.values(item)) if (operation?.operationId) ids.push(operation.operationId);
    }
  }
  return ids.sort();
}
