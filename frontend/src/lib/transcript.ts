// The timed text of a recording (app.Transcript, docs/bridge.md): parsing at the boundary,
// and mapping a cited passage to the time it was said.

import { RECOGNIZER_VALUES, type DocumentKind, type Recognizer } from './bridge.gen';
import { oneOf } from './enum';
import { runeIndex } from './highlight';

export type Segment = {
  /** Seconds from the start of the recording. */
  start: number;
  end: number;
  /** Where its text is: 1-based page, byte offsets in the page's text. */
  page: number;
  from: number;
  to: number;
  text: string;
};

export type Transcript = {
  doc_id: string;
  source: string;
  recognizer: Recognizer;
  advice: string;
  media_kind: MediaKind;
  media_url: string;
  external: boolean;
  duration: number;
  segments: Segment[];
};

/** The kinds of a recording (Go's document.Kind): a kind Go renames fails to compile here. */
export type MediaKind = Extract<DocumentKind, 'audio' | 'video'>;

/** Document kinds whose text is a transcript: the viewer shows them with a player. */
export const TIMED_KINDS: ReadonlySet<string> = new Set<MediaKind>(['audio', 'video']);

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : Number(v) || 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
/** Go's document.Recognizer; '' (none) for anything else. */
const recognizer = (v: unknown): Recognizer => oneOf(RECOGNIZER_VALUES, v, '');

export function parseTranscript(v: unknown): Transcript {
  const o = (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
  const segments: Segment[] = [];
  for (const x of Array.isArray(o.segments) ? o.segments : []) {
    const s = (x && typeof x === 'object' ? x : {}) as Record<string, unknown>;
    const seg = { start: num(s.start), end: num(s.end), page: num(s.page), from: num(s.from), to: num(s.to), text: str(s.text) };
    if (seg.page >= 1 && seg.to >= seg.from && seg.end >= seg.start) segments.push(seg);
  }
  const url = str(o.media_url);
  return {
    doc_id: str(o.doc_id),
    source: str(o.source),
    recognizer: recognizer(o.recognizer),
    advice: str(o.advice),
    media_kind: o.media_kind === 'video' ? 'video' : 'audio',
    // Only our own files route plays in place; anything else is a page on the web.
    media_url: o.external === true ? (/^https:\/\//.test(url) ? url : '') : /^files\/[^/]+$/.test(url) ? url : '',
    external: o.external === true,
    duration: num(o.duration),
    segments,
  };
}

/** Seconds as m:ss, or h:mm:ss from an hour (as ingest.Clock). */
export function clock(sec: number): string {
  const n = Math.max(0, Math.floor(Number.isFinite(sec) ? sec : 0));
  const ss = String(n % 60).padStart(2, '0');
  if (n >= 3600) return `${Math.floor(n / 3600)}:${String(Math.floor(n / 60) % 60).padStart(2, '0')}:${ss}`;
  return `${Math.floor(n / 60)}:${ss}`;
}

/** The segment holding byte offset off of page, or the next one; -1 past the end. */
export function segmentAt(segs: Segment[], page: number, off: number): number {
  return segs.findIndex((s) => s.page > page || (s.page === page && s.to > off));
}

const utf8Len = (s: string): number => new TextEncoder().encode(s).length;

/**
 * The segment in which a point of a cited passage was said. The passage starts at byte
 * offset `start` of `page`; the point is code point offset `at` in the passage's text (a
 * claim's supporting sentence; 0 for the passage's start). A passage crossing a page
 * break has the pages joined by one "\n" (backend/chunk.PageText), and a transcript's
 * page ends with its last segment's text, so page lengths come from the segments.
 */
export function passageSegment(segs: Segment[], page: number, start: number, passage: string, at: number): number {
  let b = utf8Len(passage.slice(0, runeIndex(passage, Math.max(0, at))));
  let p = page;
  let off = start;
  for (;;) {
    const onPage = segs.filter((s) => s.page === p);
    const len = onPage.length ? Math.max(...onPage.map((s) => s.to)) : 0;
    if (!onPage.length || off + b <= len || !segs.some((s) => s.page > p)) break;
    b -= len - off + 1; // the rest of this page and the "\n" joining the next
    p++;
    off = 0;
    if (b < 0) b = 0;
  }
  return segmentAt(segs, p, off + b);
}

/** How recordings are transcribed (app.MediaSettings, docs/bridge.md). */
export type MediaSettings = {
  /** '' picks the best local recogniser. */
  transcriber: Recognizer;
  whisper_model: string;
  whisper_program: string;
  speech_language: string;
  tools: { ffmpeg: string; whisper: string; whisper_model: string; pocketsphinx: string; recognizer: Recognizer };
  /** The recogniser a recording gets now ('' when none is installed). */
  using: Recognizer;
  openai_on: boolean;
  price_per_minute: number;
};

export function parseMediaSettings(v: unknown): MediaSettings {
  const o = (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
  const t = (o.tools && typeof o.tools === 'object' ? o.tools : {}) as Record<string, unknown>;
  return {
    transcriber: recognizer(o.transcriber),
    whisper_model: str(o.whisper_model),
    whisper_program: str(o.whisper_program),
    speech_language: str(o.speech_language),
    tools: { ffmpeg: str(t.ffmpeg), whisper: str(t.whisper), whisper_model: str(t.whisper_model), pocketsphinx: str(t.pocketsphinx), recognizer: recognizer(t.recognizer) },
    using: recognizer(o.using),
    openai_on: o.openai_on === true,
    price_per_minute: num(o.price_per_minute),
  };
}
