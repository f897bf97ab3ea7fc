// The question's words in a no-model answer's quoted passages, marked. The backend picks
// each quote as the window of its passage around these words (backend/chat/window.go);
// this is the same rule (stop words, stem), so that the words it chose by are the words
// marked. Keep the two alike: both test the same stem pairs.

const STOP = new Set(
  `a an and are as at be been but by can could did do does for from had has have
he her his how i if in into is it its may might more most no not of on or our she should so some such than that
the their them then there these they this those to was we were what when where which while who why will with
would you your about also any each only other over very just even`.split(/\s+/),
);

/** A light English suffix strip (see Stem in backend/chat/window.go). */
export function stem(word: string): string {
  let w = word.toLowerCase();
  // The plural first, then a verb ending: "evenings" → "evening" → "even".
  let n = [...w].length;
  if (w.endsWith('ies') && n >= 5) w = w.slice(0, -3) + 'y';
  else if (w.endsWith('s') && n >= 4 && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  n = [...w].length;
  if (w.endsWith('ing') && n >= 6) w = w.slice(0, -3);
  else if (w.endsWith('ed') && n >= 5) w = w.slice(0, -2);
  else if (w.endsWith('ly') && n >= 5) w = w.slice(0, -2);
  if (w.length >= 4 && w[w.length - 1] === w[w.length - 2] && !'aeiouls'.includes(w[w.length - 1])) w = w.slice(0, -1);
  if (w.length >= 4 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

const WORD = /[\p{L}\p{N}]+/gu;

/** The stems of a question's content words (three letters or more, no stop words). */
export function questionTerms(question: string): Set<string> {
  const out = new Set<string>();
  for (const m of (question ?? '').toLowerCase().matchAll(WORD)) {
    const w = m[0];
    if ([...w].length >= 3 && !STOP.has(w)) out.add(stem(w));
  }
  return out;
}

const SKIP = new Set(['CODE', 'PRE', 'BUTTON', 'MARK', 'MATH', 'math', 'A']);

/**
 * Wraps the words of `root`'s text that are question terms in <mark class="match">,
 * within elements matching `within` (the quoted passages). Returns how many were marked.
 */
export function markTerms(root: ParentNode & Node, terms: Set<string>, within = 'blockquote'): number {
  if (!terms.size) return 0;
  const doc = root.ownerDocument ?? document;
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode(node) {
      const el = node.parentElement;
      if (!el?.closest(within)) return NodeFilter.FILTER_REJECT;
      for (let p: Element | null = el; p && p !== root; p = p.parentElement) {
        if (SKIP.has(p.tagName) || p.classList.contains('cite-group')) return NodeFilter.FILTER_REJECT;
      }
      return NodeFilter.FILTER_ACCEPT;
    },
  });
  const nodes: Text[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n as Text);
  let made = 0;
  for (const node of nodes) {
    const text = node.data;
    const frag = doc.createDocumentFragment();
    let last = 0;
    for (const m of text.matchAll(WORD)) {
      const w = m[0].toLowerCase();
      if ([...w].length < 3 || STOP.has(w) || !terms.has(stem(w))) continue;
      frag.append(text.slice(last, m.index));
      const mark = doc.createElement('mark');
      mark.className = 'match';
      mark.textContent = m[0];
      frag.append(mark);
      made++;
      last = m.index! + m[0].length;
    }
    if (last === 0) continue;
    frag.append(text.slice(last));
    node.replaceWith(frag);
  }
  return made;
}
