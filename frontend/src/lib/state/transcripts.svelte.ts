// Recordings' transcripts, loaded once per document when a citation label or the viewer
// needs one (a citation of a recording shows the time it was said, [m:ss]).

import { SvelteMap } from 'svelte/reactivity';
import * as api from '../api';
import { clock, passageSegment, type Transcript } from '../transcript';

export class TranscriptsState {
  /** docID → transcript, once loaded. */
  #byDoc = new SvelteMap<string, Transcript | null>();

  /** Documents whose transcript is being asked for: plain, so a template may add to it. */
  #asked = new Set<string>();

  /**
   * The transcript of docID, starting to load it the first time (null until loaded).
   * Called from templates and deriveds (a citation's label), where writing state is
   * refused (state_unsafe_mutation): only the answer, arriving later, is written.
   */
  get = (docID: string): Transcript | null => {
    if (!this.#asked.has(docID)) {
      this.#asked.add(docID);
      api.transcript(docID).then(
        (t) => this.#byDoc.set(docID, t),
        () => this.#asked.delete(docID), // not a recording yet (still being read), or gone: asked again next time
      );
    }
    return this.#byDoc.get(docID) ?? null;
  };

  /**
   * "m:ss" for a point of a passage of a recording: the passage starts at byte start of
   * page, the point is code point `at` of its text (a claim's supporting sentence; 0 for
   * the passage's start). "" until the transcript is known.
   */
  label = (docID: string, page: number, start: number, passage = '', at = 0): string => {
    const t = this.get(docID);
    if (!t) return '';
    const i = passageSegment(t.segments, page, start, passage, at);
    return i >= 0 ? clock(t.segments[i].start) : '';
  };

  /** A document was read again or removed: its transcript is loaded afresh when needed. */
  forget = (docID: string): void => {
    this.#asked.delete(docID);
    this.#byDoc.delete(docID);
  };

  clear = (): void => {
    this.#asked.clear();
    this.#byDoc.clear();
  };
}
