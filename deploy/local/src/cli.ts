// `pnpm tidemark`: the command line. The client commands (scrape, crawl, map, projects, changes,
// export) go through libs/sdk to the public API, as a user would; `mcp` is the agent tool server
// over stdio; `workspace create` is the operator's (database and NATS directly, before any key).
import { runCli } from './cli/main.js';

process.exitCode = await runCli(process.argv.slice(2));
