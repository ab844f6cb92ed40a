// Push devices of contacts (README "Push devices"): /v1/contacts/:id/devices with an API key or a
// session, and POST /v1/push/devices, where an app registers its own device with the account's
// public tracking key, checked as POST /v1/track checks it (README "Browser tracking": the key, the
// allowed origins, the signed identity). That one lives in a child context of its own, whose parsers
// read JSON sent as text/plain too (a CORS "simple" request, as the tracking SDK sends), at most 64 KiB.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { DEVICE_PLATFORMS } from '../../../commands/contact.ts';
import { findContact } from '../../../projections/contacts.ts';
import { listDevices } from '../../../projections/push-devices.ts';
import { runCommand } from '../../command-handler.ts';
import { DEVICE_READ_MODELS, deviceOut, registerDevice, removeDevice } from '../../contacts/devices.ts';
import { notFound } from '../../errors.ts';
import { resolveOne } from '../../events/contacts.ts';
import { comparePositions } from '../../eventstore/port.ts';
import { isId } from '../../ids.ts';
import { PUSH_TOKEN, PUSH_TOKEN_MESSAGE } from '../../messages/validation.ts';
import { contactRefOf, IdentitySchema } from '../../tracking/identity.ts';
import { TRACK_BODY_LIMIT } from '../../tracking/ingest.ts';
import type { AppDeps } from '../deps.ts';
import { Deleted, found, metadataOf } from '../common.ts';
import { DateTime, Page } from '../openapi.ts';
import { type AnyRoute, defineRoute, registerRoutes } from '../route.ts';
import { admitPublic, KeyQuery, preflightRoute } from '../tracking-key.ts';

export const PUSH_DEVICES_PATH = '/v1/push/devices';

const IdParams = z.object({ id: z.string().max(64) });
const DeviceParams = z.object({ id: z.string().max(64), device_id: z.string().max(64) });

/** What registering a device takes (a token validated as a push message's `to`). */
const device = {
  token: z.string().regex(PUSH_TOKEN, PUSH_TOKEN_MESSAGE).describe("the provider's device token (FCM registration token, APNs device token, web push id)"),
  platform: z.enum(DEVICE_PLATFORMS),
  app_id: z.string().trim().min(1).max(255).optional().describe('your app (bundle id, package name, site): a contact may have devices of several apps'),
};
const DeviceBody = z.strictObject(device);
const PublicDeviceBody = z.strictObject({
  /** the public key; may come as ?key= instead (README "Browser tracking") */
  key: z.string().min(1).max(100).optional(),
  identity: IdentitySchema,
  ...device,
});

const DeviceOut = z
  .object({
    id: z.string().describe('dev_…'),
    contact_id: z.string(),
    token: z.string(),
    platform: z.enum(DEVICE_PLATFORMS),
    app_id: z.string().nullable(),
    created_at: DateTime.describe('its first registration'),
    last_registered_at: DateTime.describe('its latest registration that changed it'),
  })
  .meta({ id: 'PushDevice', description: "A contact's active push device" });

/** The read models a public registration's answer waits for: the contact it may create, and the device. */
const PUBLIC_WAITS_FOR = ['contacts', ...DEVICE_READ_MODELS];

export function deviceRoutes({ engage }: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/v1/contacts/:id/devices',
      auth: 'key_or_login',
      operationId: 'registerContactDevice',
      summary: "Register a push device token for the contact (201; 200 when the contact has it already); the token leaves another contact that has it",
      tags: ['contacts'],
      params: IdParams,
      body: DeviceBody,
      responses: { 201: DeviceOut.describe('the new device'), 200: DeviceOut.describe('the device the contact had with this token (changed when its platform or app_id is)') },
      // registrations of the same token that met on every retry
      errors: [409],
      async handler({ params, body, auth, req, reply }) {
        const { device, created } = await runCommand(engage, metadataOf(req), DEVICE_READ_MODELS, (m) => registerDevice(engage, auth.accountId, params.id, body, m));
        reply.code(created ? 201 : 200);
        return device;
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/contacts/:id/devices',
      auth: 'key_or_login',
      operationId: 'listContactDevices',
      summary: "The contact's active push devices, oldest first (at most 50: one page)",
      tags: ['contacts'],
      params: IdParams,
      responses: { 200: Page(DeviceOut).describe('every active device, in one page') },
      async handler({ params, auth }) {
        found(await findContact(engage.pool, auth.accountId, params.id), 'contact');
        return { data: (await listDevices(engage.pool, auth.accountId, params.id)).map(deviceOut), next_cursor: null };
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/v1/contacts/:id/devices/:device_id',
      auth: 'key_or_login',
      operationId: 'deleteContactDevice',
      summary: 'Remove a push device of the contact',
      tags: ['contacts'],
      params: DeviceParams,
      responses: { 200: Deleted },
      // a write that met another on the same stream on every retry (write conflict)
      errors: [409],
      async handler({ params, auth, req }) {
        if (!isId('device', params.device_id)) throw notFound('device');
        await runCommand(engage, metadataOf(req), DEVICE_READ_MODELS, (m) => removeDevice(engage, auth.accountId, params.id, params.device_id, m));
        return { id: params.device_id, deleted: true };
      },
    }),
  ];
}

function publicRoutes({ engage }: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      url: PUSH_DEVICES_PATH,
      auth: 'none',
      rateGroup: 'public',
      operationId: 'registerPushDevice',
      summary:
        "An app registers its own push device for its user with the public tracking key: the user named as POST /v1/track names a visitor (signed with user_hash when the account requires it); " +
        'JSON or text/plain, at most 64 KiB; the key in the body or as ?key=',
      tags: ['contacts'],
      query: KeyQuery,
      docBody: PublicDeviceBody,
      responses: { 201: z.object({ id: z.string() }).describe('the new device'), 200: z.object({ id: z.string() }).describe('the device the contact had with this token') },
      // 401: an unknown key, or an identity without the user_hash the account requires (or a wrong one);
      // 403: an origin the key does not allow; 404 and 409: the identified contact, as POST /v1/track
      errors: [401, 403, 404, 409],
      async handler({ body, query, req, reply }) {
        const { row, request, metadata } = await admitPublic(engage, req, reply, body, query, PublicDeviceBody);
        const { device, created } = await runCommand(engage, metadata, PUBLIC_WAITS_FOR, async (m) => {
          // the contact found, or created when named by an unknown email or phone, as POST /v1/track finds it
          const contact = await resolveOne(engage, row.account_id, { contact: contactRefOf(request.identity) }, m);
          const registered = await registerDevice(engage, row.account_id, contact.contactId, request, m);
          const [a, b] = [contact.position, registered.position];
          return { ...registered, position: a && b ? (comparePositions(a, b) > 0 ? a : b) : (a ?? b) };
        });
        reply.code(created ? 201 : 200);
        return { id: device.id };
      },
    }),
  ];
}

/** Registers the public device registration in a child context of its own: JSON as application/json or text/plain, at most 64 KiB, and its CORS preflight. */
export function devicePublicRoutes(deps: AppDeps, registry: AnyRoute[]): FastifyPluginAsync {
  return async (child: FastifyInstance) => {
    const json = child.getDefaultJsonParser('error', 'error');
    child.removeAllContentTypeParsers();
    child.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'string', bodyLimit: TRACK_BODY_LIMIT }, json);
    registerRoutes(child, publicRoutes(deps), registry);
    child.route(preflightRoute(deps.engage, PUSH_DEVICES_PATH));
  };
}
