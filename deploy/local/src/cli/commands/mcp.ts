export const mcpUsage =
  'mcp   the agent tool server over stdio (TIDEMARK_API_KEY, TIDEMARK_API_URL, TIDEMARK_READ_ONLY=1); run it as pnpm --silent tidemark mcp';

/** `mcp`: the agent tool server over stdio. Stdout carries the protocol only. */
export const mcpCommand = async (): Promise<number> => {
  const { runStdio } = await import('@tidemark/agent');
  await runStdio(process.env);
  return 0;
};
