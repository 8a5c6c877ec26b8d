import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
  base: './',
  // No inline scripts anywhere: the server's CSP allows only script files from itself.
  build: { outDir: 'dist', sourcemap: false, modulePreload: { polyfill: false }, assetsInlineLimit: 0 },
});
