// The machine a result was measured on: the figures mean little without it.
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';

export function describeMachine() {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  return {
    nproc: availableParallelism(),
    cpuModel: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    loadAverageAtStart: loadavg().map((n) => Math.round(n * 100) / 100),
  };
}
