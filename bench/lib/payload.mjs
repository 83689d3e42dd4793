// The message the bench publishes and stores (about 200 bytes of JSON matching TOPIC_SCHEMA), the
// batch it publishes, and the event-streams paths it sends them to.
export const TOPIC_SCHEMA = [
  { name: 'order_id', type: 'string' },
  { name: 'amount', type: 'number' },
  { name: 'currency', type: 'string' },
  { name: 'created_at', type: 'date_time' },
  {
    name: 'customer',
    type: 'object',
    properties: [
      { name: 'id', type: 'integer' },
      { name: 'email', type: 'string' },
    ],
  },
  { name: 'tags', type: 'array', of: 'string', optional: true },
];

export function payload(sequence) {
  return {
    order_id: `ORD-${String(sequence).padStart(10, '0')}`,
    amount: 1234.5,
    currency: 'EUR',
    created_at: '2026-11-22T12:00:00.000Z',
    customer: { id: 4242, email: 'buyer@example.com' },
    tags: ['priority', 'web'],
    note: 'kept, not in schema',
  };
}

export const PAYLOAD_TEXT = JSON.stringify(payload(1));

/** The batch publish body of `count` messages, numbered from 1. */
export const batchText = (count) =>
  JSON.stringify({ payloads: Array.from({ length: count }, (_, i) => payload(i + 1)) });

export const publishPath = (topicId) => `/api/v1/topics/${topicId}/publish`;
export const batchPublishPath = (topicId) => `/api/v1/batch/topics/${topicId}/publish`;
export const consumePath = (topicId) => `/api/v1/topics/${topicId}/consume`;
