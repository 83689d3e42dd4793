import { Readable } from 'node:stream';
import type { CliIo, Output } from '../../src/cli-program.js';
import type { Platform } from './emulator.js';

/** An Output that keeps what was written. */
export interface Captured extends Output {
  text(): string;
  /** The lines written, parsed as JSON. */
  json(): unknown[];
}

export function captured(): Captured {
  let text = '';
  return {
    write(chunk, callback) {
      text += chunk;
      callback?.();
      return true;
    },
    text: () => text,
    json: () =>
      text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
  };
}

/** The command line's streams, with the emulator's URL and bootstrap credentials in the environment. */
export function cliIo(
  platform: Platform,
  { stdin = '', env = {}, signal }: { stdin?: string; env?: Record<string, string>; signal?: AbortSignal } = {},
): CliIo & { stdout: Captured; stderr: Captured } {
  return {
    stdin: Readable.from([Buffer.from(stdin)]),
    stdout: captured(),
    stderr: captured(),
    env: {
      PLATFORM_API_URL: platform.emulator.url,
      PLATFORM_API_CLIENT_ID: platform.emulator.clientId,
      PLATFORM_API_CLIENT_SECRET: platform.emulator.clientSecret,
      ...env,
    },
    ...(signal && { signal }),
  };
}
