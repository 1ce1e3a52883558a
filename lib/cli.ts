#!/usr/bin/env node
import { main } from "./cli/main";

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: Error) => {
    process.stderr.write(`calpress: ${err.message}\n`);
    process.exit(1);
  },
);
