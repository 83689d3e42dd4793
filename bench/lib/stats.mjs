// The figures the bench takes of repeated runs.

/** The middle value (the lower of the two middle ones for an even count). */
export const median = (values) => [...values].sort((a, b) => a - b)[(values.length - 1) >> 1];
