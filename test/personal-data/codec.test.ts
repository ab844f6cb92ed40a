// The sealing codec on its own: what a seal hides, that it opens under its key only, and that the
// pooled nonces never repeat across the pool's refills.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ERASED, openPersonalData, sealPersonalData } from '../../src/personal-data/codec.ts';

const PATHS = ['to', 'message', 'headers'];

describe('sealPersonalData / openPersonalData', () => {
  it('hides the personal fields, and opens them again under the same key only', () => {
    const key = randomBytes(32);
    const data = { id: 'msg_1', account_id: 'acct_1', to: '+14155550123', message: 'hello', headers: { 'X-A': '1' } };
    const sealed = sealPersonalData(data, PATHS, 'dk_1', key);
    expect(sealed).not.toHaveProperty('to');
    expect(JSON.stringify(sealed)).not.toContain('+14155550123');
    expect(openPersonalData(sealed, key)).toEqual({ ...data, personal_data: { key: 'dk_1', erased: false } });
    expect(openPersonalData(sealed, randomBytes(32))).toMatchObject({ to: ERASED, message: ERASED, headers: {}, personal_data: { erased: true } });
    expect(openPersonalData(sealed, null)).toMatchObject({ to: ERASED, personal_data: { erased: true } });
  });

  it('seals and opens fields inside nested objects, leaving the rest of them and the caller\'s object as they were', () => {
    const key = randomBytes(32);
    const paths = ['fields.email', 'fields.phone', 'fields.first_name', 'custom_fields'];
    const data = { id: 'ct_1', account_id: 'acct_1', fields: { email: 'ada@example.com', first_name: 'Ada', country: 'GB', tags: ['vip'] }, custom_fields: { plan: 'pro' }, created_at: 't' };
    const before = JSON.stringify(data);
    const sealed = sealPersonalData(data, paths, 'dk_1', key);
    expect(JSON.stringify(data)).toBe(before);
    expect(sealed.fields).toEqual({ country: 'GB', tags: ['vip'] });
    expect(sealed).not.toHaveProperty('custom_fields');
    expect((sealed.personal_data as { fields: object }).fields).toEqual({ 'fields.email': 'string', 'fields.first_name': 'string', custom_fields: 'object' });
    const opened = openPersonalData(JSON.parse(JSON.stringify(sealed)), key);
    expect(opened).toEqual({ ...data, personal_data: { key: 'dk_1', erased: false } });
    // the envelope keeps its place among the keys; the opened values come after the rest
    expect(Object.keys(opened)).toEqual(['id', 'account_id', 'fields', 'created_at', 'personal_data', 'custom_fields']);
    expect(Object.keys(opened.fields as object)).toEqual(['country', 'tags', 'email', 'first_name']);
    expect(openPersonalData(sealed, null)).toEqual({ ...data, fields: { ...data.fields, email: ERASED, first_name: ERASED }, custom_fields: {}, personal_data: { key: 'dk_1', erased: true } });
  });

  it('uses a fresh nonce for every seal, across refills of the nonce pool', () => {
    const key = randomBytes(32);
    const nonces = new Set<string>();
    const n = 3_000; // the pool holds 1,024 nonces: this crosses two refills
    for (let i = 0; i < n; i++) {
      const sealed = sealPersonalData({ account_id: 'acct_1', to: 'same@example.com', message: 'same' }, PATHS, 'dk_1', key);
      const blob = Buffer.from((sealed.personal_data as { sealed: string }).sealed, 'base64');
      nonces.add(blob.subarray(0, 12).toString('hex'));
      // and each still opens
      if (i % 500 === 0) expect(openPersonalData(sealed, key)).toMatchObject({ to: 'same@example.com' });
    }
    expect(nonces.size).toBe(n);
  });
});
