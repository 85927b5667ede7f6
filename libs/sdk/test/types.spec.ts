import { describe, expect, it } from '@jest/globals';
import { HttpClient, fillPath, type Body, type Query, type Result } from '../src/index.js';

// Checked by `tsc` (the project's type check): each line below must fail to compile, so a method
// that drifted from the route table's schemas is a build error, not a runtime surprise.
export const typeChecks = (http: HttpClient) => [
  // @ts-expect-error a path with parameters needs them
  () => http.call('get', '/projects/{id}', {}),
  // @ts-expect-error no such route
  () => http.call('get', '/projects/{id}/nothing', { params: { id: 'p' } }),
  // @ts-expect-error PATCH /scrape does not exist
  () => http.call('patch', '/scrape', { body: {} }),
  // @ts-expect-error a project is created from a seed
  () => http.call('post', '/projects', { body: { name: 'no seed' } }),
  // @ts-expect-error schedule is one of manual, daily, weekly
  (): Body<'/projects', 'post'> => ({ seed: 'https://example.com/', schedule: 'hourly' }),
  // @ts-expect-error limit is a number
  (): Query<'/projects', 'get'> => ({ limit: 'ten' }),
  // @ts-expect-error status is one of the envelope's five
  (r: Result<'/crawl/{id}', 'get'>) => r.status === 'finished',
];

describe('paths', () => {
  it('fills path parameters, escaped', () => {
    expect(fillPath('/projects/{id}/runs/{run}', { id: 'p 1', run: 'r/2' })).toBe('/projects/p%201/runs/r%2F2');
    expect(() => fillPath('/projects/{id}', {})).toThrow('id is required');
  });
});
