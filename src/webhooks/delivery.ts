// One delivery attempt over HTTP: signed afresh, no redirects followed, a timeout, and the
// connection-time address check (DNS rebinding) in the dispatcher's lookup.
import { Agent, request } from 'undici';
import { checkTargetHost, guardedLookup } from './ssrf.ts';
import { signedHeaders } from './signing.ts';

export interface AttemptResult {
  ok: boolean;
  statusCode?: number;
  latencyMs: number;
  error?: string;
}

export class DeliveryClient {
  private readonly agent: Agent;

  constructor(
    private readonly timeoutMs: number,
    private readonly allowPrivate: boolean,
  ) {
    this.agent = new Agent({
      connect: { lookup: guardedLookup(allowPrivate) as never, timeout: timeoutMs },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      keepAliveTimeout: 10_000,
    });
  }

  /** `extraHeaders`: sent beside the signed ones (a replay's marker); they are not signed. */
  async post(url: string, secret: string, eventId: string, eventType: string, body: string, now: Date, extraHeaders: Record<string, string> = {}): Promise<AttemptResult> {
    const started = performance.now();
    // the lookup guard of the agent only sees host names: an IP literal is connected to without a
    // lookup, so check the URL's host first. Per-message webhook_url values reach here unchecked.
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return { ok: false, latencyMs: 0, error: 'invalid URL' };
    }
    const refused = checkTargetHost(target, this.allowPrivate);
    if (refused) return { ok: false, latencyMs: 0, error: `refusing to connect to ${target.host}: URL ${refused}` };
    const headers = { ...extraHeaders, ...signedHeaders({ secret, eventId, eventType, body, now }) };
    try {
      const res = await request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      // drain so the connection can be reused; the receiver's body is not ours to keep
      await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      const latencyMs = Math.round(performance.now() - started);
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      return {
        ok,
        statusCode: res.statusCode,
        latencyMs,
        ...(ok ? {} : { error: res.statusCode >= 300 && res.statusCode < 400 ? `redirect (${res.statusCode}) not followed` : `receiver answered ${res.statusCode}` }),
      };
    } catch (err) {
      const e = err as Error & { code?: string; cause?: { code?: string; message?: string } };
      const name = e.name === 'TimeoutError' || e.name === 'AbortError' ? `timeout after ${this.timeoutMs} ms` : (e.cause?.message ?? e.message);
      return { ok: false, latencyMs: Math.round(performance.now() - started), error: name };
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
