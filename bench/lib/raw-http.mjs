// A minimal HTTP/1.1 client on one keep-alive socket, with pipelining: requests are written without
// waiting, answers come back in order. It costs the shared CPU far less than fetch or node:http's
// client, so the bench measures the server rather than its own client. It understands exactly what
// the emulator sends: a status line, headers with Content-Length, a body.

import { once } from 'node:events';
import { connect } from 'node:net';

export class RawConnection {
  #socket;
  #pending = [];
  #buffer = Buffer.alloc(0);

  static async open(url) {
    const { hostname, port } = new URL(url);
    const socket = connect({ host: hostname, port: Number(port), noDelay: true });
    await once(socket, 'connect');
    return new RawConnection(socket, hostname, port);
  }

  constructor(socket, hostname, port) {
    this.host = `${hostname}:${port}`;
    this.#socket = socket;
    socket.on('data', (chunk) => this.#receive(chunk));
    socket.on('error', (error) => this.#failAll(error));
    socket.on('close', () => this.#failAll(new Error('connection closed')));
  }

  /** The bytes of a JSON POST, built once and sent as often as needed. */
  postRequest(path, token, body) {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const auth = token ? `Authorization: Bearer ${token}\r\n` : '';
    return Buffer.from(
      `POST ${path} HTTP/1.1\r\nHost: ${this.host}\r\n${auth}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
    );
  }

  /** Sends a request; resolves to { status, body: Buffer } when its answer has arrived. */
  send(request) {
    return new Promise((resolve, reject) => {
      this.#pending.push({ resolve, reject });
      this.#socket.write(request);
    });
  }

  close() {
    this.#socket.destroy();
  }

  #receive(chunk) {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      const headEnd = this.#buffer.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const head = this.#buffer.toString('latin1', 0, headEnd);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1]);
      if (!Number.isFinite(length)) return this.#failAll(new Error(`Answer without Content-Length:\n${head}`));
      const end = headEnd + 4 + length;
      if (this.#buffer.length < end) return;
      const status = Number(head.slice(9, 12));
      const body = this.#buffer.subarray(headEnd + 4, end);
      this.#buffer = this.#buffer.subarray(end);
      this.#pending.shift()?.resolve({ status, body });
    }
  }

  #failAll(error) {
    for (const { reject } of this.#pending.splice(0)) reject(error);
  }
}
