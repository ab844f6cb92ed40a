// The V8 flags the service runs with: `npm start` passes them (package.json), `engage serve
// --processes N` gives them to every process it forks, and the bench starts its servers with them.
//
// A semi-space of 32 MiB (V8's default on 64-bit is 16): a batch of a few thousand messages or events
// is held across a database round trip or two, long enough to outlive two scavenges of a 16 MiB young
// generation, so it was copied into the old generation only to die there and be marked and compacted
// later. Measured on 2 cores (dispatch-throughput, alternating runs): server CPU per message 0.57 and
// 0.61 ms → 0.52 and 0.50 ms, 1,142 and 1,085 → 1,267 and 1,294 messages/s; the peak RSS over 100,000
// messages rose from 598 and 614 MiB to 664 and 679 MiB. README "The write path".
//
// An old generation let grow to twice what a full collection leaves live (--heap-growing-percent=100).
// Unset, V8 lets it grow up to 4× while collections are cheap, and the garbage promoted past the young
// generation piled up: a heap snapshot at the peak of million-rss held about 75 MiB of live objects
// while the old space had grown to 200 to 300 MiB, and the server's RSS peaked at 575 MiB over 100,000
// messages. With the flag the old space stays at about 90 to 110 MiB and that peak was 442 MiB (at 50:
// 374 and 378 MiB, for about a tenth more server CPU per message). Node refuses it in NODE_OPTIONS: it
// goes on the command line. README "The write path".
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32', '--heap-growing-percent=100'];

/**
 * `execArgv` with each service flag added unless it or NODE_OPTIONS names that flag already: the
 * operator's own value stands (a flag on the command line would override NODE_OPTIONS').
 */
export function withServiceFlags(execArgv: readonly string[], nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  const named = (flag: string) => flag.split('=')[0].replaceAll('_', '-');
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/)].map(named));
  return [...execArgv, ...SERVICE_NODE_FLAGS.filter((f) => !given.has(named(f)))];
}
