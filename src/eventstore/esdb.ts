// EventStoreDB / KurrentDB adapter (selected by EVENTSTORE_URL=esdb://…). Placeholder until the adapter lands.
import type { EventStore } from './port.ts';
export declare class EsdbEventStore implements EventStore {
  constructor(url: string);
  [k: string]: any;
}
