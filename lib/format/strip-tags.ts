/**
 * PHP strip_tags() without an allow-list: a port of php_strip_tags_ex()'s
 * state machine (PHP 8), so that stray `<`, quotes inside tags, comments,
 * `<?...?>` and `<!...>` are handled exactly as WordPress sees them.
 */
export function stripTags(input: string): string {
  const isSpace = (ch: string | undefined): boolean =>
    ch === " " || ch === "\t" || ch === "\n" || ch === "\v" || ch === "\f" || ch === "\r";
  let out = "";
  let state = 0;
  let depth = 0;
  let inQ = "";
  let lc = "";
  let br = 0;
  let isXml = false;
  const at = (i: number): string => (i >= 0 && i < input.length ? input[i] : "");

  for (let p = 0; p < input.length; p++) {
    const c = input[p];
    if (state === 0) {
      if (c === "\0") continue;
      if (c === "<") {
        if (inQ) continue;
        if (isSpace(input[p + 1])) {
          out += c;
          continue;
        }
        lc = "<";
        state = 1;
        continue;
      }
      if (c === ">") {
        if (depth) {
          depth--;
          continue;
        }
        if (inQ) continue;
        out += c;
        continue;
      }
      out += c;
    } else if (state === 1) {
      switch (c) {
        case "<":
          if (inQ) break;
          if (isSpace(input[p + 1])) break;
          depth++;
          break;
        case ">":
          if (depth) {
            depth--;
            break;
          }
          if (inQ) break;
          lc = ">";
          if (isXml && at(p - 1) === "-") break;
          inQ = "";
          state = 0;
          isXml = false;
          break;
        case '"':
        case "'":
          if (p !== 0 && (!inQ || c === inQ)) inQ = inQ ? "" : c;
          break;
        case "!":
          if (at(p - 1) === "<") {
            state = 3;
            lc = c;
          }
          break;
        case "?":
          if (at(p - 1) === "<") {
            br = 0;
            state = 2;
          }
          break;
        default:
          break;
      }
    } else if (state === 2) {
      switch (c) {
        case "(":
          if (lc !== '"' && lc !== "'") {
            lc = "(";
            br++;
          }
          break;
        case ")":
          if (lc !== '"' && lc !== "'") {
            lc = ")";
            br--;
          }
          break;
        case ">":
          if (depth) {
            depth--;
            break;
          }
          if (inQ) break;
          if (!br && lc !== '"' && at(p - 1) === "?") {
            inQ = "";
            state = 0;
          }
          break;
        case '"':
        case "'":
          if (p >= 1 && at(p - 1) !== "\\") {
            if (lc === c) lc = "";
            else if (lc !== "\\") lc = c;
          }
          if (p !== 0 && (!inQ || c === inQ)) inQ = inQ ? "" : c;
          break;
        case "l":
        case "L":
          // `<?xml` is markup, not PHP: back to the tag state.
          if (
            p > 4 &&
            (at(p - 1) === "m" || at(p - 1) === "M") &&
            (at(p - 2) === "x" || at(p - 2) === "X") &&
            at(p - 3) === "?" &&
            at(p - 4) === "<"
          ) {
            state = 1;
            isXml = true;
          }
          break;
        default:
          break;
      }
    } else if (state === 3) {
      switch (c) {
        case ">":
          if (depth) {
            depth--;
            break;
          }
          if (inQ) break;
          inQ = "";
          state = 0;
          break;
        case '"':
        case "'":
          if (p !== 0 && at(p - 1) !== "\\" && (!inQ || c === inQ)) inQ = inQ ? "" : c;
          break;
        case "-":
          if (at(p - 1) === "-" && at(p - 2) === "!") state = 4;
          break;
        case "E":
        case "e":
          // `<!DOCTYPE` is treated like an ordinary tag.
          if (p > 6 && input.slice(p - 6, p).toLowerCase() === "doctyp") state = 1;
          break;
        default:
          break;
      }
    } else {
      if (c === ">" && !inQ && at(p - 1) === "-" && at(p - 2) === "-") {
        inQ = "";
        state = 0;
      }
    }
  }
  return out;
}

/* ------------------------------------------------------------------ */
