// Workspaces: the emulator's workspaces and their environments, each a state of its own. Listing them
// is a fleet-level call: an emulator beyond loopback asks for its admin token first.
import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, must, type Schemas } from './api.js';
import { Problem } from './ui.js';

export function WorkspacesView() {
  const [workspaces, setWorkspaces] = useState<Schemas['Workspace'][]>();
  const [problem, setProblem] = useState<string>();

  useEffect(() => {
    must(api.GET('/_emulator/workspaces')).then(
      (list) => setWorkspaces(list.workspaces),
      (error: unknown) => setProblem(messageOf(error)),
    );
  }, []);

  return (
    <>
      <p class="lead">
        The emulator's workspaces, made at start or through the emulator API, each environment a state of its own.
      </p>
      {problem && <Problem>{problem}</Problem>}
      {workspaces && (
        <div class="table-scroll">
          <table>
            <caption class="visually-hidden">Workspaces</caption>
            <thead>
              <tr>
                <th scope="col">ID</th>
                <th scope="col">Name</th>
                <th scope="col">Environments</th>
              </tr>
            </thead>
            <tbody>
              {workspaces.map((workspace) => (
                <tr key={workspace.id}>
                  <td>{workspace.id}</td>
                  <th scope="row">{workspace.name}</th>
                  <td>{workspace.environments.map((environment) => environment.name).join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
