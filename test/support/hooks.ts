/** Helpers of the hook and webhook tests. */
import type { Change } from "../../lib/hooks";
import type { TestSite } from "./site";

/**
 * Waits until `check` holds (hook listeners and the background deliverer run
 * after the response, on their own turn). Fails after 10 s rather than
 * asserting on how long it took.
 */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Records every change the site's hooks emit. */
export function recordChanges(t: TestSite): { changes: Change[]; stop(): void } {
  const changes: Change[] = [];
  const stop = t.site.hooks.on("*", (change) => {
    changes.push(change);
  });
  return { changes, stop };
}

export async function userId(t: TestSite, login: string): Promise<number> {
  const user = await t.site.engine.users.byLogin(login);
  if (!user) throw new Error(`no user ${login}`);
  return user.id;
}
