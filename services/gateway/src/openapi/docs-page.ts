import type { OpenApiDocument } from './openapi.js';

const esc = (s: unknown) =>
  String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * A readable page of the same document, rendered on the server with no scripts or outside
 * assets (the deployment may have no internet).
 */
export const renderDocsPage = (doc: OpenApiDocument): string => {
  const sections = Object.entries(doc.paths)
    .flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => {
        const o = op as Record<string, unknown> & {
          parameters: Record<string, unknown>[];
          responses: Record<string, { description: string }>;
        };
        const params = o.parameters
          .map(
            (p) =>
              `<li><code>${esc(p.name)}</code> (${esc(p.in)}${p.required ? ', required' : ''})${p.description ? ` — ${esc(p.description)}` : ''}</li>`,
          )
          .join('');
        const body = (o.requestBody as { content: Record<string, { schema: unknown }> } | undefined)?.content[
          'application/json'
        ]?.schema;
        const responses = Object.entries(o.responses)
          .map(([status, r]) => `<li><code>${esc(status)}</code> ${esc(r.description)}</li>`)
          .join('');
        return `<section id="${esc(o.operationId)}"><h3><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> <code>/v1${esc(path)}</code></h3>
<p>${esc(o.summary)} <em>(scope: ${esc(o['x-scope'])})</em></p>${o.description ? `<p>${esc(o.description)}</p>` : ''}
${params ? `<h4>Parameters</h4><ul>${params}</ul>` : ''}
${body ? `<h4>Body</h4><details><summary>JSON schema</summary><pre>${esc(JSON.stringify(body, null, 2))}</pre></details>` : ''}
<h4>Responses</h4><ul>${responses}</ul></section>`;
      }),
    )
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(doc.info.title)} ${esc(doc.info.version)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
section{border-top:1px solid #ddd;padding:.5rem 0}.m{font:bold 12px monospace;padding:2px 6px;border-radius:3px;color:#fff;background:#555}
.get{background:#2b7}.post{background:#27b}.patch{background:#b72}.delete{background:#b33}pre{background:#f6f6f6;padding:.5rem;overflow:auto}</style></head>
<body><h1>${esc(doc.info.title)} <small>${esc(doc.info.version)}</small></h1><p>${esc(doc.info.description)}</p>
<p>Authenticate with <code>Authorization: Bearer service_…</code>. Machine-readable: <a href="/v1/docs/openapi.json">openapi.json</a> (OpenAPI 3.1).</p>
${sections}</body></html>`;
};
