import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App } from './App';
import { ApiError } from './lib/api';
import { installGlobalKeys } from './keys';
import { prefetchFirstView } from './queries/hooks';
import { useUi } from './stores/ui';
import { useLibrary } from './stores/library';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // spec errors (validation, out of credits, not found…) fail identically until something changes: no retry
      retry: (n, e) => n < 1 && !(e instanceof ApiError && e.kind !== 'network'),
      refetchOnWindowFocus: false,
    },
  },
});

// before the first frame: a key pressed while it is drawn still counts (keys.ts)
installGlobalKeys();
// the first view's rows are asked for now, not once its code is in
prefetchFirstView(queryClient, useUi.getState().view, useLibrary.getState().q);

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element to render the app into.');
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
