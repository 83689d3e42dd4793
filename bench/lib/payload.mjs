// The message the bench publishes and stores: about 200 bytes of JSON matching TOPIC_SCHEMA.
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
