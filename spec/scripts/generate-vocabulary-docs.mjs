// Writes the vocabulary tables of management/EXTENSIONS.md from management/vocabulary.json, their one
// source: the keys of `x-resource` on a schema and on an operation, those of `x-effect`, the
// hand-written handlers and the derivation hooks. Each table follows a marker comment naming its list;
// the prose around them is hand-written. Nothing reads the Markdown back (the lint rule and the
// emulator read vocabulary.json).
// Usage: node scripts/generate-vocabulary-docs.mjs (run by `npm run generate`; the drift check fails on a stale table).
import { readFileSync, writeFileSync } from 'node:fs';

const vocabulary = JSON.parse(readFileSync(new URL('../management/vocabulary.json', import.meta.url), 'utf8'));
const file = new URL('../management/EXTENSIONS.md', import.meta.url);

/** Each table's header, by the list of vocabulary.json it shows. */
const HEADERS = {
  resource_keys: '| Key | Meaning |',
  operation_keys: '| Key | Meaning |',
  effect_keys: '| Key | Meaning |',
  handlers: '| `handler` | What it does |',
  hooks: '| `hook` | What it computes |',
};

const familyOf = (name) => (name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : undefined);

/** `user_group_members.list`, `.add`: a name of the first one's family is written from its dot. */
function namesCell(names) {
  const family = familyOf(names[0]);
  return names
    .map((name, at) => (at > 0 && family && familyOf(name) === family ? name.slice(family.length) : name))
    .map((name) => `\`${name}\``)
    .join(', ');
}

function table(list) {
  const rows = vocabulary[list].map((row) => `| ${namesCell(row.names)} | ${row.doc} |`);
  return [HEADERS[list], '|---|---|', ...rows].join('\n');
}

const lines = readFileSync(file, 'utf8').split('\n');
const written = [];
for (let at = 0; at < lines.length; at++) {
  written.push(lines[at]);
  const list = /^<!-- vocabulary\.json: (\w+)\b/.exec(lines[at])?.[1];
  if (list === undefined) continue;
  if (!HEADERS[list]) throw new Error(`EXTENSIONS.md:${at + 1}: vocabulary.json has no table '${list}'`);
  let end = at + 1;
  while (end < lines.length && lines[end].startsWith('|')) end++;
  written.push(table(list));
  at = end - 1;
}
writeFileSync(file, written.join('\n'));
