// The emulator's logger: pino's, loaded with the first line its level lets through. An emulator that
// logs nothing (startMockServer's default, silent; `--log-level error` until an error) does without
// pino's modules, a tenth of a start (BENCHMARKS.md, start-up).
import { createRequire } from 'node:module';
import type { LogFn, Logger as PinoLogger } from 'pino';
import type { LogLevel } from './options.js';

const require = createRequire(import.meta.url);

/** What the emulator logs with: pino's methods of these levels. */
export type Logger = Pick<PinoLogger, 'error' | 'warn' | 'info' | 'debug' | 'isLevelEnabled'>;

/** pino's numbers for its levels; silent logs nothing. */
const LEVELS: Record<LogLevel, number> = { silent: Number.POSITIVE_INFINITY, error: 50, warn: 40, info: 30, debug: 20 };

/** pino, ES module or not (it is CommonJS with a `pino` property); loaded by the first call. */
export function loadPino(): typeof import('pino').pino {
  return (require('pino') as typeof import('pino')).pino;
}

export function createLogger(level: LogLevel): Logger {
  let logger: PinoLogger | undefined;
  const atLevel = (name: 'error' | 'warn' | 'info' | 'debug'): LogFn =>
    ((...args: Parameters<LogFn>) => {
      if (LEVELS[name] < LEVELS[level]) return;
      logger ??= loadPino()({ level, base: undefined });
      logger[name](...args);
    }) as LogFn;
  return {
    error: atLevel('error'),
    warn: atLevel('warn'),
    info: atLevel('info'),
    debug: atLevel('debug'),
    isLevelEnabled: (name) => LEVELS[name as LogLevel] >= LEVELS[level],
  };
}
