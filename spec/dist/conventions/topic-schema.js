import { isDate, isDateTime } from './date-time.js';
/** Fields nest at most this deep (`properties` within `properties`), as the management spec documents. */
export const MAX_FIELD_DEPTH = 32;
/** Each scalar type of the format. An optional field may also be absent or null, whatever its type. */
export const TOPIC_SCALARS = {
    string: { accepts: (value) => typeof value === 'string', typescript: 'string' },
    integer: { accepts: Number.isInteger, typescript: 'number' },
    // JSON.parse reads a number past a double's range (1e400) as Infinity: refused, as by ajv's strictNumbers.
    number: { accepts: (value) => Number.isFinite(value), typescript: 'number' },
    boolean: { accepts: (value) => typeof value === 'boolean', typescript: 'boolean' },
    date: { accepts: (value) => typeof value === 'string' && isDate(value), typescript: 'string' },
    date_time: { accepts: (value) => typeof value === 'string' && isDateTime(value), typescript: 'string' },
};
