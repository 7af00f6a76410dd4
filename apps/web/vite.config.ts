import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

const outDir = fileURLToPath(new URL('../../dist/web', import.meta.url));

/**
 * Writes `.br` and `.gz` beside every script and stylesheet once, at build time: the controller
 * sends them to browsers that accept them (@fastify/static `preCompressed`), so serving costs no
 * compression work and the first load transfers a fraction of the bytes. Then removes what an
 * earlier build left in `assets/`: the output directory is not emptied first (`emptyOutDir`
 * off), so a build beside a running panel never leaves it without the files its pages name.
 */
function precompress(): Plugin {
  const written = new Set<string>();
  return {
    name: 'warren-precompress',
    apply: 'build',
    writeBundle(_options, bundle) {
      for (const name of Object.keys(bundle)) written.add(name);
    },
    closeBundle() {
      const assets = join(outDir, 'assets');
      for (const name of readdirSync(assets)) {
        const file = join(assets, name);
        const source = name.replace(/\.(gz|br)$/, '');
        if (!written.has(`assets/${source}`)) {
          rmSync(file, { force: true });
          continue;
        }
        if (name !== source || !/\.(js|css)$/.test(name)) continue;
        const body = readFileSync(file);
        writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
        writeFileSync(`${file}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
      }
    },
  };
}

// One build for every panel: asset paths are relative ('./'), resolved against the <base href>
// the controller writes into index.html for its WARREN_BASE_PATH (apps/controller/src/web).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  oxc: { jsx: { runtime: 'automatic' } },
  plugins: [precompress()],
  build: {
    outDir,
    emptyOutDir: false,
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
