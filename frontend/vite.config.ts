/// <reference types="vitest/config" />
import { defineConfig, type Plugin } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { createReadStream, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * pdf.js needs a few data files at run time: CMaps (CJK and other non-embedded
 * encodings), the standard 14 fonts, WebAssembly image decoders (JPX, JBIG2) and an
 * ICC profile. They ship inside pdfjs-dist; this plugin copies them to dist/pdfjs/
 * so that everything is served by the app itself (no CDN, works offline), and serves
 * them from node_modules during `vite dev`.
 */
function pdfjsAssets(): Plugin {
  const root = resolve(import.meta.dirname, 'node_modules/pdfjs-dist');
  const dirs = ['cmaps', 'standard_fonts', 'wasm', 'iccs'];
  return {
    name: 'carrel-pdfjs-assets',
    configureServer(server) {
      server.middlewares.use('/pdfjs/', (req, res, next) => {
        const rel = decodeURIComponent((req.url ?? '').split('?')[0]).replace(/^\/+/, '');
        const file = resolve(root, rel);
        if (!file.startsWith(root + '/') || !dirs.includes(rel.split('/')[0])) return next();
        try {
          if (!statSync(file).isFile()) return next();
        } catch {
          return next();
        }
        if (file.endsWith('.wasm')) res.setHeader('Content-Type', 'application/wasm');
        createReadStream(file).pipe(res);
      });
    },
    generateBundle() {
      for (const dir of dirs) {
        for (const name of readdirSync(join(root, dir))) {
          if (name.startsWith('LICENSE') && dir !== 'standard_fonts') continue;
          this.emitFile({
            type: 'asset',
            fileName: `pdfjs/${dir}/${name}`,
            source: readFileSync(join(root, dir, name)),
          });
        }
      }
    },
  };
}

/**
 * The Content-Security-Policy lives in index.html as a meta tag (the Wails webview has
 * no server headers to set it). Vite's dev server needs inline styles for CSS hot
 * reload and a websocket for HMR, so only in `vite dev` the policy is relaxed.
 */
function devCsp(): Plugin {
  return {
    name: 'carrel-dev-csp',
    apply: 'serve',
    transformIndexHtml(html) {
      return html
        .replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
        .replace("connect-src 'self'", "connect-src 'self' ws: wss:");
    },
  };
}

// `npm run dev` talks to a running `carrel serve`: CARREL_URL=http://127.0.0.1:PORT npm run dev
const backend = process.env.CARREL_URL;

export default defineConfig({
  plugins: [svelte(), pdfjsAssets(), devCsp()],
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 1500,
    assetsInlineLimit: 0,
  },
  server: backend
    ? {
        proxy: {
          '/api': { target: backend, changeOrigin: true },
          '/files': { target: backend, changeOrigin: true },
        },
      }
    : undefined,
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.ts'],
    // *.test-d.ts are type-level tests (bridge.test-d.ts: types.ts against the Go types).
    typecheck: { enabled: true, include: ['src/**/*.test-d.ts'], tsconfig: './tsconfig.json', ignoreSourceErrors: true },
  },
});
