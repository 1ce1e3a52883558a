/**
 * Events of the calendar (calendar-api.md §4): the operations a host
 * application calls in-process (the HTTP routes call the same ones), their
 * input types, and the argument tables the routes register.
 */
export {
  createEvent,
  updateEvent,
  trashEvent,
  listEvents,
  getEvent,
  getEventBySlug,
  findEventBySlug,
  eventCaps,
  PlannedImage,
  EVENT_RELATIONS,
  type EventWriteInput,
  type EventListResult,
  type ReadAccess,
  type WriteOptions,
} from "./operations";
export { eventListParams, GEOLOC_RADIUS_KM, ListLookups, type EventListInput, type ListParam } from "./list-query";
export { createArgs, updateFieldArgs, idArg, passwordArg, slugLookupArg } from "./args";
export { WRITE_FIELDS, WRITE_RULES, type WriteField } from "./rules";
