// Senders in tests: a number proven the way its owner proves it (README "Senders and sender rules",
// "Proving a number"): the code is read from the handset of the service's carrier (the sandbox), not
// from anything the account can see.
import { expect } from 'vitest';
import type { TestServer } from './harness.ts';
import { eventually } from './waits.ts';

/** The texts the service's carrier (the sandbox) delivered to a phone number, oldest first. */
export const handset = (server: TestServer, number: string): readonly string[] => server.workers.messaging!.providers.sandbox.handsets.get(number) ?? [];

/** The verification code in a text or call script ("… code is 123456." or, spoken, "1 2 3 4 5 6"). */
export function codeIn(text: string): string | undefined {
  const m = /verification code is ([\d ]+)\./.exec(text);
  return m?.[1]?.replace(/ /g, '');
}

/** Waits for the next verification code to reach `number` after `seen` texts, and returns it. */
export async function nextCodeAt(server: TestServer, number: string, seen: number): Promise<string> {
  const text = await eventually(`a verification code at ${number}`, async () => handset(server, number).slice(seen).find((t) => codeIn(t) !== undefined));
  return codeIn(text)!;
}

/** Asks for a code for the sender and returns it as the phone's owner reads it. */
export async function requestCode(server: TestServer, key: string, senderId: string, number: string, method: 'sms' | 'voice' = 'sms'): Promise<string> {
  const seen = handset(server, number).length;
  const res = await server.call('POST', `/v1/senders/${senderId}/verification`, { key, body: { method } });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return nextCodeAt(server, number, seen);
}

/** Registers a phone-number sender and proves it with the code sent to it; answers the verified sender. */
export async function registerVerifiedSender(server: TestServer, key: string, body: { sender: string; channel: 'sms' | 'voice'; country: string }, method: 'sms' | 'voice' = 'sms') {
  const reg = await server.call('POST', '/v1/senders', { key, body });
  expect(reg.status, JSON.stringify(reg.body)).toBe(201);
  const code = await requestCode(server, key, reg.body.id, body.sender, method);
  const verified = await server.call('POST', `/v1/senders/${reg.body.id}/verify`, { key, body: { code } });
  expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  expect(verified.body.verification.status).toBe('verified');
  return verified.body;
}
