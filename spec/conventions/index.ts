// `@platform-api/spec/conventions`: the rules the specs imply that more than one package follows (how
// lists page, what a topic schema's values are, RFC 3339 dates, e-mail addresses, positive counts),
// written once for the client, its generators and the emulator. Plain ES2022 without Node.js APIs: it
// runs wherever they do.
export { instantOf, isDate, isDateTime } from './date-time.js';
export { isEmail } from './email.js';
export { isPositiveInteger, positiveInteger } from './numbers.js';
export {
  CURSOR_PARAMETERS,
  FIRST_PAGE,
  ITEM_FIELDS,
  PAGE_NUMBER_FIELDS,
  PAGE_NUMBER_PARAMETERS,
  PAGE_SIZE_FIELDS,
  PAGE_SIZE_PARAMETERS,
  type Paging,
  type PagingParameter,
  pagingOf,
  TOTAL_FIELDS,
} from './pagination.js';
export {
  MAX_FIELD_DEPTH,
  TOPIC_SCALARS,
  type TopicFieldType,
  type TopicScalar,
  type TopicScalarType,
  type TopicSchemaField,
} from './topic-schema.js';
