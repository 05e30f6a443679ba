import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { relayPlugin } from './server/relay.js';

// Two pages: the chat (index.html: the AI SDK's useChat over A2AChatTransport) and the task board
// (tasks.html: @a2a-tether/react's hooks). Both reach the agent through the relay on /api/a2a; the
// agent's URL comes from AGENT_URL (scripts/start.ts sets it).
export default defineConfig({
  plugins: [relayPlugin(process.env['AGENT_URL'] ?? 'http://127.0.0.1:41241')],
  build: {
    rollupOptions: {
      input: {
        main: fileURLToPath(new URL('index.html', import.meta.url)),
        tasks: fileURLToPath(new URL('tasks.html', import.meta.url)),
      },
    },
  },
});
