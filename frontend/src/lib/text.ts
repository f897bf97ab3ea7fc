// Small text helpers for messages from the backend (reasons, fixes, notes).

export type Segment = { text: string; code: boolean };

/** Splits `like this` spans out of a plain message so commands can be shown as code. */
export function inlineCode(s: string): Segment[] {
  const out: Segment[] = [];
  const re = /`([^`\n]+)`/g;
  let last = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    if (m.index > last) out.push({ text: s.slice(last, m.index), code: false });
    out.push({ text: m[1], code: true });
    last = m.index + m[0].length;
  }
  if (last < s.length) out.push({ text: s.slice(last), code: false });
  return out;
}

/** The message of a thrown value: an Error's message, else the value as text. */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
