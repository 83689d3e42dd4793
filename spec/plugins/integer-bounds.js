// A Redocly plugin whose decorator writes, at bundle time, the bound every API puts on its integer path
// and query parameters (each API's description says it in words): at most 2^53 − 1 in magnitude, the
// largest integer a JSON number carries exactly in JavaScript. The bundles (spec/dist, what the emulator
// serves at /_emulator/spec/{api}.json) then state it on each such parameter as `minimum` and `maximum`,
// so tools that generate requests from a spec (Schemathesis, fuzzers) stay within what the emulator
// accepts; the YAML says it once, here, instead of on some two hundred parameters.
//
// A bound the parameter states itself is kept; a schema named by `$ref` is left alone (a component may
// also type a body, whose integers the emulator does not bound this way).

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The largest magnitude of an integer parameter: Number.MAX_SAFE_INTEGER, 9007199254740991. */
export const INTEGER_PARAMETER_BOUND = Number.MAX_SAFE_INTEGER;

/** Writes the bound on each integer of an inline parameter schema: the schema, an array's items, each branch. */
export function boundIntegers(schema) {
  if (!isObject(schema) || '$ref' in schema) return;
  if ([schema.type].flat().includes('integer')) {
    if (schema.minimum === undefined && schema.exclusiveMinimum === undefined)
      schema.minimum = -INTEGER_PARAMETER_BOUND;
    if (schema.maximum === undefined && schema.exclusiveMaximum === undefined) schema.maximum = INTEGER_PARAMETER_BOUND;
  }
  boundIntegers(schema.items);
  for (const key of ['oneOf', 'anyOf', 'allOf']) {
    if (Array.isArray(schema[key])) for (const branch of schema[key]) boundIntegers(branch);
  }
}

function IntegerParameterBounds() {
  return {
    Parameter: {
      leave(parameter) {
        if (parameter.in === 'path' || parameter.in === 'query') boundIntegers(parameter.schema);
      },
    },
  };
}

export default function integerBoundsPlugin() {
  return {
    id: 'conventions',
    decorators: { oas3: { 'integer-parameter-bounds': IntegerParameterBounds } },
  };
}
