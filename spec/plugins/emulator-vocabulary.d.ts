// Types of the plain-JS Redocly plugin, for the tests that read its vocabulary.
export declare const OP_KINDS: readonly string[];
export declare const MATCHES: readonly string[];
export declare const DERIVATION_KINDS: readonly string[];
export declare function readVocabulary(markdown: string): {
  typeKeys: string[];
  operationKeys: string[];
  handlers: string[];
  hooks: string[];
};
declare function emulatorVocabularyPlugin(): { id: string; rules: Record<string, unknown> };
export default emulatorVocabularyPlugin;
