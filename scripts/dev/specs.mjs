// The live loop's linter and bundler: Redocly's own library (the engine of `redocly lint` and `redocly
// bundle`, with the same redocly.yaml, rules and plugins) run in the loop's process, so a save pays for
// neither a CLI start nor reading again the files it did not touch (what was read is kept, and a save
// forgets only the files it changed).
import { join, relative, sep } from 'node:path';
import { BaseResolver, bundle, clearPluginsCache, getLineColLocation, lint, loadConfig } from '@redocly/openapi-core';

/** Opens the spec folder (its redocly.yaml): `bundle` and `lint` an API, `changed` forgets edited files. */
export async function openSpecs(specDir) {
  const configPath = join(specDir, 'redocly.yaml');
  const pluginsDir = join(specDir, 'plugins') + sep;
  let config = await loadConfig({ configPath });
  let resolver = new BaseResolver(config.resolve);
  /** Why the config saved last cannot be read (the last good one stays). */
  let configError;

  return {
    /** The files were saved: read them again at the next bundle and lint (the config and its plugins when one of them is). */
    async changed(files) {
      if (files.some((file) => file === configPath || file.startsWith(pluginsDir))) {
        // Redocly keeps the plugins it imported; this makes the next load import them again.
        clearPluginsCache();
        try {
          config = await loadConfig({ configPath });
          configError = undefined;
        } catch (error) {
          configError = `${relative(specDir, configPath)}: ${error.message}`;
        }
        resolver = new BaseResolver(config.resolve);
        return;
      }
      for (const file of files) resolver.cache.delete(file);
    },

    /** Bundles one API of the config (`management@v1`): its bundled document, or `error` (see `problems`). */
    async bundle(api) {
      if (configError) return { error: configError };
      const externalRefResolver = new CopyingResolver(config.resolve, resolver);
      const bundled = await bundle({ ref: api.root, config: config.forAlias(api.id), externalRefResolver });
      const error = problems(bundled.problems);
      return error ? { error } : { document: bundled.bundle.parsed };
    },

    /** Lints one API of the config, as `redocly lint` does: `error` says what fails it, if anything does. */
    async lint(api) {
      if (configError) return { error: configError };
      const found = await lint({ ref: api.root, config: config.forAlias(api.id), externalRefResolver: resolver });
      const error = problems(found);
      return error ? { error } : {};
    },
  };

  /** The problems that fail an API, one per line with file, line and column, as `redocly lint` reports them. */
  function problems(found) {
    const lines = [
      ...new Set(found.filter((problem) => problem.severity === 'error').map((problem) => describe(specDir, problem))),
    ];
    return lines.slice(0, 20).join('\n');
  }
}

/**
 * Hands the bundler copies of the documents `read` holds: the bundler rewrites the documents it
 * reads (their $refs), and copying one costs less than parsing its YAML again.
 */
class CopyingResolver extends BaseResolver {
  constructor(config, read) {
    super(config);
    this.read = read;
  }

  resolveDocument(base, ref, isRoot) {
    const absoluteRef = this.resolveExternalRef(base, ref);
    let copy = this.cache.get(absoluteRef);
    if (!copy) {
      copy = this.read
        .resolveDocument(base, ref, isRoot)
        .then((document) =>
          'parsed' in document ? { ...document, parsed: structuredClone(document.parsed) } : document,
        );
      this.cache.set(absoluteRef, copy);
    }
    return copy;
  }
}

/** `management/paths/x.yaml:3:3  error  no-unresolved-refs  Failed to parse: ...` */
function describe(specDir, problem) {
  const [location] = problem.location;
  if (!location) return `error  ${problem.ruleId}  ${problem.message}`;
  const { line, col } = getLineColLocation(location).start;
  return `${relative(specDir, location.source.absoluteRef)}:${line}:${col}  error  ${problem.ruleId}  ${problem.message}`;
}
