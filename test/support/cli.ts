/** The CLI in-process, as `calpress …` runs it, with its output collected. */
import { main, type CliIO } from "../../lib/cli/main";

export async function runCli(argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { out: (l) => out.push(l), err: (l) => err.push(l) };
  const code = await main(argv, io);
  return { code, out, err };
}

export { removeSqliteFile } from "./databases";
