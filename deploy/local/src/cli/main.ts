import { changesCommand, changesUsage } from './commands/changes.js';
import { crawlCommand, crawlUsage } from './commands/crawl.js';
import { exportCommand, exportUsage } from './commands/export.js';
import { mapCommand, mapUsage } from './commands/map.js';
import { mcpCommand, mcpUsage } from './commands/mcp.js';
import { projectsCommand, projectsUsage } from './commands/projects.js';
import { scrapeCommand, scrapeUsage } from './commands/scrape.js';
import { workspaceCommand, workspaceUsage } from './commands/workspace.js';
import { EXIT, errorLine, exitCodeOf } from './exit-codes.js';

export const USAGE = `usage: pnpm tidemark COMMAND [--json] [--key KEY] [--api URL]

  ${scrapeUsage}
  ${crawlUsage}
  ${mapUsage}
  ${projectsUsage}
  ${changesUsage}
  ${exportUsage}
  ${mcpUsage}
  ${workspaceUsage}

The key: --key, TIDEMARK_API_KEY, or the admin key \`pnpm start\` saves in .tidemark/first-key.
The API: --api, TIDEMARK_API_URL, or http://127.0.0.1:8080/v1. --json prints JSON for scripts.
Exit codes: 0 ok, 2 usage, 3 not found, 4 unauthorized/forbidden/read_only, 5 invalid request,
6 conflict, 7 plan or credits, 8 rate limited, 9 server error, 10 no answer (network, timeout),
11 the job or run ended without success, 1 a fault of the CLI.`;

const COMMANDS: Record<string, (args: string[]) => Promise<number>> = {
  scrape: scrapeCommand,
  crawl: crawlCommand,
  map: mapCommand,
  projects: projectsCommand,
  changes: changesCommand,
  export: exportCommand,
  mcp: mcpCommand,
  workspace: workspaceCommand,
};

/** Runs one command line; answers the exit code. Errors are one line on stderr. */
export const runCli = async (argv: string[]): Promise<number> => {
  const [command, ...args] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  const run = COMMANDS[command];
  if (!run) {
    process.stderr.write(`tidemark: no command "${command}"\n${USAGE}\n`);
    return EXIT.usage;
  }
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  try {
    return await run(args);
  } catch (err) {
    process.stderr.write(`${errorLine(err)}\n`);
    const code = exitCodeOf(err);
    if (code === EXIT.internal && process.env.TIDEMARK_DEBUG) process.stderr.write(`${(err as Error).stack}\n`);
    return code;
  }
};
