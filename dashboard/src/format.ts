// How the dashboard writes times, numbers, money and channels.
import type { components } from './api.ts';

export type Channel = components['schemas']['Message']['channel'];

/** How a channel is named on the pages. */
export const CHANNEL_NAMES: Record<Channel, string> = { sms: 'SMS', rcs: 'RCS', whatsapp: 'WhatsApp', voice: 'Voice', email: 'Email', push: 'Push' };

/** Every channel, in the order the pages list them. */
export const CHANNELS = Object.keys(CHANNEL_NAMES) as Channel[];

/** A channel as a select's option. */
export const channelOption = <C extends Channel>(channel: C) => ({ value: channel, label: CHANNEL_NAMES[channel] });
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const number = new Intl.NumberFormat();

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : dateTime.format(t);
}

/**
 * The value of a datetime-local input (the browser's time zone) as the RFC 3339 instant the API takes
 * (README "Timestamps"); undefined for '' or a value the browser cannot read.
 */
export function instantOf(local: string): string | undefined {
  if (!local) return undefined;
  const t = Date.parse(local);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

export const formatNumber = (n: number | null | undefined): string => (n === null || n === undefined ? '—' : number.format(n));

export function formatPercent(ratio: number | null | undefined, digits = 1): string {
  if (ratio === null || ratio === undefined || Number.isNaN(ratio)) return '—';
  return `${(ratio * 100).toFixed(digits)}%`;
}

export function formatMoney(amount: number | string | null | undefined, currency = 'USD'): string {
  if (amount === null || amount === undefined) return '—';
  const n = typeof amount === 'string' ? Number(amount) : amount;
  if (Number.isNaN(n)) return String(amount);
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency, maximumFractionDigits: 4 }).format(n);
  } catch {
    return `${n} ${currency}`;
  }
}
