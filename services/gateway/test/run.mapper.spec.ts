import { describe, expect, it } from '@jest/globals';
import { crawlV1, pageV1, runSchema, type RunRecord } from '@tidemark/contracts';
import { InternalError } from '@tidemark/errors';
import { runToRest } from '../src/mappers/run.mapper.js';

const overTheWire = (run: crawlV1.Run) => crawlV1.RunResponse.decode(crawlV1.RunResponse.encode({ run }).finish()).run;

/** A re-crawl that ended: every field set. */
const finished: crawlV1.Run = {
  id: 'run_01JD9A',
  projectId: 'prj_01JD8Z',
  status: pageV1.JobStatus.JOB_STATUS_DONE,
  trigger: crawlV1.RunTrigger.RUN_TRIGGER_RECRAWL,
  progress: { done: 3, total: 3, queued: 0 },
  counts: { ok: 2, blocked: 1 },
  creditsUsed: 7,
  stop: 'exhausted',
  engines: { http: 2, browser: 1 },
  log: [
    { at: '2026-11-22T10:00:00.000Z', message: 'started: 3 listed URLs' },
    { at: '2026-11-22T10:00:09.000Z', message: 'stopped: exhausted' },
  ],
  createdAt: '2026-11-22T09:59:58.000Z',
  startedAt: '2026-11-22T10:00:00.000Z',
  finishedAt: '2026-11-22T10:00:09.000Z',
};

describe('runToRest', () => {
  it('answers the run of the REST API', () => {
    const body = runToRest(overTheWire(finished));
    const expected: RunRecord = {
      id: 'run_01JD9A',
      projectId: 'prj_01JD8Z',
      status: 'done',
      trigger: 'recrawl',
      progress: { done: 3, total: 3, queued: 0 },
      counts: { ok: 2, blocked: 1 },
      creditsUsed: 7,
      stop: 'exhausted',
      engines: { http: 2, browser: 1 },
      log: finished.log,
      createdAt: '2026-11-22T09:59:58.000Z',
      startedAt: '2026-11-22T10:00:00.000Z',
      finishedAt: '2026-11-22T10:00:09.000Z',
    };
    expect(body).toEqual(expected);
    expect(runSchema.parse(body)).toEqual(body);
  });

  it('gives null for what a queued run has not got yet', () => {
    const body = runToRest(
      overTheWire({
        ...finished,
        status: pageV1.JobStatus.JOB_STATUS_QUEUED,
        trigger: crawlV1.RunTrigger.RUN_TRIGGER_MANUAL,
        progress: { done: 0, total: 0, queued: 0 },
        counts: {},
        creditsUsed: 0,
        stop: undefined,
        engines: {},
        log: [],
        startedAt: undefined,
        finishedAt: undefined,
      }),
    );
    expect(body).toMatchObject({ status: 'queued', trigger: 'manual', stop: null, startedAt: null, finishedAt: null });
    expect(body.counts).toEqual({});
  });

  it('refuses an answer without its run or progress instead of guessing one', () => {
    expect(() => runToRest(undefined)).toThrow(InternalError);
    expect(() => runToRest({ ...finished, progress: undefined })).toThrow(InternalError);
  });
});
