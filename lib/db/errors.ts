/** A `<target>` calpress cannot use as given (a bad string, a SQLite file in a missing directory): the caller's mistake. */
export class DbTargetError extends Error {}

/** The database was named correctly but could not be reached or opened (server down, wrong credentials…). */
export class DbConnectError extends Error {}
