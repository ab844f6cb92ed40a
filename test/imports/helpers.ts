// Uploading CSV files to a test server (multipart or a text/csv body) and waiting for an import to end.
import { expect } from 'vitest';
import type { ApiResponse } from '../support/http.ts';
import type { TestServer } from '../support/harness.ts';
import { eventually } from '../support/waits.ts';

export interface UploadOptions {
  /** how the file is sent (default multipart) */
  as?: 'multipart' | 'csv';
  /** POST /v1/lists/:id/import instead of /v1/contacts/import */
  listId?: string;
  /** option fields (multipart) or query parameters (csv) */
  options?: Record<string, string>;
  fileName?: string;
  contentType?: string;
}

/** Uploads `csv` (text or bytes) as an import; the raw answer. */
export async function upload(server: TestServer, key: string, file: string | Uint8Array, opts: UploadOptions = {}): Promise<ApiResponse> {
  const csv = typeof file === 'string' ? file : new Uint8Array(file);
  const path = opts.listId ? `/v1/lists/${opts.listId}/import` : '/v1/contacts/import';
  let res: Response;
  if ((opts.as ?? 'multipart') === 'multipart') {
    const form = new FormData();
    for (const [k, v] of Object.entries(opts.options ?? {})) form.append(k, v);
    form.append('file', new Blob([csv], { type: opts.contentType ?? 'text/csv' }), opts.fileName ?? 'contacts.csv');
    res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
  } else {
    const query = new URLSearchParams(opts.options ?? {}).toString();
    res = await fetch(`${server.url}${path}${query ? `?${query}` : ''}`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': opts.contentType ?? 'text/csv' },
      body: csv,
    });
  }
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body, headers: res.headers };
}

/** Uploads and expects 202; the accepted import. */
export async function accepted(server: TestServer, key: string, csv: string | Uint8Array, opts: UploadOptions = {}) {
  const res = await upload(server, key, csv, opts);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body;
}

/** Waits until the import has ended (completed or failed) and returns it as GET shows it. */
export async function ended(server: TestServer, key: string, id: string, timeoutMs = 60_000) {
  return eventually(
    `import ${id} to end`,
    async () => {
      const res = await server.call('GET', `/v1/contacts/imports/${id}`, { key });
      expect(res.status).toBe(200);
      return res.body.status === 'completed' || res.body.status === 'failed' ? res.body : undefined;
    },
    timeoutMs,
    25,
  );
}

/** Uploads, waits for the end, expects it completed; the import. */
export async function imported(server: TestServer, key: string, csv: string | Uint8Array, opts: UploadOptions = {}) {
  const imp = await ended(server, key, (await accepted(server, key, csv, opts)).id);
  expect(imp.status, JSON.stringify(imp)).toBe('completed');
  return imp;
}

/** Every contact of the account (GET /v1/contacts, all pages), by email. */
export async function contactsByEmail(server: TestServer, key: string): Promise<Map<string, any>> {
  const out = new Map<string, any>();
  let cursor: string | null = null;
  do {
    const res = await server.call('GET', `/v1/contacts?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key });
    expect(res.status).toBe(200);
    for (const c of res.body.data) out.set(c.email ?? c.phone ?? c.external_id, c);
    cursor = res.body.next_cursor;
  } while (cursor);
  return out;
}
