/**
 * The event errors of calendar-api.md §9, as RestErrors, so that operations
 * called in-process and the HTTP routes report the same codes and statuses.
 * Messages are short English sentences; clients key on `code` and status.
 */
import { RestError, type ErrorItem } from "../../routes/errors";
import type { CurrentUser } from "../../users/types";

export function eventNotFound(id: number): RestError {
  // calendar-api.md §4.2: the message names the ID (observed in the original's tests).
  return new RestError("rest-event-not-found", `Event with ID ${id} does not exist.`, 404);
}

/** calpress addition (issue 22): `occurrence_date` names no occurrence of the series. */
export function occurrenceNotFound(day: string): RestError {
  return new RestError("event-occurrence-not-found", `The event has no occurrence on ${day}.`, 404);
}

export function invalidEventId(id: number): RestError {
  return new RestError("rest-invalid-event-id", `The post with ID ${id} is not an event.`, 400);
}

export function eventNoLongerAvailable(): RestError {
  return new RestError("event-no-longer-available", "The requested event is no longer available.", 403);
}

export function eventNotAccessible(): RestError {
  return new RestError("event-not-accessible", "The requested event is not accessible.", 403);
}

export function eventPasswordProtected(): RestError {
  return new RestError("event-password-protected", "The requested event is password protected.", 403);
}

export function eventArchivePageNotFound(): RestError {
  return new RestError("event-archive-page-not-found", "The requested event archive page does not exist.", 404);
}

export function eventIsInTrash(): RestError {
  return new RestError("event-is-in-trash", "The event with the specified ID is in the trash.", 410);
}

export function couldNotDeleteEvent(): RestError {
  return new RestError("could-not-delete-event", "The event could not be deleted.", 500);
}

export function couldNotUpdateEvent(): RestError {
  // 403, not 400: the original answers a refused wp_update_post this way (calendar-api.md §9).
  return new RestError("could-not-update-event", "The event could not be updated.", 403);
}

export function couldNotCreateEvent(): RestError {
  return new RestError("could-not-create-event", "The event could not be created.", 400);
}

/** `rest_forbidden` as the pipeline raises it: 401 for anonymous requests, 403 for users. */
export function forbidden(user: CurrentUser | null): RestError {
  return new RestError("rest_forbidden", "Sorry, you are not allowed to do that.", user ? 403 : 401);
}

/**
 * A `rest_invalid_param` error for one argument, in the exact envelope the
 * REST layer's validation stage produces (rest-conventions.md §4.2), for
 * checks that can only run once stored data is known (an update's
 * resulting end before its start) or that an in-process caller skipped.
 */
export function invalidParam(name: string, message = "Invalid parameter.", detail?: ErrorItem): RestError {
  const details: Record<string, ErrorItem> | [] = detail ? { [name]: detail } : [];
  return new RestError("rest_invalid_param", `Invalid parameter(s): ${name}`, 400, { params: { [name]: message }, details });
}
