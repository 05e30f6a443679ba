import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';

const agentUrl = new URLSearchParams(location.search).get('agent');
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App agentUrl={agentUrl} />
  </StrictMode>,
);
