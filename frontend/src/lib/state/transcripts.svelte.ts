// Recordings' transcripts, loaded once per document when a citation label or the viewer
// needs one (a citation of a recording shows the time it was said, [m:ss]).

import { SvelteMap } from 'svelte/reactivity';
import * as api from '../api';
import { clock, passageSegment, type Transcript } from '../transcript';

export class TranscriptsState {
  /** docID → transcript; null while loading or when the document has none. */
  #byDoc = new SvelteMap<string, Transcript | null>();

  /** The transcript of docID, starting to load it the first time (null until loaded). */
  get = (docID: string): Transcript | null => {
    if (!this.#byDoc.has(docID)) {
      this.#byDoc.set(docID, null);
      api.transcript(docID).then(
        (t) => this.#byDoc.set(docID, t),
        () => {}, // not a recording, or gone: stays null
      );
    }
    return this.#byDoc.get(docID) ?? null;
  };

  /** "m:ss" for a passage of a recording that starts at byte start of page; "" until known. */
  label = (docID: string, page: number, start: number): string => {
    const t = this.get(docID);
    if (!t) return '';
    const i = passageSegment(t.segments, page, start, '', 0);
    return i >= 0 ? clock(t.segments[i].start) : '';
  };

  /** A document was read again or removed: its transcript is loaded afresh when needed. */
  forget = (docID: string): void => {
    this.#byDoc.delete(docID);
  };

  clear = (): void => {
    this.#byDoc.clear();
  };
}
