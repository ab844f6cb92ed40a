// What the fastify app and every route group are built from (kept apart from app.ts, which imports
// the route groups, so the routes do not import the app back).
import type { Engage } from '../context.ts';
import type { Authenticator } from './plugins/auth.ts';
import type { CounterStore } from './plugins/rate-limit.ts';

export interface AppDeps {
  engage: Engage;
  authenticator: Authenticator;
  counters?: CounterStore;
}
