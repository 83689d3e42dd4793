// Types of the plain-JS Redocly plugin, for the tests that read its vocabulary.
export declare const OP_KINDS: readonly string[];
export declare const MATCHES: readonly string[];
export declare const DERIVATION_KINDS: readonly string[];
export declare const EFFECT_VERBS: readonly string[];
/** The names management/vocabulary.json documents: the keys of both annotations and of `x-effect`, the handlers and hooks. */
export declare const vocabulary: {
  typeKeys: string[];
  operationKeys: string[];
  effectKeys: string[];
  handlers: string[];
  hooks: string[];
};
declare function emulatorVocabularyPlugin(): { id: string; rules: Record<string, unknown> };
export default emulatorVocabularyPlugin;
