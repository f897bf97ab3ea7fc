import { describe, expect, it } from 'vitest';
import { clock, parseTranscript, passageSegment, segmentAt, type Segment } from './transcript';

// Page 1: "first line\nsecond\n\nafter a pause" (as backend/ingest.LayoutTranscript makes it);
// page 2: "next page é line\nlast".
const segs: Segment[] = [
  { start: 0, end: 2, page: 1, from: 0, to: 10, text: 'first line' },
  { start: 2.5, end: 4, page: 1, from: 11, to: 17, text: 'second' },
  { start: 12, end: 13, page: 1, from: 19, to: 32, text: 'after a pause' },
  { start: 65, end: 70, page: 2, from: 0, to: 17, text: 'next page é line' },
  { start: 71, end: 72, page: 2, from: 18, to: 22, text: 'last' },
];

describe('transcript', () => {
  it('formats times as m:ss and h:mm:ss', () => {
    expect(clock(0)).toBe('0:00');
    expect(clock(65.9)).toBe('1:05');
    expect(clock(3725)).toBe('1:02:05');
    expect(clock(NaN)).toBe('0:00');
  });

  it('finds the segment at a page offset, or the next one', () => {
    expect(segmentAt(segs, 1, 0)).toBe(0);
    expect(segmentAt(segs, 1, 10)).toBe(1); // the line break after the first line
    expect(segmentAt(segs, 1, 18)).toBe(2);
    expect(segmentAt(segs, 2, 3)).toBe(3);
    expect(segmentAt(segs, 2, 30)).toBe(-1);
  });

  it('maps a point of a passage to its segment, across a page break', () => {
    const passage = 'second\n\nafter a pause\nnext page é line\nlast';
    expect(passageSegment(segs, 1, 11, passage, 0)).toBe(1);
    expect(passageSegment(segs, 1, 11, passage, passage.indexOf('after'))).toBe(2);
    // Past page 1's end, one "\n" joins page 2 (backend/chunk.PageSeparator).
    expect(passageSegment(segs, 1, 11, passage, passage.indexOf('next'))).toBe(3);
    // "é" is two bytes in the page, one code point in the passage.
    expect(passageSegment(segs, 1, 11, passage, [...passage].indexOf('l', [...passage].indexOf('é')))).toBe(3);
    expect(passageSegment(segs, 1, 11, passage, [...passage].length - 2)).toBe(4);
  });

  it('parses the bridge value, keeping only playable media URLs', () => {
    const t = parseTranscript({ doc_id: 'd', media_kind: 'video', media_url: 'files/d', segments: [segs[0], { page: 0 }, null] });
    expect(t.media_kind).toBe('video');
    expect(t.media_url).toBe('files/d');
    expect(t.segments).toEqual([segs[0]]);
    expect(parseTranscript({ media_url: 'javascript:alert(1)' }).media_url).toBe('');
    expect(parseTranscript({ media_url: 'https://www.youtube.com/watch?v=x', external: true }).media_url).toBe('https://www.youtube.com/watch?v=x');
    expect(parseTranscript(null).segments).toEqual([]);
  });
});
