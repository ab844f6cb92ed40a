// A real DNS server on loopback (dns2, UDP and TCP) that tests load with records: what the
// service's resolver asks through DNS_SERVERS. Long TXT values are split into 255-octet strings
// as real zones publish DKIM keys; a name can be made to fail (SERVFAIL) to test lookups that error.
import dns2 from 'dns2';

const { Packet } = dns2;
// RFC 1035 §4.1.1 response codes (dns2's typings leave Packet.RCODE out)
const RCODE = { SERVFAIL: 2, NXDOMAIN: 3 } as const;
// an answer as dns2 encodes it (its typings want a class instance)
type Answer = Parameters<ReturnType<typeof Packet.createResponseFromRequest>['answers']['push']>[0];

export type RecordType = 'TXT' | 'CNAME' | 'MX';
export interface MxValue {
  exchange: string;
  priority: number;
}

export interface TestDnsServer {
  /** "127.0.0.1:<port>": the DNS_SERVERS value */
  address: string;
  /** replaces the records of one name and type */
  set(name: string, type: 'TXT' | 'CNAME', values: string[]): void;
  set(name: string, type: 'MX', values: MxValue[]): void;
  remove(name: string, type?: RecordType): void;
  /** answers SERVFAIL for this name until removed */
  fail(name: string): void;
  /** how many questions about a name were asked */
  asked(name: string): number;
  close(): Promise<void>;
}

const key = (name: string) => name.toLowerCase().replace(/\.$/, '');
const chunks = (s: string) => (s.length <= 255 ? [s] : (s.match(/[\s\S]{1,255}/g) ?? []));

export async function startDnsServer(): Promise<TestDnsServer> {
  const zone = new Map<string, Map<RecordType, unknown[]>>();
  const failing = new Set<string>();
  const questions = new Map<string, number>();
  const server = dns2.createServer({
    udp: true,
    tcp: true,
    handle(request, send) {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const name = key(question.name);
      questions.set(name, (questions.get(name) ?? 0) + 1);
      if (failing.has(name)) {
        response.header.rcode = RCODE.SERVFAIL;
        return send(response);
      }
      const records = zone.get(name);
      if (!records) {
        response.header.rcode = RCODE.NXDOMAIN;
        return send(response);
      }
      const base = { name: question.name, class: Packet.CLASS.IN, ttl: 60 };
      const cname = records.get('CNAME') as string[] | undefined;
      if (question.type === Packet.TYPE.CNAME || (cname && question.type !== Packet.TYPE.CNAME)) {
        for (const domain of cname ?? []) response.answers.push({ ...base, type: Packet.TYPE.CNAME, domain } as unknown as Answer);
      }
      if (question.type === Packet.TYPE.TXT) {
        for (const value of (records.get('TXT') as string[] | undefined) ?? []) response.answers.push({ ...base, type: Packet.TYPE.TXT, data: chunks(value) } as unknown as Answer);
      }
      if (question.type === Packet.TYPE.MX) {
        for (const mx of (records.get('MX') as MxValue[] | undefined) ?? []) response.answers.push({ ...base, type: Packet.TYPE.MX, exchange: mx.exchange, priority: mx.priority } as unknown as Answer);
      }
      send(response);
    },
  });
  await server.listen({ udp: { port: 0, address: '127.0.0.1' }, tcp: { port: 0, address: '127.0.0.1' } });
  const udp = server.addresses().udp as { port: number };
  return {
    address: `127.0.0.1:${udp.port}`,
    set(name: string, type: RecordType, values: unknown[]) {
      const n = key(name);
      const records = zone.get(n) ?? new Map<RecordType, unknown[]>();
      records.set(type, values);
      zone.set(n, records);
    },
    remove(name, type) {
      const n = key(name);
      failing.delete(n);
      if (type) zone.get(n)?.delete(type);
      else zone.delete(n);
    },
    fail(name) {
      failing.add(key(name));
    },
    asked: (name) => questions.get(key(name)) ?? 0,
    close: () => server.close(),
  };
}
