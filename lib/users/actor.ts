import type { CurrentUser } from "./types";

/**
 * The site's own code and files as the maker of a write: fixtures, the
 * command line, a host storing content it wrote itself. The engine keeps
 * HTML such a write stores as written (as for a user with
 * `unfiltered_html`); plain text, URLs, e-mail addresses and slugs are
 * cleaned for it as for everyone. It names no user and holds no other
 * capability: it is not a user, and permission checks never see it.
 */
export class Operator {
  /** A private member makes the type nominal (no user or object literal passes for it); the private constructor leaves OPERATOR the only one. */
  private declare readonly operator: true;
  private constructor() {}
  static readonly instance = new Operator();
}

export const OPERATOR: Operator = Operator.instance;

/**
 * Who a write is made for, as the engine's cleaning (lib/posts/clean.ts)
 * sees it: a user, whose `unfiltered_html` decides whether their HTML is
 * kept; `null`, nobody signed in (an anonymous visitor, or a caller that
 * named no one), cleaned as a user without `unfiltered_html` is, as
 * WordPress does when there is no current user; or `OPERATOR`.
 */
export type Actor = CurrentUser | Operator | null;

export function isOperator(actor: Actor | undefined): actor is Operator {
  return actor instanceof Operator;
}

/** Whether HTML the actor writes is kept as written (`unfiltered_html`, or the operator). */
export function keepsHtml(actor: Actor | undefined): boolean {
  if (actor === undefined || actor === null) return false;
  return isOperator(actor) || actor.can("unfiltered_html");
}

/** The user a write is made for, if it names one. */
export function actorUserId(actor: Actor | undefined): number | undefined {
  return actor === undefined || actor === null || isOperator(actor) ? undefined : actor.id;
}
