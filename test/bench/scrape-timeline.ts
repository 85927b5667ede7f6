// Where the time of a one-URL scrape goes: POST /v1/scrape through the whole fleet (in this
// process), one page at a time, with the steps of its path timed from the moment the call was
// sent. A diagnostic, not a benchmark (`pnpm bench scrape` is the measure): each step is timed
// by wrapping its method, and the medians over the pages are printed in the order they happen.
//
//   node --import tsx test/bench/scrape-timeline.ts            (BENCH_TIMELINE_PAGES, default 100)
// It times the services' own steps, so it reaches into them, as no test may (the import rule).
/* eslint-disable no-restricted-imports */
import { performance } from 'node:perf_hooks';
import { benchSite, startTestWeb } from '@tidemark/testkit';
import globalSetup from '../../libs/testkit/jest-global-setup.mjs';
import { LedgerService } from '../../services/billing/src/ledger/ledger.service.js';
import { LedgerRepository } from '../../services/billing/src/repositories/ledger.repository.js';
import express from 'express';
import { HeaderSecrets } from '../../services/gateway/src/services/header-secrets.js';
import { BatchingCredits } from '../../services/scrape/src/billing/credits-client.js';
import { ScrapeNow } from '../../services/scrape/src/jobs/scrape-now.js';
import { HttpRung } from '../../services/scrape/src/ladder/http-rung.js';
import { LadderService } from '../../services/scrape/src/ladder/ladder.service.js';
import { PageReaderPool } from '../../services/scrape/src/reading/page-reader-pool.js';
import { PageRepository } from '../../services/scrape/src/repositories/page.repository.js';
import { startTestFleet } from '../support/fleet.js';
import { benchWorkspace } from './bench-workspace.js';

const PAGES = Number(process.env.BENCH_TIMELINE_PAGES ?? 100);
const WARM_UP = 20;

let sentAt = 0;
const marks: [string, number][] = [];
const mark = (step: string) => marks.push([step, performance.now() - sentAt]);

/** Marks a method's start and the end of what it returns (a promise's settling). */
const timed = (proto: object, method: string, step: string) => {
  const target = proto as Record<string, (...args: unknown[]) => unknown>;
  const original = target[method]!;
  target[method] = async function (this: unknown, ...args: unknown[]) {
    mark(`${step} starts`);
    try {
      return await original.apply(this, args);
    } finally {
      mark(`${step} ends`);
    }
  };
};
timed(ScrapeNow.prototype, 'run', 'scrape service: the call');
timed(LadderService.prototype, 'scrape', 'ladder');
timed(BatchingCredits.prototype, 'authorize', 'credits held');
timed(HttpRung.prototype, 'fetch', 'fetch');
timed(PageReaderPool.prototype, 'read', 'reading thread');
timed(BatchingCredits.prototype, 'charge', 'charge (billing)');
timed(PageRepository.prototype, 'settleMany', 'row written and counted');
timed(LedgerService.prototype, 'chargeMany', 'billing: the charge');
timed(LedgerRepository.prototype, 'chargeManyOnce', 'billing: the statement');
// The gateway's answer, as express writes it (its last step before the bytes go out).
const json = express.response.json;
express.response.json = function (this: typeof express.response, body: unknown) {
  mark('gateway: the answer written');
  return json.call(this, body);
};
// The gateway's route handler opens by sealing the request's header values: its first step.
const seal = HeaderSecrets.prototype.sealRequest;
HeaderSecrets.prototype.sealRequest = function <T>(this: HeaderSecrets, body: T): T {
  mark('gateway: the route handler');
  return seal.call(this, body) as T;
};

await globalSetup();
const web = await startTestWeb();
web.addSite('a.bench.test', benchSite(PAGES + WARM_UP));
const t = await startTestFleet({ FETCH_HOST_MAP: web.hostMap });
try {
  const ws = await benchWorkspace(t);
  const byStep = new Map<string, number[]>();
  for (let i = 0; i < PAGES + WARM_UP; i++) {
    marks.length = 0;
    sentAt = performance.now();
    const res = await t.call('POST', '/scrape', {
      key: ws.apiKey,
      body: { url: web.url('a.bench.test', `/news/${i}`), formats: 'markdown' },
    });
    mark('answer received');
    if (res.status !== 200 || res.body.data[0].verdict !== 'ok')
      throw new Error(`a scrape did not read ok (${res.status})`);
    if (i < WARM_UP) continue;
    for (const [step, ms] of marks) (byStep.get(step) ?? byStep.set(step, []).get(step)!).push(ms);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`one-URL scrape, ${PAGES} pages of 15-40 KB one at a time: ms since the call was sent (median)`);
  for (const [step, ms] of [...byStep].sort((a, b) => median(a[1]) - median(b[1])))
    console.log(`  ${median(ms).toFixed(2).padStart(6)}  ${step}`);
} finally {
  await t.stop();
  await web.close();
}
