import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Two pages: the task assistant (index.html, @a2a-tether/react's hooks) and the chat (chat.html, the AI
// SDK's useChat over A2AChatTransport).
export default defineConfig({
  build: {
    rollupOptions: {
      input: {
        main: fileURLToPath(new URL('index.html', import.meta.url)),
        chat: fileURLToPath(new URL('chat.html', import.meta.url)),
      },
    },
  },
});
