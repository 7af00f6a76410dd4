import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// One build for every panel: asset paths are relative ('./'), resolved against the <base href>
// the controller writes into index.html for its WARREN_BASE_PATH (apps/controller/src/web).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: fileURLToPath(new URL('../../dist/web', import.meta.url)),
    emptyOutDir: true,
    chunkSizeWarningLimit: 800,
    reportCompressedSize: false,
    rolldownOptions: {
      // Mantine marks its modules "use client" (for React Server Components); meaningless in a bundle.
      onLog(level, log, handler) {
        if (log.code === 'MODULE_LEVEL_DIRECTIVE') return;
        handler(level, log);
      },
    },
  },
});
