// The event store contract against EventStoreDB / KurrentDB. Needs a server: runs when
// EVENTSTORE_URL is set (e.g. esdb://localhost:2113?tls=false), otherwise registers the suite as
// skipped and says so once.
import { EsdbEventStore } from '../../src/eventstore/esdb.ts';
import { eventStoreContract } from './contract.ts';

const url = process.env.EVENTSTORE_URL;

if (!url) {
  console.log('esdb contract suite skipped: EVENTSTORE_URL is not set (start KurrentDB with docker compose up eventstore)');
}

eventStoreContract('esdb', async () => new EsdbEventStore(url!), { skip: !url });
