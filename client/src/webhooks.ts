// Verifying a webhook engage sent (README "Webhooks"): every delivery carries two signatures over the
// raw body, engage's own (X-Service-Signature: hex HMAC-SHA256 keyed with the whole secret string,
// over `<ms timestamp>.<body>`) and Standard Webhooks' (webhook-signature: `v1,<base64>` HMAC-SHA256
// keyed with the base64-decoded bytes after `whsec_`, over `<webhook-id>.<s timestamp>.<body>`).
// Web Crypto only, so it runs wherever the client does; comparisons are the platform's constant-time verify.

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** the endpoint's `whsec_` secret, or the account's webhook secret for per-message deliveries */
  secret: string;
  /** the request's headers (a Headers, or Node's IncomingHttpHeaders) */
  headers: WebhookHeaders;
  /** the request body exactly as received (not parsed and serialized again) */
  body: string | Uint8Array;
  /** how old (or how far ahead) a delivery may be, in seconds (default 300) */
  toleranceSeconds?: number;
  now?: Date;
}

const encoder = new TextEncoder();

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
}

function fromBase64(text: string): Uint8Array | undefined {
  try {
    const binary = atob(text);
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

function fromHex(text: string): Uint8Array | undefined {
  if (!/^(?:[0-9a-f]{2})+$/i.test(text)) return undefined;
  return Uint8Array.from(text.match(/../g)!, (pair) => parseInt(pair, 16));
}

function concat(...parts: (string | Uint8Array)[]): Uint8Array {
  const bytes = parts.map((p) => (typeof p === 'string' ? encoder.encode(p) : p));
  const out = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of bytes) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

async function hmacVerify(key: Uint8Array, signature: Uint8Array, data: Uint8Array): Promise<boolean> {
  const cryptoKey = await globalThis.crypto.subtle.importKey('raw', key as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  return globalThis.crypto.subtle.verify('HMAC', cryptoKey, signature as BufferSource, data as BufferSource);
}

const fresh = (timestampMs: number, now: Date, toleranceSeconds: number) => Number.isFinite(timestampMs) && Math.abs(now.getTime() - timestampMs) <= toleranceSeconds * 1000;

/**
 * True when the delivery is authentic and fresh: by its Standard Webhooks signature when it carries
 * one, else by engage's own. Use the body as received: a body parsed and written again differs.
 */
export async function verifyWebhook(options: VerifyWebhookOptions): Promise<boolean> {
  const { secret, headers, body } = options;
  const now = options.now ?? new Date();
  const tolerance = options.toleranceSeconds ?? 300;
  const id = header(headers, 'webhook-id');
  const standardTimestamp = header(headers, 'webhook-timestamp');
  const standardSignatures = header(headers, 'webhook-signature');
  if (id && standardTimestamp && standardSignatures) {
    if (!/^\d+$/.test(standardTimestamp) || !fresh(Number(standardTimestamp) * 1000, now, tolerance)) return false;
    const key = fromBase64(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
    if (!key) return false;
    const signed = concat(`${id}.${standardTimestamp}.`, body);
    // a space-separated list of `v1,<base64>`: any one of them (several while a secret rotates)
    for (const entry of standardSignatures.split(' ')) {
      const [version, value] = entry.split(',', 2);
      const signature = version === 'v1' && value ? fromBase64(value) : undefined;
      if (signature && (await hmacVerify(key, signature, signed))) return true;
    }
    return false;
  }
  const timestamp = header(headers, 'x-service-timestamp');
  const signature = fromHex(header(headers, 'x-service-signature') ?? '');
  if (!timestamp || !signature || !/^\d+$/.test(timestamp) || !fresh(Number(timestamp), now, tolerance)) return false;
  return hmacVerify(encoder.encode(secret), signature, concat(`${timestamp}.`, body));
}
