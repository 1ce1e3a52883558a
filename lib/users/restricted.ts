import type { CapabilityObject, CurrentUser } from "./types";

/**
 * `user` without the primitive capabilities `removed`: the same person
 * (id, login, role) for every other check. An iCalendar import writes as
 * its administrator without `unfiltered_html`, so that what the file holds
 * is sanitised as for a user who may not publish raw HTML.
 *
 * Only checks of a removed capability itself are refused: no meta
 * capability maps onto `unfiltered_html`, which is what this is for.
 */
export function withoutCapabilities(user: CurrentUser, removed: readonly string[]): CurrentUser {
  const gone = new Set(removed);
  return {
    id: user.id,
    login: user.login,
    email: user.email,
    displayName: user.displayName,
    role: user.role,
    can: (capability: string, object?: CapabilityObject): boolean => !gone.has(capability) && user.can(capability, object),
  };
}
