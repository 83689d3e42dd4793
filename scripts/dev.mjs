// npm run dev [-- emulator flags]: the spec author's live loop (see dev/loop.mjs).
import { startDevLoop } from './dev/loop.mjs';

const loop = await startDevLoop({ emulatorArgs: process.argv.slice(2) });
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => loop.close().then(() => process.exit(0)));
}
