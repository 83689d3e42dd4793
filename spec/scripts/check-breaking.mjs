#!/usr/bin/env node
// Compares each bundled spec (dist/) with its last released form (released/) using Optic's
// breaking-changes ruleset. A breaking change fails the check unless the API's info.version
// raises its major number over the release's; the report names every break that fails. Once the major
// has risen nothing can fail, so the spec is compared only when `--list` asks for the breaks.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, stripVTControlCharacters } from 'node:util';
import { parse, parseDocument } from 'yaml';

const specDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    released: { type: 'string', default: join(specDir, 'released') },
    current: { type: 'string', default: join(specDir, 'dist') },
    api: { type: 'string', multiple: true, default: ['event-streams', 'auth', 'management', 'emulator'] },
    list: { type: 'boolean', default: false },
  },
});

const optic = join(specDir, 'node_modules/.bin/optic');
const opticBin = existsSync(optic) ? optic : join(specDir, '../node_modules/.bin/optic');

const majorOf = (version) => Number(String(version).split('.')[0]);

/**
 * Runs Optic on the current spec rewritten under the released version: Optic lets breaking changes
 * pass when the major version rises, so this way every break is named, and the version decides
 * afterwards. `current` is the parsed current document (it is changed).
 */
async function opticDiff(before, releasedVersion, current) {
  current.setIn(['info', 'version'], releasedVersion);
  const dir = mkdtempSync(join(tmpdir(), 'check-breaking-'));
  try {
    const file = join(dir, 'current.yaml');
    writeFileSync(file, String(current));
    return await runOptic(before, file, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs in `cwd`, a directory of its own: under CI, Optic writes its whole report (megabytes) to
 * ci-run-details.json in the working directory. In the spec's folder that file would be a new input
 * of the spec's build, so a build started afterwards (npm start's, beside the suites) would miss
 * turbo's cache and rebuild every package while the suites read them.
 */
function runOptic(before, after, cwd) {
  return new Promise((settle) => {
    execFile(
      opticBin,
      ['diff', resolve(before), after, '--check', '--standard', join(specDir, 'optic.yml')],
      {
        cwd,
        env: { ...process.env, OPTIC_TELEMETRY_LEVEL: 'off', NO_COLOR: '1', FORCE_COLOR: '0' },
        maxBuffer: 64 << 20,
      },
      (error, stdout, stderr) => settle({ failed: Boolean(error), output: `${stdout}${stderr}` }),
    );
  });
}

/** The lines of Optic's report that name a break, each with the operation it belongs to. */
function breaksIn(report) {
  const breaks = [];
  let operation = '';
  for (const line of stripVTControlCharacters(report).split('\n')) {
    const heading = line.match(/^x ((?:GET|PUT|POST|DELETE|PATCH|HEAD|OPTIONS) [^\s:]+)/);
    if (heading) operation = heading[1];
    const rule = line.match(/^\s*x \[(.+?)\] (.*)$/);
    if (rule) breaks.push(`${operation || '(document)'}: ${rule[2]} [${rule[1]}]`);
  }
  return breaks;
}

/** Checks one API; resolves to its report lines and whether it fails the gate. */
async function checkApi(api) {
  const before = join(values.released, `${api}.yaml`);
  const after = join(values.current, `${api}.yaml`);
  if (!existsSync(before))
    return { ok: true, text: `${api}: no released baseline yet (${before}); nothing to compare.` };
  const released = parse(readFileSync(before, 'utf8')).info.version;
  const current = parseDocument(readFileSync(after, 'utf8'));
  const version = current.getIn(['info', 'version']);
  const [from, to] = [majorOf(released), majorOf(version)];
  const bump = `the major version bump ${from} -> ${to}`;
  if (to > from && !values.list)
    return {
      ok: true,
      text: `${api}: breaking changes since release ${released} are accepted with ${bump} (--list names them).`,
    };
  const { failed, output } = await opticDiff(before, released, current);
  const breaks = breaksIn(output);
  if (!failed && breaks.length === 0) return { ok: true, text: `${api}: no breaking change since the last release.` };
  // Optic failed without naming a rule: show its whole output rather than guess.
  if (breaks.length === 0) return { ok: false, text: `${api}: optic diff failed:\n${output}` };
  const list = breaks.map((b) => `  - ${b}`).join('\n');
  if (to > from)
    return {
      ok: true,
      text: `${api}: ${breaks.length} breaking change(s) since release ${released}, accepted with ${bump}:\n${list}`,
    };
  return {
    ok: false,
    text:
      `${api}: ${breaks.length} breaking change(s) since the last release without a major version bump:\n${list}\n` +
      `  Either undo them, or raise the major of info.version in spec/${api}/openapi.yaml and release it (see README, Releases).`,
  };
}

// The APIs are compared concurrently: the management diff alone takes most of the time.
const results = await Promise.all(values.api.map(checkApi));
for (const { ok, text } of results) (ok ? console.log : console.error)(text);
process.exit(results.every((r) => r.ok) ? 0 : 1);
