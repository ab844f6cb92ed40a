// The dashboard's build (README "The dashboard"): React through Vite, served by the service at /app.
// `npm run build` writes it to dist/dashboard at the repository's root (ENGAGE_DASHBOARD_OUT moves it:
// the tests build into a folder of their own); `npm run dev --workspace dashboard` serves it with hot
// reload and sends the API's paths to a service on localhost:3000.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { compression } from 'vite-plugin-compression2';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: '/app/',
  // every bundle also written gzip'd and brotli'd, which the service sends to a browser that takes them
  plugins: [react(), compression({ algorithms: ['gzip', 'brotliCompress'], logLevel: 'silent' })],
  resolve: {
    // the typed client's sources: the workspace package builds to client/dist, which a fresh clone lacks
    alias: { '@engage/client': here('../client/src/index.ts') },
  },
  build: {
    outDir: process.env.ENGAGE_DASHBOARD_OUT ?? here('../dist/dashboard'),
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
  },
  server: {
    proxy: { '/v1': 'http://localhost:3000', '/health': 'http://localhost:3000' },
  },
});
