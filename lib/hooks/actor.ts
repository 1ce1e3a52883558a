import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The user a write is made for, carried through the async calls of one
 * request, so that a change recorded deep in the engine (a trash, a term
 * created with an event) names who made it without every engine call taking
 * a user. The REST pipeline sets it around write handlers; a host calling
 * operations in-process can use `actingAs` too.
 */
const actor = new AsyncLocalStorage<number | null>();

export function actingAs<T>(userId: number | null, work: () => T): T {
  return actor.run(userId, work);
}

export function currentActor(): number | null {
  return actor.getStore() ?? null;
}
