// A crawl worker in a process of its own, for tests that kill one mid-crawl (SIGKILL: no
// graceful stop, no acks, a transaction cut off). Started with the test fleet's env:
//   node --import tsx test/support/crawl-worker.ts   → prints "ready <grpcPort>" when consuming
import * as crawl from '@tidemark/crawl';

const app = await crawl.buildApp(crawl.loadConfig(process.env));
const { grpcPort } = await app.start();
process.stdout.write(`ready ${grpcPort}\n`);
process.on('SIGTERM', () => void app.stop().then(() => process.exit(0)));
