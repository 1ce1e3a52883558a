import type { EngineApi } from "../engine-api";
import { RestError } from "../routes/errors";
import type { RestServer } from "../routes/server";
import type { ArgSpec } from "../routes/types";
import type { CurrentUser } from "../users/types";

/** WordPress's core namespace: these routes answer in its shapes (a subset). */
export const CORE_NAMESPACE = "wp/v2";

/** What the core routes register on: the engine and the route table, as a plugin's. */
export interface CoreHost {
  engine: EngineApi;
  rest: RestServer;
}

export type Context = "view" | "edit";

/** WordPress's `context` arg of these controllers (without `embed`, which they would answer as `view`). */
export const contextArg: ArgSpec = {
  type: "string",
  enum: ["view", "edit"],
  default: "view",
  description: "Scope under which the request is made; determines fields present in response.",
};

/** WordPress's `rest_authorization_required_code()`: 401 for an anonymous request, 403 for a user. */
export function refused(user: CurrentUser | null, code: string, message: string): RestError {
  return new RestError(code, message, user ? 403 : 401);
}
