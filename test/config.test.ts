// Environment → configuration: empty variables count as unset; bad values are refused by name.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';

describe('loadConfig', () => {
  it('treats an empty variable as unset, as shells and compose files produce them', () => {
    const defaults = loadConfig({});
    const config = loadConfig({
      WEBHOOK_ALLOW_PRIVATE: '',
      PORT: '',
      RATE_LIMITS_ENABLED: '',
      LOG_LEVEL: '',
      QUIET_HOURS: '',
      DATABASE_URL: '',
      JWT_SECRET: '',
      PUBLIC_BASE_URL: '',
      EMBEDDED_PG_PORT: '',
    });
    expect(config).toEqual(defaults);
    expect(config.WEBHOOK_ALLOW_PRIVATE).toBe(false);
    expect(config.PORT).toBe(3000);
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.EMBEDDED_PG_PORT).toBeUndefined();
    // only spaces (a trailing blank in a .env line) is empty too, never port 0
    expect(loadConfig({ PORT: ' ', WEBHOOK_ALLOW_PRIVATE: '  ' })).toEqual(defaults);
  });

  it('still reads the values that are set beside empty ones', () => {
    const config = loadConfig({ PORT: '8080', WEBHOOK_ALLOW_PRIVATE: 'true', LOG_LEVEL: '' });
    expect(config.PORT).toBe(8080);
    expect(config.WEBHOOK_ALLOW_PRIVATE).toBe(true);
    expect(config.LOG_LEVEL).toBe('info');
  });

  it('one setting lets every account-aimed connection reach private addresses: OUTBOUND_ALLOW_PRIVATE, or its older name WEBHOOK_ALLOW_PRIVATE', () => {
    expect(loadConfig({})).toMatchObject({ OUTBOUND_ALLOW_PRIVATE: false, WEBHOOK_ALLOW_PRIVATE: false });
    expect(loadConfig({ OUTBOUND_ALLOW_PRIVATE: 'true' })).toMatchObject({ OUTBOUND_ALLOW_PRIVATE: true, WEBHOOK_ALLOW_PRIVATE: true });
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'true' })).toMatchObject({ OUTBOUND_ALLOW_PRIVATE: true, WEBHOOK_ALLOW_PRIVATE: true });
    expect(() => loadConfig({ OUTBOUND_ALLOW_PRIVATE: 'true', WEBHOOK_ALLOW_PRIVATE: 'false' })).toThrow(/OUTBOUND_ALLOW_PRIVATE and WEBHOOK_ALLOW_PRIVATE/);
  });

  it('refuses a non-empty bad value, naming the variable', () => {
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'maybe' })).toThrow(/invalid configuration:[\s\S]*WEBHOOK_ALLOW_PRIVATE/);
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(/PORT/);
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/PORT/);
    expect(() => loadConfig({ JWT_SECRET: 'short' })).toThrow(/JWT_SECRET/);
  });

  it('refuses a bad SMTP_URL or DKIM_KEYS at load, not at the first email', () => {
    expect(() => loadConfig({ SMTP_URL: 'http://mail.example.com' })).toThrow(/SMTP_URL: an SMTP URL/);
    expect(() => loadConfig({ SMTP_URL: 'not a url' })).toThrow(/SMTP_URL/);
    expect(loadConfig({ SMTP_URL: 'smtps://u:p@mail.example.com:465' }).SMTP_URL).toBe('smtps://u:p@mail.example.com:465');
    expect(() => loadConfig({ DKIM_KEYS: '{"example.com": {"selector": "s1"}}' })).toThrow(/DKIM_KEYS: example.com.privateKey/);
    expect(() => loadConfig({ DKIM_KEYS: '{"example.com": {"selector": "s1", "privateKey": "not a key"}}' })).toThrow(/DKIM_KEYS: the privateKey of example.com is not a PEM private key/);
    expect(() => loadConfig({ DKIM_KEYS: '/nonexistent/dkim.json' })).toThrow(/DKIM_KEYS: cannot read the key file/);
    expect(loadConfig({}).DKIM_KEYS.size).toBe(0);
  });

  it('reads WEBHOOK_RETRY_DELAYS into milliseconds at load, and refuses one it cannot read', () => {
    expect(loadConfig({}).WEBHOOK_RETRY_DELAYS).toEqual([30_000, 300_000, 1_800_000]);
    expect(loadConfig({ WEBHOOK_RETRY_DELAYS: ' 1.5s , 200ms,1h ' }).WEBHOOK_RETRY_DELAYS).toEqual([1500, 200, 3_600_000]);
    expect(() => loadConfig({ WEBHOOK_RETRY_DELAYS: '30 seconds' })).toThrow(/invalid configuration:[\s\S]*WEBHOOK_RETRY_DELAYS: cannot read "30 seconds" \(use e\.g\. 30s,5m,30m\)/);
    expect(() => loadConfig({ WEBHOOK_RETRY_DELAYS: '30s,-1s' })).toThrow(/WEBHOOK_RETRY_DELAYS: cannot read "-1s"/);
    expect(() => loadConfig({ WEBHOOK_RETRY_DELAYS: '5x' })).toThrow(/WEBHOOK_RETRY_DELAYS/);
  });

  it('reads QUIET_HOURS into minutes of the day at load, and refuses a malformed window', () => {
    expect(loadConfig({}).QUIET_HOURS).toEqual({ window: '21:00-08:00', startMin: 21 * 60, endMin: 8 * 60 });
    expect(loadConfig({ QUIET_HOURS: '12:30-13:45' }).QUIET_HOURS).toEqual({ window: '12:30-13:45', startMin: 750, endMin: 825 });
    expect(loadConfig({ QUIET_HOURS: 'off' }).QUIET_HOURS).toBeNull();
    expect(() => loadConfig({ QUIET_HOURS: '9pm-8am' })).toThrow(/invalid configuration:[\s\S]*QUIET_HOURS: HH:MM-HH:MM or off/);
    expect(() => loadConfig({ QUIET_HOURS: '24:00-08:00' })).toThrow(/QUIET_HOURS/);
  });

  it('refuses a DEFAULT_TIMEZONE that is not an IANA time zone, at load rather than at the first marketing send', () => {
    expect(loadConfig({ DEFAULT_TIMEZONE: 'Europe/Berlin' }).DEFAULT_TIMEZONE).toBe('Europe/Berlin');
    expect(() => loadConfig({ DEFAULT_TIMEZONE: 'Mars/Olympus_Mons' })).toThrow(/invalid configuration:[\s\S]*DEFAULT_TIMEZONE: not a time zone/);
  });
});
