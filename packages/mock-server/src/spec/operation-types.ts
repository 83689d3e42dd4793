// What an operation's parameters and JSON body are, read from the operation types openapi-typescript
// generates from the bundled specs (@platform-api/spec/types/<api>). Types only; the hand-written
// endpoints (pipeline/endpoint.ts) and the engine's handlers (engine/contract.ts) see their requests
// through them, which the pipeline has checked against the same spec at run time.

/** What the spec declares of one operation, as openapi-typescript writes it. */
export interface OperationTypes {
  parameters: { path?: unknown; query?: unknown };
  requestBody?: { content: object };
}

type PathParameters<Op extends OperationTypes> = Op['parameters'] extends { path: infer P } ? P : unknown;
type QueryParameters<Op extends OperationTypes> = [NonNullable<Op['parameters']['query']>] extends [never]
  ? unknown
  : NonNullable<Op['parameters']['query']>;

/** Path and query parameters of the operation, validated and coerced to their schema types. */
export type ParametersOf<Op extends OperationTypes> = Readonly<PathParameters<Op> & QueryParameters<Op>>;

/** The operation's JSON request body (under any `application/json...` media type); never when it takes none. */
export type JsonBodyOf<Op extends OperationTypes> = Op['requestBody'] extends { content: infer Content }
  ? { [Media in keyof Content]: Media extends `application/json${string}` ? Content[Media] : never }[keyof Content]
  : never;

/** `string | number` (an IdInput: a number or its decimal digits) as the engine hands it over: a number. */
type IdNumber<T> = [string] extends [T] ? ([number] extends [T] ? Exclude<T, string> : T) : T;
/** A body with its IdInput IDs as numbers, at any depth: the engine reads them so (values.ts, numericIds). */
export type NumericIds<T> = EachNumericIds<IdNumber<T>>;
type EachNumericIds<T> = T extends readonly (infer Item)[]
  ? NumericIds<Item>[]
  : T extends object
    ? { [Key in keyof T]: NumericIds<T[Key]> }
    : T;
