// State: the emulator's state as one document, downloaded, uploaded in its place, or reset; a replace
// and a reset each ask first.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, messageOf, must } from './api.js';
import { Notice, Problem } from './ui.js';

type Pending = { kind: 'import'; file: File } | { kind: 'reset' };

export function StateView() {
  const [problem, setProblem] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [pending, setPending] = useState<Pending>();
  const fileInput = useRef<HTMLInputElement>(null);

  const exportState = async () => {
    setProblem(undefined);
    try {
      const document = await must(api.GET('/_emulator/state'));
      const link = Object.assign(window.document.createElement('a'), {
        href: URL.createObjectURL(new Blob([JSON.stringify(document, null, 2)], { type: 'application/json' })),
        download: 'emulator-state.json',
      });
      link.click();
      URL.revokeObjectURL(link.href);
      setNotice('Exported as emulator-state.json.');
    } catch (error) {
      setProblem(messageOf(error));
    }
  };

  const confirmed = async () => {
    const what = pending;
    setPending(undefined);
    setProblem(undefined);
    try {
      if (what?.kind === 'reset') {
        await must(api.POST('/_emulator/reset'));
        setNotice('The emulator is reset: no resources, topics, messages, faults or requests.');
      } else if (what?.kind === 'import') {
        const text = await what.file.text();
        const yaml = /\.ya?ml$/i.test(what.file.name);
        // The document goes as the file has it; the emulator reads JSON or YAML.
        await must(
          api.PUT('/_emulator/state', {
            body: text as never,
            bodySerializer: (body: unknown) => body as string,
            headers: { 'content-type': yaml ? 'application/yaml' : 'application/json' },
          }),
        );
        setNotice(`Imported ${what.file.name}: the state is the document's.`);
        if (fileInput.current) fileInput.current.value = '';
      }
    } catch (error) {
      setProblem(messageOf(error));
    }
  };

  const importState = (event: Event) => {
    event.preventDefault();
    const file = fileInput.current?.files?.[0];
    if (!file) return setProblem('Choose a state document (JSON or YAML) first.');
    setPending({ kind: 'import', file });
  };

  return (
    <>
      <p class="lead">The emulator's resources, topics with their messages, API clients and keys, as one document.</p>
      {problem && <Problem>{problem}</Problem>}
      {notice && <Notice>{notice}</Notice>}
      <div class="columns">
        <section aria-labelledby="export-title">
          <h2 id="export-title">Export</h2>
          <p>Download the state as JSON; import it later, or start the emulator with it as a seed.</p>
          <button type="button" onClick={exportState}>
            Export state
          </button>
        </section>
        <form onSubmit={importState} aria-labelledby="import-title">
          <h2 id="import-title">Import</h2>
          <div class="field">
            <label for="state-file">State document</label>
            <span class="hint" id="state-file-hint">
              JSON or YAML, as exported; it replaces the whole state
            </span>
            <input
              id="state-file"
              type="file"
              accept=".json,.yaml,.yml"
              ref={fileInput}
              aria-describedby="state-file-hint"
            />
          </div>
          <button type="submit">Import state</button>
        </form>
        <section aria-labelledby="reset-title">
          <h2 id="reset-title">Reset</h2>
          <p>Back to a fresh emulator: no state, faults, journal or clock setting; the bootstrap key as at start.</p>
          <button type="button" class="danger" onClick={() => setPending({ kind: 'reset' })}>
            Reset emulator
          </button>
        </section>
      </div>
      {pending && (
        <Confirm
          title={pending.kind === 'reset' ? 'Reset the emulator?' : `Replace the state with ${pending.file.name}?`}
          action={pending.kind === 'reset' ? 'Reset' : 'Replace the state'}
          onConfirm={confirmed}
          onCancel={() => setPending(undefined)}
        >
          Everything the emulator holds now is lost.
        </Confirm>
      )}
    </>
  );
}

interface ConfirmProps {
  title: string;
  action: string;
  children: string;
  onConfirm: () => void;
  onCancel: () => void;
}

/** A modal dialog (Escape cancels); it opens on Cancel, the safe choice. */
function Confirm({ title, action, children, onConfirm, onCancel }: ConfirmProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
    cancel.current?.focus();
  }, []);
  return (
    <dialog ref={dialog} aria-labelledby="confirm-title" aria-describedby="confirm-text" onCancel={onCancel}>
      <h2 id="confirm-title">{title}</h2>
      <p id="confirm-text">{children}</p>
      <div class="actions">
        <button type="button" ref={cancel} onClick={onCancel}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={onConfirm}>
          {action}
        </button>
      </div>
    </dialog>
  );
}
