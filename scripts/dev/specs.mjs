// The live loop's linter and bundler: Redocly's own library (the engine of `redocly lint` and `redocly
// bundle`, with the same redocly.yaml, rules and plugins) run in the loop's process, so a save pays for
// neither a CLI start nor reading again the files it did not touch (what was read is kept, and a save
// forgets only the files it changed).
import { join, relative, sep } from 'node:path';
import { BaseResolver, bundle, clearPluginsCache, getLineColLocation, lint, loadConfig } from '@redocly/openapi-core';

/** Opens the spec folder (its redocly.yaml): `build` lints and bundles an API, `changed` forgets edited files. */
export async function openSpecs(specDir) {
  const configPath = join(specDir, 'redocly.yaml');
  const pluginsDir = join(specDir, 'plugins') + sep;
  let config = await loadConfig({ configPath });
  let resolver = new BaseResolver(config.resolve);
  /** Why the config saved last cannot be read (the last good one stays). */
  let configError;

  return {
    /** The files were saved: read them again at the next build (the config and its plugins when one of them is). */
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

    /**
     * Lints and bundles one API of the config (`management@v1`): its bundled document, or `error`, the
     * problems that fail it, one per line with file, line and column, as `redocly lint` reports them.
     */
    async build(api) {
      if (configError) return { error: configError };
      const apiConfig = config.forAlias(api.id);
      const options = { ref: api.root, config: apiConfig };
      const [lintProblems, bundled] = await Promise.all([
        lint({ ...options, externalRefResolver: resolver }),
        bundle({ ...options, externalRefResolver: new CopyingResolver(config.resolve, resolver) }),
      ]);
      // The linter reports an unreadable file too; the bundler's problems count when the linter saw none.
      const errors = lintProblems.filter((problem) => problem.severity === 'error');
      if (errors.length === 0) errors.push(...bundled.problems.filter((problem) => problem.severity === 'error'));
      const lines = [...new Set(errors.map((problem) => describe(specDir, problem)))];
      if (lines.length > 0) return { error: lines.slice(0, 20).join('\n') };
      return { document: bundled.bundle.parsed };
    },
  };
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
