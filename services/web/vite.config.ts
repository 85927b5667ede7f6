import { defineConfig } from 'vite';

// The app's sources are in app/; the build goes to dist/, which the web server (src/) serves.
// JSX is compiled by Vite's own transformer (automatic runtime): no React plugin is needed for a
// production build, and the app has no dev server of its own (it runs behind src/'s proxy).
export default defineConfig({
  root: 'app',
  base: '/',
  build: { outDir: '../dist', emptyOutDir: true, sourcemap: true },
  oxc: { jsx: { runtime: 'automatic' } },
});
