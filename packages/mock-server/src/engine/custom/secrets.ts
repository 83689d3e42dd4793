// Secrets the hand-written handlers give out (access profiles' secrets, developer API clients' tokens,
// MCP servers' tokens).
import type { Workspace } from '../contract.js';

/** 32 random hex digits, from the engine's (seedable) randomness. */
export function randomSecret(workspace: Workspace): string {
  return workspace.values.uuid().replace(/-/g, '');
}
