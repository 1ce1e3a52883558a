/** A recurrence a client sent (or a file brought) that calpress cannot take: answered as a 400 naming the line. */
export class RecurrenceError extends Error {}
