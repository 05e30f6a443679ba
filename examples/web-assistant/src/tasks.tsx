import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';

// The agent through the app's relay (server/relay.ts); `?agent=<url>` points the page at another agent.
const agentUrl = new URLSearchParams(location.search).get('agent') ?? new URL('/api/a2a/assistant', location.href).href;
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App agentUrl={agentUrl} />
  </StrictMode>,
);
