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

  it('refuses a non-empty bad value, naming the variable', () => {
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'maybe' })).toThrow(/invalid configuration:[\s\S]*WEBHOOK_ALLOW_PRIVATE/);
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(/PORT/);
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/PORT/);
    expect(() => loadConfig({ JWT_SECRET: 'short' })).toThrow(/JWT_SECRET/);
  });
});
