// Finds a cited passage in a page's text so the viewer can highlight it.
//
// The passage comes from our extractor, the page text from pdf.js's text layer: the two
// differ in whitespace, line breaks, hyphenation at line ends, ligatures and quotes. Both
// are reduced to a "key" (no whitespace, no hyphens, case-folded, NFKC, plain quotes),
// keeping for every key character its position in the original item strings. The
// longest common run of the two keys is found with a suffix automaton (linear time),
// then, best effort, further long runs left and right of it (a passage may be
// interrupted by a running header, a footnote, or continue on the next page).

/** [start, end) in items[item]; `strong` when it is part of the focus (the supporting sentence). */
export type Range = { item: number; start: number; end: number; strong?: boolean };

export type PassageMatch = {
  ranges: Range[];
  /** Matched key characters, and how many the passage has: a quality measure. */
  matched: number;
  passageLength: number;
};

type Key = { chars: string[]; item: Int32Array; offset: Int32Array };

const SKIP = /[\s\u00AD\u200B-\u200D\u2060\uFEFF\-\u2010\u2011\u2012\u2013\u2014]/u;
const QUOTES: Record<string, string> = {
  '\u2018': "'", '\u2019': "'", '\u201A': "'", '\u201B': "'", '\u2032': "'",
  '\u201C': '"', '\u201D': '"', '\u201E': '"', '\u201F': '"', '\u2033': '"',
};

/** Reduces strings to comparable characters, remembering where each came from. */
export function keyOf(items: string[]): Key {
  const chars: string[] = [];
  const item: number[] = [];
  const offset: number[] = [];
  items.forEach((s, i) => {
    let k = 0;
    for (const ch of s) {
      const at = k;
      k += ch.length;
      if (SKIP.test(ch)) continue;
      const norm = (QUOTES[ch] ?? ch).normalize('NFKC').toLowerCase();
      for (const c of norm) {
        if (SKIP.test(c)) continue;
        chars.push(c);
        item.push(i);
        offset.push(at);
      }
    }
  });
  return { chars, item: Int32Array.from(item), offset: Int32Array.from(offset) };
}

/**
 * Suffix automaton of a (short) string, the passage: scanning any text through it
 * yields the longest run the two have in common, in time linear in the text.
 */
class SuffixAutomaton {
  private next: Map<string, number>[] = [new Map()];
  private link: number[] = [-1];
  private len: number[] = [0];
  private firstEnd: number[] = [-1];

  constructor(s: string[]) {
    let last = 0;
    s.forEach((c, i) => {
      const cur = this.add(this.len[last] + 1, i);
      let p = last;
      while (p !== -1 && !this.next[p].has(c)) {
        this.next[p].set(c, cur);
        p = this.link[p];
      }
      if (p === -1) {
        this.link[cur] = 0;
      } else {
        const q = this.next[p].get(c)!;
        if (this.len[p] + 1 === this.len[q]) {
          this.link[cur] = q;
        } else {
          const clone = this.add(this.len[p] + 1, this.firstEnd[q]);
          this.next[clone] = new Map(this.next[q]);
          this.link[clone] = this.link[q];
          while (p !== -1 && this.next[p].get(c) === q) {
            this.next[p].set(c, clone);
            p = this.link[p];
          }
          this.link[q] = clone;
          this.link[cur] = clone;
        }
      }
      last = cur;
    });
  }

  private add(len: number, end: number): number {
    this.next.push(new Map());
    this.link.push(-1);
    this.len.push(len);
    this.firstEnd.push(end);
    return this.len.length - 1;
  }

  /** Longest common run of text[from, to) and the automaton's string: where it ends in both. */
  longest(text: string[], from: number, to: number): { length: number; textEnd: number; ownEnd: number } {
    let v = 0;
    let l = 0;
    let best = { length: 0, textEnd: -1, ownEnd: -1 };
    for (let i = from; i < to; i++) {
      const c = text[i];
      while (v !== 0 && !this.next[v].has(c)) {
        v = this.link[v];
        l = this.len[v];
      }
      const nv = this.next[v].get(c);
      if (nv !== undefined) {
        v = nv;
        l++;
      } else {
        v = 0;
        l = 0;
      }
      if (l > best.length) best = { length: l, textEnd: i, ownEnd: this.firstEnd[v] };
    }
    return best;
  }
}

export type MatchOptions = {
  /** The longest run must be at least this long (key characters), or the passage if shorter. */
  minRun?: number;
  /** Further runs beside the longest must be at least this long. */
  minExtraRun?: number;
  /**
   * Part of the passage to mark `strong`: character (code point) offsets in `passage`,
   * as claim spans give them (backend/chat/cite.go Span).
   */
  focus?: { start: number; end: number } | null;
};

/** UTF-16 index of the code point at `runes` in s (s.length when past the end). */
export function runeIndex(s: string, runes: number): number {
  let i = 0;
  for (let r = 0; r < runes && i < s.length; r++) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
  }
  return i;
}

/**
 * Locates `passage` in the text items of a page (pdf.js `textContentItemsStr`, or a
 * single string for a text document). Returns the ranges to highlight, or null when
 * nothing long enough matches. Linear in the page's length: fine for whole text files.
 */
export function findPassage(items: string[], passage: string, opts: MatchOptions = {}): PassageMatch | null {
  const page = keyOf(items);
  const patKey = keyOf([passage]);
  const pat = patKey.chars;
  if (pat.length === 0 || page.chars.length === 0) return null;
  const minRun = Math.min(opts.minRun ?? 24, pat.length);
  const minExtra = Math.max(opts.minExtraRun ?? 40, minRun);

  const spans: [number, number, number][] = []; // [start, end) in the page key, start in the passage key
  let matched = 0;

  // The longest run of passage[from, to) inside page[tFrom, tTo); then, recursively,
  // runs of what is left of the passage on either side, in the page on the same side.
  const search = (from: number, to: number, tFrom: number, tTo: number, min: number, depth: number) => {
    if (to - from < min || tTo - tFrom < min || depth > 8) return;
    const r = new SuffixAutomaton(pat.slice(from, to)).longest(page.chars, tFrom, tTo);
    if (r.length < min) return;
    const tStart = r.textEnd - r.length + 1;
    const pStart = from + r.ownEnd - r.length + 1;
    spans.push([tStart, r.textEnd + 1, pStart]);
    matched += r.length;
    search(from, pStart, tFrom, tStart, minExtra, depth + 1);
    search(from + r.ownEnd + 1, to, r.textEnd + 1, tTo, minExtra, depth + 1);
  };
  search(0, pat.length, 0, page.chars.length, minRun, 0);
  if (spans.length === 0) return null;

  spans.sort((a, b) => a[0] - b[0]);
  let strong: [number, number] | null = null; // [from, to) in the passage key
  if (opts.focus && opts.focus.end > opts.focus.start) {
    const u0 = runeIndex(passage, opts.focus.start);
    const u1 = runeIndex(passage, opts.focus.end);
    let from = -1;
    let to = -1;
    for (let k = 0; k < pat.length; k++) {
      const o = patKey.offset[k];
      if (o >= u0 && o < u1) {
        if (from < 0) from = k;
        to = k + 1;
      }
    }
    if (from >= 0) strong = [from, to];
  }
  return { ranges: toRanges(items, page, spans, strong), matched, passageLength: pat.length };
}

/** Converts key spans into per-item [start, end) ranges in the original strings. */
function toRanges(items: string[], key: Key, spans: [number, number, number][], strong: [number, number] | null): Range[] {
  const out: Range[] = [];
  for (const [s, e, p] of spans) {
    for (let k = s; k < e; k++) {
      const it = key.item[k];
      const off = key.offset[k];
      const ch = items[it].codePointAt(off)!;
      const end = off + (ch > 0xffff ? 2 : 1);
      const pk = p + (k - s);
      const isStrong = !!strong && pk >= strong[0] && pk < strong[1];
      const prev = out[out.length - 1];
      if (prev && prev.item === it) {
        if (off < prev.end) continue; // a ligature expanded into several key characters
        // Extend over skipped characters (spaces, hyphens) inside the same item.
        if (spanAllSkipped(items[it], prev.end, off)) {
          if (!!prev.strong === isStrong) {
            prev.end = end;
            continue;
          }
          // The gap between a light and a strong part stays light.
          if (prev.strong) {
            out.push({ item: it, start: prev.end, end, strong: isStrong });
            continue;
          }
          prev.end = off;
        }
      }
      out.push(strong ? { item: it, start: off, end, strong: isStrong } : { item: it, start: off, end });
    }
  }
  return out;
}

function spanAllSkipped(s: string, from: number, to: number): boolean {
  for (const ch of s.slice(from, to)) if (!SKIP.test(ch)) return false;
  return true;
}

/** Splits one string into segments, marking those inside `ranges` (all for one item). */
export type Segment = { text: string; hit: boolean; strong?: boolean };

export function splitByRanges(text: string, ranges: { start: number; end: number; strong?: boolean }[]): Segment[] {
  const out: Segment[] = [];
  let at = 0;
  for (const r of [...ranges].sort((a, b) => a.start - b.start)) {
    if (r.start > at) out.push({ text: text.slice(at, r.start), hit: false });
    const s = Math.max(r.start, at);
    if (r.end > s) out.push(r.strong ? { text: text.slice(s, r.end), hit: true, strong: true } : { text: text.slice(s, r.end), hit: true });
    at = Math.max(at, r.end);
  }
  if (at < text.length) out.push({ text: text.slice(at), hit: false });
  return out;
}
