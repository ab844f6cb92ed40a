// A write that lost its race for a stream on every retry is the client's to send again, not a bug:
// the error handler answers 409 {error:"conflict", message} (README "API conventions"), never a 500.
// Seen under load: four concurrent POST /v1/events for one contact each appended to its stream, and
// one whose retries all met a newer revision answered 500.
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { WrongExpectedVersionError } from '../../src/eventstore/port.ts';
import { errorsPlugin } from '../../src/http/plugins/errors.ts';

describe('a write conflict that outlived its retries', () => {
  const app = Fastify();
  errorsPlugin(app);
  app.post('/lost-race', async () => {
    throw new WrongExpectedVersionError('contact-ct_1', 4n, 5n);
  });
  afterAll(() => app.close());

  it('answers 409 conflict with the flat error body, naming nothing internal', async () => {
    const res = await app.inject({ method: 'POST', url: '/lost-race' });
    expect(res.statusCode).toBe(409);
    const body = res.json();
    expect(body).toEqual({ error: 'conflict', message: expect.stringMatching(/send it again/) });
    expect(res.body).not.toMatch(/contact-ct_1|expected 4|stack/);
  });
});
