// The web console of the emulator: one page, a view per part of the emulator, chosen in the navigation
// and kept in the address (#/topics), so the browser's back and forward and a bookmark work.
import type { ComponentType } from 'preact';
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { AdminTokenForm } from './admin-token.js';
import { whenAdminTokenRefused } from './api.js';
import { ClockView } from './clock.js';
import { FaultsView } from './faults.js';
import { RequestsView } from './requests.js';
import { ResourcesView } from './resources.js';
import { StateView } from './state.js';
import { TopicsView } from './topics.js';
import { WorkspacesView } from './workspaces.js';

interface View {
  path: string;
  label: string;
  title: string;
  component: ComponentType;
}

const VIEWS: View[] = [
  { path: 'requests', label: 'Requests', title: 'Requests', component: RequestsView },
  { path: 'topics', label: 'Topics', title: 'Topics', component: TopicsView },
  { path: 'resources', label: 'Resources', title: 'Resources', component: ResourcesView },
  { path: 'faults', label: 'Faults', title: 'Faults', component: FaultsView },
  { path: 'clock', label: 'Clock', title: 'Clock', component: ClockView },
  { path: 'state', label: 'State', title: 'State', component: StateView },
  { path: 'workspaces', label: 'Workspaces', title: 'Workspaces', component: WorkspacesView },
];

const viewAt = (hash: string): View => VIEWS.find((view) => `#/${view.path}` === hash) ?? (VIEWS[0] as View);

function App() {
  const [view, setView] = useState(() => viewAt(location.hash));
  /** Counts the moves through the navigation (the same view chosen again too). */
  const [moves, setMoves] = useState(0);
  const heading = useRef<HTMLHeadingElement>(null);
  /** Whether the emulator asked for its admin token, and whether the one sent was refused. */
  const [tokenAsked, setTokenAsked] = useState<{ refused: boolean }>();
  /** Counts the admin tokens entered: the view loads again with each. */
  const [tokens, setTokens] = useState(0);

  useEffect(() => whenAdminTokenRefused((sent) => setTokenAsked({ refused: sent })), []);

  useEffect(() => {
    const follow = () => {
      setView(viewAt(location.hash));
      // Another view asks again if it needs the token.
      setTokenAsked(undefined);
      setMoves((count) => count + 1);
    };
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  useEffect(() => {
    document.title = `${view.title} · Emulator console`;
  }, [view]);
  useEffect(() => {
    // After a move, a keyboard or screen reader user lands on the view's heading, not on the link.
    if (moves > 0) heading.current?.focus();
  }, [moves]);

  const Component = view.component;
  return (
    <>
      <a class="skip" href="#main">
        Skip to the view
      </a>
      <header class="top">
        <p class="brand">Platform API emulator</p>
        <nav aria-label="Views">
          <ul>
            {VIEWS.map((candidate) => (
              <li key={candidate.path}>
                <a href={`#/${candidate.path}`} aria-current={candidate === view ? 'page' : undefined}>
                  {candidate.label}
                </a>
              </li>
            ))}
            <li>
              <a href="/docs/">Docs</a>
            </li>
          </ul>
        </nav>
      </header>
      <main id="main">
        <h1 tabIndex={-1} ref={heading}>
          {view.title}
        </h1>
        {tokenAsked && (
          <AdminTokenForm
            refused={tokenAsked.refused}
            onToken={() => {
              setTokenAsked(undefined);
              setTokens((count) => count + 1);
            }}
          />
        )}
        <Component key={`${view.path} ${tokens}`} />
      </main>
    </>
  );
}

const root = document.getElementById('console');
if (root) render(<App />, root);
