// A TCP proxy in front of a real server (Postgres here), so tests can cut connections the way a
// network or a crash does: refuse new connections for a while, drop every open one, or drop one
// connection right after the server answered (a lost acknowledgement).
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** the same connection string, pointed at the proxy */
  rewrite(connectionString: string): string;
  /** while refusing, open connections are dropped and new ones are closed at once */
  refuse(on: boolean): void;
  /**
   * While stalled, open connections are dropped and new ones are accepted but never answered (a
   * network that swallows packets: the client waits for its own timeout); they are closed when the
   * stall ends.
   */
  stall(on: boolean): void;
  /** drops every open connection (both sides) */
  dropAll(): void;
  /**
   * Once: the next server→client chunk for which `match` is true is not forwarded; that connection is
   * dropped instead. Resolves with the chunk that was swallowed.
   */
  swallowNextReply(match: (chunk: Buffer) => boolean): Promise<Buffer>;
  /** connections opened through the proxy so far */
  readonly connections: number;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<{ client: net.Socket; upstream: net.Socket }>();
  let refusing = false;
  let stalling = false;
  const stalled = new Set<net.Socket>();
  let opened = 0;
  let swallow: { match: (chunk: Buffer) => boolean; resolve: (b: Buffer) => void } | undefined;
  const server = net.createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    if (stalling) {
      stalled.add(client);
      client.on('error', () => undefined);
      client.on('close', () => stalled.delete(client));
      return;
    }
    opened++;
    const upstream = net.connect(target.port, target.host);
    const pair = { client, upstream };
    open.add(pair);
    const drop = () => {
      open.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (d) => upstream.write(d));
    upstream.on('data', (d: Buffer) => {
      if (swallow && swallow.match(d)) {
        const s = swallow;
        swallow = undefined;
        drop();
        s.resolve(d);
        return;
      }
      client.write(d);
    });
    client.on('error', drop);
    upstream.on('error', drop);
    client.on('close', drop);
    upstream.on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const dropAll = () => {
    for (const p of [...open]) {
      open.delete(p);
      p.client.destroy();
      p.upstream.destroy();
    }
  };
  return {
    port,
    rewrite(connectionString) {
      const u = new URL(connectionString);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    refuse(on) {
      refusing = on;
      if (on) dropAll();
    },
    stall(on) {
      stalling = on;
      if (on) dropAll();
      else for (const c of [...stalled]) c.destroy();
    },
    dropAll,
    swallowNextReply(match) {
      return new Promise((resolve) => {
        swallow = { match, resolve };
      });
    },
    get connections() {
      return opened;
    },
    async close() {
      dropAll();
      for (const c of [...stalled]) c.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
