// Types of the plain-JS Redocly plugin, for the test that runs its decorator.
export declare const INTEGER_PARAMETER_BOUND: number;
export declare function boundIntegers(schema: unknown): void;
declare function integerBoundsPlugin(): { id: string; decorators: Record<string, unknown> };
export default integerBoundsPlugin;
