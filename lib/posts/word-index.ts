import type { SearchCaseFolding } from "../db/dialects/types";
import { PackedLists, roomFor } from "./packed-lists";

/**
 * The words of the published posts' title, excerpt and content, in memory,
 * for the published index to answer a search without a statement
 * (lib/posts/published-index.ts `searchIds`).
 *
 * Search matches each word as a case-insensitive substring of the stored
 * text (`LOWER(col) LIKE LOWER('%word%')`, lib/posts/query.ts applySearch).
 * Here a post's text is cut into its runs of ASCII letters and digits,
 * lowered; a search word made only of ASCII letters and digits is a
 * substring of the lowered text exactly when it is a substring of one of
 * those runs (it cannot span a character outside them). So a word's posts
 * are the posting lists of the runs that contain it, found by scanning the
 * distinct runs (a few thousand on a calendar), and the answer is exact:
 * the same posts SQL finds, not candidates.
 *
 * - Case: where the database folds only ASCII case, a character outside
 *   ASCII never matches an ASCII word. Where it folds every character
 *   ("unicode"), the few whose lowercase is ASCII (KELVIN SIGN is `k`,
 *   `İ` is `i̇`) could: a post holding one is `unsure`, and the database
 *   decides for it. Where the database equates more than case (accents),
 *   there is no word index (`Dialect.searchCaseFolding`). A PostgreSQL
 *   database whose ctype lowers ASCII letters to other letters (Turkish
 *   `I`) is not supported here.
 * - Words with any other character (`rock'n'roll`, a quoted phrase, `café`)
 *   are not answered here: the caller asks the database.
 * - Bounded: past MAX_POSTINGS postings it stops (`full`), and the caller
 *   asks the database until the index is loaded again.
 */

/** Title, excerpt, content: the fields search looks in, in this order. */
const SEARCH_FIELDS = 3;
/** The field every reader may match in; the others count as empty in a protected post for an anonymous searcher. */
const TITLE = 0;

/** Postings (post × distinct word × field) before the index gives up: ~8 bytes each (the posting and the post's own list). */
const MAX_POSTINGS = 8_000_000;
/** Words whose matching runs are kept per field (a run list is rescanned only past the runs added since). */
const MAX_KEPT_WORDS = 4096;

const RUN = /[A-Za-z0-9]+/g;
const SEARCH_WORD = /^[A-Za-z0-9]+$/;

/** Whether the index can answer a search word. */
export function isIndexedWord(word: string): boolean {
  return SEARCH_WORD.test(word);
}

let foldsToAscii: RegExp | null = null;
/**
 * Characters outside ASCII whose lowercase holds an ASCII letter or digit
 * (Basic Multilingual Plane; no character beyond it lowers to ASCII).
 */
function foldingToAscii(): RegExp {
  if (foldsToAscii === null) {
    let chars = "";
    for (let cp = 0x80; cp <= 0xffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      if (/[a-z0-9]/.test(String.fromCharCode(cp).toLowerCase())) chars += `\\u${cp.toString(16).padStart(4, "0")}`;
    }
    foldsToAscii = new RegExp(`[${chars}]`);
  }
  return foldsToAscii;
}

/** The distinct runs of one field of every post: run numbers, posting lists by run, each post's runs. */
class FieldRuns {
  readonly numbers = new Map<string, number>();
  readonly runs: string[] = [];
  /** Slots holding each run, unordered; `sizes[run]` of them are live. */
  lists: Int32Array[] = [];
  sizes: number[] = [];
  readonly bySlot = new PackedLists();
  /** Per search word: the runs containing it among the first `upTo` runs. */
  private readonly kept = new Map<string, { runs: number[]; upTo: number }>();

  /** Writes the slot's runs in `text`; returns the change in postings (none when its runs are the same: an excerpt edit leaves the title's and content's lists alone). */
  set(slot: number, text: string): number {
    const seen = new Set<number>();
    for (const m of text.matchAll(RUN)) {
      const run = m[0].toLowerCase();
      let n = this.numbers.get(run);
      if (n === undefined) {
        n = this.runs.length;
        this.numbers.set(run, n);
        this.runs.push(run);
        this.lists.push(new Int32Array(4));
        this.sizes.push(0);
      }
      seen.add(n);
    }
    const numbers = [...seen];
    if (this.bySlot.equals(slot, numbers)) return 0;
    const cleared = this.clear(slot);
    for (const n of numbers) {
      let list = this.lists[n];
      const size = this.sizes[n];
      if (size === list.length) {
        const bigger = new Int32Array(roomFor(size + 1, 4));
        bigger.set(list);
        this.lists[n] = list = bigger;
      }
      list[size] = slot;
      this.sizes[n] = size + 1;
    }
    this.bySlot.set(slot, numbers);
    return numbers.length - cleared;
  }

  /** Takes the slot out of its runs' lists; returns how many postings it had. */
  clear(slot: number): number {
    const { pool } = this.bySlot;
    const from = this.bySlot.start[slot];
    const n = this.bySlot.length[slot];
    for (let i = from; i < from + n; i++) {
      const run = pool[i];
      const list = this.lists[run];
      const last = this.sizes[run] - 1;
      const at = list.subarray(0, last + 1).indexOf(slot);
      if (at < 0) continue;
      list[at] = list[last];
      this.sizes[run] = last;
    }
    this.bySlot.clear(slot);
    return n;
  }

  /** The runs containing `word` (lowered, ASCII letters and digits). */
  runsWith(word: string): number[] {
    let kept = this.kept.get(word);
    if (kept === undefined) {
      kept = { runs: [], upTo: 0 };
      if (this.kept.size >= MAX_KEPT_WORDS) this.kept.delete(this.kept.keys().next().value as string);
      this.kept.set(word, kept);
    }
    // Runs are only ever added: the ones scanned before need no second look.
    for (let n = kept.upTo; n < this.runs.length; n++) if (this.runs[n].includes(word)) kept.runs.push(n);
    kept.upTo = this.runs.length;
    return kept.runs;
  }
}

export interface WordQuery {
  /** Words every match holds (lowered); at least one. */
  include: readonly string[];
  /** Words no match holds (lowered). */
  exclude: readonly string[];
  /** One field must hold every included word (`all-words-one-field`); otherwise each may be in any field. */
  oneField: boolean;
  /** Per slot, 1 where only the title counts (a protected post, for an anonymous searcher); null: every field counts. */
  titleOnly: Uint8Array | null;
}

export class WordIndex {
  private readonly fields: FieldRuns[] = Array.from({ length: SEARCH_FIELDS }, () => new FieldRuns());
  private capacity = 0;
  private postings = 0;
  /** Past MAX_POSTINGS: answers nothing, holds nothing. */
  full = false;
  /** Slots whose text the database may fold into an ASCII word (see above). */
  readonly unsure = new Set<number>();

  constructor(private readonly folding: SearchCaseFolding) {}

  /** Writes the slot's text (title, excerpt, content), replacing what it held. */
  set(slot: number, texts: readonly string[]): void {
    if (this.full) return;
    if (slot >= this.capacity) {
      this.capacity = roomFor(slot + 1);
      for (const f of this.fields) f.bySlot.grow(this.capacity);
    }
    for (let f = 0; f < SEARCH_FIELDS; f++) this.postings += this.fields[f].set(slot, texts[f] ?? "");
    if (this.folding === "unicode" && texts.some((t) => /[^\u0000-\u007f]/.test(t) && foldingToAscii().test(t))) this.unsure.add(slot);
    else this.unsure.delete(slot);
    if (this.postings > MAX_POSTINGS) {
      this.full = true;
      this.fields.length = 0;
      this.unsure.clear();
    }
  }

  clear(slot: number): void {
    if (this.full || slot >= this.capacity) return;
    for (const f of this.fields) this.postings -= f.clear(slot);
    this.unsure.delete(slot);
  }

  /**
   * The slots matching `q` among `slotCount`, in slot order, and the
   * `unsure` slots the database must decide (left out of `slots`); null
   * when full.
   */
  find(q: WordQuery, slotCount: number): { slots: Int32Array; unsure: number[] } | null {
    if (this.full) return null;
    const k = q.include.length;
    // How many included words a slot holds so far: each word raises it only from the count of the words before it.
    const count = new Uint8Array(slotCount);
    const counted = (fields: readonly number[], word: string, from: number): void => {
      for (const f of fields) this.each(f, word, q.titleOnly, (slot) => {
        if (count[slot] === from) count[slot] = from + 1;
      });
    };
    let hit: Uint8Array;
    if (!q.oneField) {
      q.include.forEach((word, i) => counted([0, 1, 2], word, i));
      hit = count;
    } else {
      hit = new Uint8Array(slotCount);
      for (let f = 0; f < SEARCH_FIELDS; f++) {
        if (f > 0) count.fill(0);
        q.include.forEach((word, i) => counted([f], word, i));
        for (let s = 0; s < slotCount; s++) if (count[s] === k) hit[s] = k;
      }
    }
    for (const word of q.exclude) for (let f = 0; f < SEARCH_FIELDS; f++) this.each(f, word, q.titleOnly, (slot) => (hit[slot] = 0));
    for (const slot of this.unsure) if (slot < slotCount) hit[slot] = 0;
    let n = 0;
    for (let s = 0; s < slotCount; s++) if (hit[s] === k) n++;
    const slots = new Int32Array(n);
    n = 0;
    for (let s = 0; s < slotCount; s++) if (hit[s] === k) slots[n++] = s;
    return { slots, unsure: [...this.unsure].filter((s) => s < slotCount) };
  }

  /** Calls `visit` for every slot whose field `f` holds `word` (a slot may come twice), skipping the fields that do not count for it. */
  private each(f: number, word: string, titleOnly: Uint8Array | null, visit: (slot: number) => void): void {
    const field = this.fields[f];
    const hidden = f === TITLE ? null : titleOnly;
    for (const run of field.runsWith(word)) {
      const list = field.lists[run];
      const size = field.sizes[run];
      for (let i = 0; i < size; i++) {
        const slot = list[i];
        if (hidden === null || hidden[slot] === 0) visit(slot);
      }
    }
  }
}
