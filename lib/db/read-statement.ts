/** SELECT/EXPLAIN, or a PRAGMA that only reads (no `=`, no argument): statements that change nothing. */
export function isReadStatement(sql: unknown): boolean {
  if (typeof sql !== "string") return false;
  return /^\s*(select|explain)\b/i.test(sql) || /^\s*pragma\s+[a-z_]+\s*;?\s*$/i.test(sql);
}
