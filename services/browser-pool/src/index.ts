// The public face of the browser-pool service for the local launcher (deploy/local); other
// services reach it only over gRPC (BrowserPoolService.Render, ListExits).
export { buildApp, type BrowserPoolApp, type BrowserPoolOverrides } from './app.js';
export { loadConfig, type Config } from './config.js';
export { RenderError, type RenderFailure } from './render/render-errors.js';
export { WIDGETS, type Widget } from './render/captcha.js';
export { launchChromium, CHROMIUM_ARGS, type LaunchSpec, type LaunchedBrowser } from './pool/launch.js';
