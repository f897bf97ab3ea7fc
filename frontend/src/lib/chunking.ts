// The chunking settings form: labels for any field, input checks, the backend's
// "type.field: reason" errors placed by field, and what differs from the defaults.

import type { ChunkField, DocumentType } from './types';

const KNOWN: Record<string, string> = {
  target: 'Target size',
  min: 'Smallest',
  max: 'Largest',
  overlap: 'Overlap',
};

/** A field's label: known ones by name, others from their JSON name ("child_target" → "Child target"). */
export function fieldLabel(name: string): string {
  if (KNOWN[name]) return KNOWN[name];
  const words = name.split('_').filter(Boolean);
  const last = words[words.length - 1];
  if (words.length > 1 && KNOWN[last]) return [...words.slice(0, -1), KNOWN[last].toLowerCase()].join(' ').replace(/^./, (c) => c.toUpperCase());
  return words.join(' ').replace(/^./, (c) => c.toUpperCase());
}

/** The unit a field is counted in. */
export const fieldUnit = (f: ChunkField): string => (f.integer ? 'characters' : 'of a chunk');

/** Go's document types (DocumentType), each with its label: a type Go adds fails to compile here. */
export const TYPE_LABELS: Record<DocumentType, string> = {
  paper: 'Papers',
  textbook: 'Textbooks',
  documentation: 'Documentation',
  code: 'Code',
  mail: 'Mail',
  general: 'Everything else',
};

export const typeLabel = (t: DocumentType | ''): string => (t === '' ? '' : (TYPE_LABELS[t] ?? t.replace(/^./, (c) => c.toUpperCase())));

/** Checks one typed value; returns the number or a reason. */
export function checkValue(raw: string, f: ChunkField): { value: number } | { error: string } {
  const s = raw.trim();
  if (s === '') return { error: 'Enter a number' };
  const v = Number(s);
  if (!Number.isFinite(v)) return { error: 'Enter a number' };
  if (f.integer && !Number.isInteger(v)) return { error: 'Enter a whole number' };
  if (v < f.min || v > f.max) return { error: `Between ${f.min} and ${f.max}` };
  return { value: v };
}

/**
 * Places the backend's error lines ("paper.min: must be at most the target (1200)") by
 * "type.field" (or "type" alone); lines in no such form go under "".
 */
export function errorsByField(message: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of message.split('\n')) {
    const m = /^([a-z]+(?:\.[a-z_]+)?): (.+)$/.exec(line.trim());
    const key = m ? m[1] : '';
    const text = m ? m[2].replace(/^./, (c) => c.toUpperCase()) : line.trim();
    if (!text) continue;
    out[key] = out[key] ? `${out[key]}; ${text}` : text;
  }
  return out;
}

/** Checks within a profile the backend would refuse too: smallest ≤ target ≤ largest, per family. */
export function crossErrors(p: Record<string, number>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, target] of Object.entries(p)) {
    if (!name.endsWith('target')) continue;
    const prefix = name.slice(0, -'target'.length);
    const lo = p[prefix + 'min'];
    const hi = p[prefix + 'max'];
    if (lo !== undefined && lo > target) out[prefix + 'min'] = `At most the target (${target})`;
    if (hi !== undefined && hi < target) out[prefix + 'max'] = `At least the target (${target})`;
  }
  return out;
}

/** True when a profile differs from its defaults in any field. */
export const differs = (p: Record<string, number> | undefined, d: Record<string, number> | undefined): boolean =>
  !!p && !!d && Object.keys(d).some((k) => p[k] !== d[k]);
