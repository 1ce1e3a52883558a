/**
 * Response documentation of the event routes for the OpenAPI document
 * (calendar-api.md §7): single records reference `#/components/schemas/Event`
 * (declared by the doc route); the archive answers with an object envelope
 * (§3.1), described here.
 */
import type { JsonObject } from "../../routes/json";
import type { ResponsesDoc } from "../../routes/types";

const EVENT_REF: JsonObject = { $ref: "#/components/schemas/Event" };

/** `GET /events`: `events, rest_url, next_rest_url?, previous_rest_url?, total, total_pages`. */
export const EVENT_LIST_SCHEMA: JsonObject = {
  type: "object",
  properties: {
    events: { type: "array", items: EVENT_REF },
    rest_url: { type: "string", format: "uri", description: "This page: the collection URL with the effective query." },
    next_rest_url: { type: "string", format: "uri", description: "The next page, when it has events." },
    previous_rest_url: { type: "string", format: "uri", description: "The previous page, when there is one with events." },
    total: { type: "integer", description: "Events matching the query, all pages." },
    total_pages: { type: "integer", description: "ceil(total / per_page); 0 when total is 0." },
  },
  required: ["events", "rest_url", "total", "total_pages"],
};

export const LIST_RESPONSES: ResponsesDoc = {
  "200": { description: "The events matching the query (headers X-CAL-Total, X-CAL-TotalPages, X-WP-Total, X-WP-TotalPages, Link).", schema: EVENT_LIST_SCHEMA },
  "400": { description: "One or more arguments are invalid." },
  "404": { description: "The requested page (beyond the first) has no events." },
};

export const CREATE_RESPONSES: ResponsesDoc = {
  "201": { description: "The created event.", schema: "Event" },
  "400": { description: "A required argument is missing or an argument is invalid; nothing was written." },
  "401": { description: "Creating events needs a logged-in user." },
  "403": { description: "The user may not create events." },
};

export const READ_RESPONSES: ResponsesDoc = {
  "200": { description: "The event, with its JSON-LD.", schema: "Event" },
  "400": { description: "The ID is not an event's, or no event has the slug." },
  "403": { description: "The event is trashed, not accessible to the user, or password protected." },
  "404": { description: "No post has the ID." },
};

export const UPDATE_RESPONSES: ResponsesDoc = {
  "200": { description: "The updated event.", schema: "Event" },
  // The item path's `post` documents both answers of the original (calendar-api.md §7).
  "201": { description: "The created event (POST /events).", schema: "Event" },
  "400": { description: "An argument is invalid, or the ID is not an event's; nothing was written." },
  "401": { description: "Updating events needs a logged-in user." },
  "403": { description: "The user may not edit this event, or the update was refused." },
  "404": { description: "No post has the ID." },
};

export const DELETE_RESPONSES: ResponsesDoc = {
  "200": { description: "The event, moved to the trash.", schema: "Event" },
  "400": { description: "The ID is not an event's, or no event has the slug." },
  "401": { description: "Deleting events needs a logged-in user." },
  "403": { description: "The user may not delete this event." },
  "404": { description: "No post has the ID." },
  "410": { description: "The event is already in the trash." },
  "500": { description: "The event could not be deleted." },
};
