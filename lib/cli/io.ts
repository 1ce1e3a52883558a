/** Where a command writes: its stdout and stderr lines (tests collect them). */
export interface CliIO {
  out: (line: string) => void;
  err: (line: string) => void;
}
