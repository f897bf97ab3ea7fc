// Parsing and wording for the answer cache and long-term memory (see docs/bridge.md,
// "Answer cache and memory"). Values from the backend are normalised here, like ./normalize.

import { CACHE_MATCH_VALUES, MEMORY_KIND_VALUES } from './bridge.gen';
import { oneOf } from './enum';
import type { CachedFrom, MemoryItem, MemorySettings } from './types';

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** A cached answer's source, or null when the answer was not from the cache. */
export function cachedFrom(v: unknown): CachedFrom | null {
  if (!v || typeof v !== 'object') return null;
  const o = obj(v);
  return {
    session_id: str(o.session_id),
    session_title: str(o.session_title),
    message_id: num(o.message_id),
    question: str(o.question),
    at: str(o.at),
    match: oneOf(CACHE_MATCH_VALUES, o.match, 'meaning'),
    similarity: num(o.similarity),
    saved_usd: num(o.saved_usd),
  };
}

export function memorySettings(v: unknown): MemorySettings {
  const o = obj(v);
  const list = Array.isArray(o.memories) ? o.memories : [];
  return {
    enabled: o.enabled !== false,
    memories: list
      .map((m): MemoryItem => {
        const x = obj(m);
        const kind = oneOf(MEMORY_KIND_VALUES, x.kind, 'context');
        return { id: num(x.id), kind, text: str(x.text), source: str(x.source), created_at: str(x.created_at) };
      })
      .filter((m) => m.id > 0),
  };
}

/** "from “Session title”, 30 Nov, 14:03" for the cached mark. */
export function cachedWhere(c: CachedFrom, now = new Date()): string {
  const at = new Date(c.at);
  let when = '';
  if (!Number.isNaN(at.getTime())) {
    const sameDay = at.toDateString() === now.toDateString();
    const time = at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
    when = sameDay ? `today, ${time}` : `${at.toLocaleDateString(undefined, { day: 'numeric', month: 'short' })}, ${time}`;
  }
  const where = c.session_title ? `“${c.session_title}”` : 'an earlier session';
  return when ? `from ${where}, ${when}` : `from ${where}`;
}

/** The tooltip: the question answered then, how it matched, what it saved. */
export function cachedDetail(c: CachedFrom): string {
  const match =
    c.match === 'meaning'
      ? `Matched by meaning (similarity ${c.similarity.toFixed(3)}) and the same content words.`
      : 'Matched by the same content words (no embedding model).';
  const saved = c.saved_usd > 0 ? ` Saved $${c.saved_usd < 0.01 ? c.saved_usd.toFixed(4) : c.saved_usd.toFixed(2)}.` : '';
  return `Answered earlier for: “${c.question}”. ${match}${saved} No model was asked this time.`;
}
