/**
 * Change hooks and outgoing webhooks.
 *
 * Every write of the engine (posts: create, update, trash, delete; terms:
 * create, update, delete) records a change on its transaction
 * (journal.ts). When the transaction commits, the changes go to the
 * in-process bus (`site.hooks`, bus.ts); when it rolls back they are dropped.
 *
 * A site opts in to webhooks by setting the option `webhook_url` (and
 * `webhook_secret` to sign them): `calpress option set webhook_url https://…
 * --db <target>`, or `await site.engine.options.set("webhook_url", "https://…")`.
 * From then on the same transaction also writes one outbox row per change
 * (outbox.ts), and the deliverer (deliverer.ts) POSTs it, retrying with
 * backoff, from whichever serving process claims it first.
 */
export { HookBus } from "./bus";
export type { HookLogger } from "./bus";
export { actingAs, currentActor } from "./actor";
export { WebhookDeliverer } from "./deliverer";
export type { DeliveryReport, WebhookSettings } from "./deliverer";
export { WEBHOOK_SECRET_OPTION, WEBHOOK_URL_OPTION, webhookBody } from "./outbox";
export type { Change, HookListener, HookMap, PostAction, PostChange, TermAction, TermChange, Unsubscribe } from "./types";
