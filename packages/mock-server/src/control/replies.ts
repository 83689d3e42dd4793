// The answers the emulator API's endpoints share.
import type { Reply } from '../http/replies.js';

export const NO_CONTENT: Reply = Object.freeze({ status: 204, json: '' });
