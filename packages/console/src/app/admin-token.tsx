// The form that asks for the emulator's admin token, shown above the view once the emulator asked for
// it (api.ts): the token is kept for this tab and the view loads again with it.
import { useState } from 'preact/hooks';
import { adminToken } from './api.js';
import { Problem } from './ui.js';

export function AdminTokenForm({ refused, onToken }: { refused: boolean; onToken: () => void }) {
  const [token, setToken] = useState('');
  const submit = (event: Event) => {
    event.preventDefault();
    adminToken.set(token.trim());
    onToken();
  };
  return (
    <form class="admin-token" aria-labelledby="admin-token-title" onSubmit={submit}>
      <h2 id="admin-token-title">The emulator's admin token</h2>
      {refused ? (
        <Problem>The emulator refused this admin token. Enter the one it printed at start, or was given.</Problem>
      ) : (
        <p class="hint">
          This emulator requires its admin token for this view: the one its start-up banner printed, or the one it was
          given (--admin-token). It is kept for this tab only.
        </p>
      )}
      <div class="field">
        <label for="admin-token">Admin token</label>
        <input
          id="admin-token"
          type="password"
          autocomplete="off"
          spellcheck={false}
          required
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
        />
      </div>
      <button type="submit">Use the token</button>
    </form>
  );
}
