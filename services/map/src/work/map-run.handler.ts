import type { WorkHandler } from '@tidemark/bus';
import type { MapJobService } from '../jobs/map-job.service.js';

/** NATS in: `work.map.run`. One map job, start to end (a redelivery starts it over). */
export const mapRunHandler =
  (jobs: MapJobService, maxDeliver: number): WorkHandler<'work.map.run'> =>
  (msg, ctx) =>
    jobs.run(msg.jobId, ctx.deliveryCount >= maxDeliver);
