// The key of a Twilio integration's callbacks (README "Provider callbacks"): Twilio signs what it
// sends about an account's messages and calls with that account's own auth token, and the callback
// URL names the integration (`?integration=<id>`). The token is read from the live integration,
// unsealed, and remembered for as long as dispatch remembers an account's integrations, so a removed
// integration's callbacks stop verifying within that time.
import type pg from 'pg';
import { TWILIO_PROVIDERS } from '../../commands/integration.ts';
import { liveIntegration } from '../../projections/integrations.ts';
import type { Clock } from '../clock.ts';
import { isId } from '../ids.ts';
import { unseal } from '../seal.ts';
import { TtlCache } from '../ttl-cache.ts';
import { INTEGRATIONS_TTL_MS } from './providers.ts';

export interface TwilioCallbackKey {
  integrationId: string;
  accountId: string;
  /** twilio, twilio_voice or twilio_rcs */
  provider: string;
  authToken: string;
}

const isTwilio = (provider: string) => (TWILIO_PROVIDERS as readonly string[]).includes(provider);

export class TwilioCallbackKeys {
  private readonly keys: TtlCache<TwilioCallbackKey>;

  constructor(
    private readonly pool: pg.Pool,
    clock: Clock,
  ) {
    this.keys = new TtlCache({ ttlMs: INTEGRATIONS_TTL_MS, max: 10_000, clock });
  }

  /** The key of the live Twilio integration `id`; undefined for any other id (unknown, removed, not Twilio). */
  async keyOf(id: string): Promise<TwilioCallbackKey | undefined> {
    if (!isId('integration', id)) return undefined;
    return this.keys.get(id, async () => {
      const row = await liveIntegration(this.pool, id);
      if (!row || !isTwilio(row.provider)) return undefined;
      const credentials = JSON.parse(await unseal(this.pool, row.credentials_sealed)) as { auth_token: string };
      return { integrationId: row.id, accountId: row.account_id, provider: row.provider, authToken: credentials.auth_token };
    });
  }
}
