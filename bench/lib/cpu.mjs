// CPU time a process has used (user and system), from Linux's /proc/<pid>/stat. Divided by the requests
// of a run it gives the server's own cost per request, a figure that, unlike requests/s, does not move
// with how the load generator shares the cores. And its resident memory, from /proc/<pid>/statm.
import { readFileSync } from 'node:fs';

/** USER_HZ, the unit of /proc's tick counts: 100 on every mainstream Linux build. */
const TICKS_PER_SECOND = 100;

/** Microseconds of CPU `pid` has used so far; undefined where /proc is not there. */
export function cpuMicros(pid) {
  try {
    // Fields after the ")" that ends the command name: utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** The page size of every mainstream Linux on x86-64 and of arm64's default kernels. */
const PAGE_BYTES = 4096;

/** Bytes of memory `pid` has resident; undefined where /proc is not there. */
export function residentBytes(pid) {
  try {
    // statm counts pages: its second field is the resident set.
    return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * PAGE_BYTES;
  } catch {
    return undefined;
  }
}
