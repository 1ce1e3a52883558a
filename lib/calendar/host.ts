import type { EngineApi } from "../engine-api";
import type { FetchOptions } from "../net/safe-fetch";
import type { RestServer } from "../routes/server";

/** What the calendar plugin registers on: the engine, the route table and the fetch policy. */
export interface CalendarHost {
  engine: EngineApi;
  rest: RestServer;
  /** The policy of the requests made to URLs users give (image URLs); default: public hosts only. */
  fetch?: FetchOptions;
}
