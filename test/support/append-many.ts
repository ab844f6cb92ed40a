// An engage whose event store's appendMany goes through the test's own function (one that fails,
// holds or counts appends), everything else as the server's: what a writer does when the log is slow
// or lost part-way, without a server of its own.
import type { Engage } from '../../src/context.ts';
import type { EventStore } from '../../src/eventstore/port.ts';

type AppendMany = EventStore['appendMany'];

/** `engage` with its store's appendMany replaced by `around`, which is given the store's own to call. */
export function withAppendMany(engage: Engage, around: (appendMany: AppendMany, batch: Parameters<AppendMany>[0]) => ReturnType<AppendMany>): Engage {
  const store = new Proxy(engage.store, {
    get(target, prop, receiver) {
      if (prop === 'appendMany') return (batch: Parameters<AppendMany>[0]) => around((b) => target.appendMany(b), batch);
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { ...engage, store };
}
