// Hand-written handler for a custom connector's code, which the emulator keeps with the connector
// (its hidden `$code`, given in a seed) since no operation uploads it.

import type { JsonObject } from '../../store/resource-store.js';
import type { HandlerRegistry } from '../contract.js';

/** The source a connector seeded without code answers: the smallest connector, named by its title. */
const minimalSource = (connector: JsonObject) =>
  `{\n  title: ${JSON.stringify(String(connector.title ?? connector.name))},\n  connection: {},\n  test: lambda { |_connection| true },\n  actions: {},\n  triggers: {}\n}\n`;

export const connectorsHandlers = {
  /** `get_custom_connector_code`: the connector's code as text; 404 for an unknown connector. */
  'custom_connectors.code': async (workspace, op, { params }) => {
    const { value } = await workspace.itemOf(op, params);
    return { body: { data: { code: typeof value.$code === 'string' ? value.$code : minimalSource(value) } } };
  },
} satisfies Partial<HandlerRegistry>;
