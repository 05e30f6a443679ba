// @a2a-tether/ai-sdk — the AI SDK's ChatTransport over A2A with Tether (docs/ai-sdk.md).
// Every public name is listed here on purpose.

export { A2AChatTransport } from './a2a-chat-transport.js';
export type { A2AChatTransportOptions, A2AChatTransportBaseOptions, StopMode, StopReport } from './a2a-chat-transport.js';
export type { ChatMessageStore } from './chat-messages.js';
export type { A2AData, A2APauseData, A2AStatusData, A2AUIDataTypes } from './data-parts.js';
export { CHAT_TAGS } from './chat-tags.js';
