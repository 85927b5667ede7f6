import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger } from '@tidemark/telemetry';
import type { z } from 'zod';
import { WRITE_TOOLS, type Access, type ReadOnlyReason } from './access.js';
import { jobTools } from './jobs.tools.js';
import { projectTools } from './projects.tools.js';
import { envelope, failure, ok } from './results.js';
import type { ToolContext, ToolDef } from './tool-context.js';

/** The spec's 17 tools, in its order. */
export const TOOLS: ToolDef<z.ZodRawShape>[] = [...jobTools, ...projectTools] as ToolDef<z.ZodRawShape>[];

export const SERVER_INFO = { name: 'tidemark', version: '1.0.0' };

const INSTRUCTIONS =
  'Tidemark captures web pages as clean markdown and tracks how sites change. Project-free tools: scrape_urls (pages now), extract_url (one page thoroughly, with fields), map_site (URLs from sitemaps), crawl_site then get_job (a site). Standing projects: list_projects, create_project, start_run, get_changes (what changed), list_pages, get_page, search_pages. Results are bounded: indexes of up to 500 pages, excerpts of up to 60,000 characters, bodies of up to 12,000; follow cursors or ask for one page for more.';

/**
 * One MCP server for one connection: its own key (in `ctx.tm`) and access. A read-only
 * connection answers `read_only` in the envelope from the nine tools that reach sites or alter
 * the workspace.
 */
export const createToolServer = (
  ctx: ToolContext,
  access: { mode: Access; reason?: ReadOnlyReason },
  logger: Logger,
): McpServer => {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS, capabilities: { logging: {} } });
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        annotations: {
          title: tool.title,
          readOnlyHint: tool.readOnly,
          openWorldHint: !tool.readOnly && WRITE_TOOLS.has(tool.name),
        },
      },
      async (args: Record<string, unknown>, extra) => {
        if (access.mode === 'read-only' && WRITE_TOOLS.has(tool.name)) {
          return envelope(
            access.reason === 'key'
              ? `${tool.name} reaches sites or changes the workspace, and this connection's key may only read; reconnect with a key that may write`
              : `${tool.name} reaches sites or changes the workspace, and this connection was approved read-only; reconnect with write access`,
            'read_only',
          );
        }
        const started = Date.now();
        try {
          return ok(await tool.run(args as never, ctx, extra));
        } catch (err) {
          const result = failure(err);
          if (result.structuredContent?.code === 'internal') logger.error({ err, tool: tool.name }, 'tool failed');
          return result;
        } finally {
          logger.debug({ tool: tool.name, ms: Date.now() - started }, 'tool call');
        }
      },
    );
  }
  return server;
};
