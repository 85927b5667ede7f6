import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import * as crawl from '@tidemark/crawl';
import * as delivery from '@tidemark/delivery';
import * as gateway from '@tidemark/gateway';
import * as scrape from '@tidemark/scrape';

/** The development key (libs/secret-box: public by design) as an operator might paste it. */
const devKey = createHash('sha256').update('tidemark development secret key').digest().toString('base64');
const ownKey = Buffer.alloc(32, 7).toString('base64');

/** Every service that keeps secrets at rest loads its config through libs/secret-box's check. */
const services = { gateway, scrape, crawl, delivery } as const;
const production = { NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://api.example.com' };

describe('production refuses the development SECRETS_KEY (issue 12, item 7)', () => {
  it.each(Object.keys(services))('%s refuses it, and starts with a key of its own', (name) => {
    const load = services[name as keyof typeof services].loadConfig;
    expect(() => load({ ...production, SECRETS_KEY: devKey })).toThrow(/SECRETS_KEY: is the development key/);
    // In base64url spelling too.
    const urlSpelled = Buffer.from(devKey, 'base64').toString('base64url');
    expect(() => load({ ...production, SECRETS_KEY: urlSpelled })).toThrow(/development key/);
    expect(() => load({ ...production })).toThrow(/SECRETS_KEY: required in production/);
    expect(load({ ...production, SECRETS_KEY: ownKey }).SECRETS_KEY).toBe(ownKey);
    // Outside production the development key is what runs when none is set.
    expect(() => load({ NODE_ENV: 'development', SECRETS_KEY: devKey })).not.toThrow();
  });
});
