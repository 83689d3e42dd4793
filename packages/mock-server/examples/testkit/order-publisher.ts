// The code under test in the example suite: a small publisher of orders, as an application would
// write it with fetch. It gets a token, publishes, fetches a new token when the old one expired,
// and waits out a 429 (Retry-After) before trying again.
export interface PublisherOptions {
  url: string;
  clientId: string;
  clientSecret: string;
  /** Attempts per order, the first included. */
  attempts?: number;
}

export class OrderPublisher {
  private token: string | undefined;

  constructor(private readonly options: PublisherOptions) {}

  async publish(topicId: number, order: { order_id: string; total?: number }): Promise<string> {
    const attempts = this.options.attempts ?? 3;
    for (let attempt = 1; ; attempt++) {
      const answer = await fetch(`${this.options.url}/api/v1/topics/${topicId}/publish`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await this.accessToken()}`, 'content-type': 'application/json' },
        body: JSON.stringify(order),
      });
      if (answer.status === 201) return ((await answer.json()) as { message_id: string }).message_id;
      if (attempt >= attempts) throw new Error(`publish failed with ${answer.status}: ${await answer.text()}`);
      if (answer.status === 401) this.token = undefined;
      else if (answer.status === 429) await sleep(Number(answer.headers.get('retry-after') ?? 1) * 1000);
      else throw new Error(`publish failed with ${answer.status}: ${await answer.text()}`);
    }
  }

  private async accessToken(): Promise<string> {
    if (this.token) return this.token;
    const answer = await fetch(`${this.options.url}/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${this.options.clientId}:${this.options.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    if (!answer.ok) throw new Error(`no token: ${answer.status}`);
    this.token = ((await answer.json()) as { access_token: string }).access_token;
    return this.token;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
