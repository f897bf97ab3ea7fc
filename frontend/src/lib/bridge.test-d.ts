// Type-level check (vitest typecheck): the hand-written types of types.ts name only
// fields the Go types send (bridge.gen.ts, generated from them), and the enumerated
// values and event names are the Go ones. A field renamed or dropped in Go fails here.
import { expectTypeOf, test } from 'vitest';
import type * as gen from './bridge.gen';
import type * as hand from './types';

// types.ts holds the shapes normalize.ts returns, which may add or rename a field (listed
// below as exceptions); every other field it declares must be one the Go side sends.
test('types.ts declares only fields the Go types send', () => {
  expectTypeOf<keyof hand.Status>().toExtend<keyof gen.Status>();
  expectTypeOf<keyof hand.Document>().toExtend<keyof gen.Document>();
  expectTypeOf<keyof hand.Hit>().toExtend<keyof gen.Hit>();
  expectTypeOf<keyof hand.Citation>().toExtend<keyof gen.Passage>();
  expectTypeOf<keyof hand.Claim>().toExtend<keyof gen.Claim>();
  expectTypeOf<keyof hand.ClaimSpan>().toExtend<keyof gen.Span>();
  expectTypeOf<keyof hand.Usage>().toExtend<keyof gen.Usage>();
  // answer:start carries no mode: normalize.ts fills in ''.
  expectTypeOf<Exclude<keyof hand.AnswerStart, 'mode'>>().toExtend<keyof gen.AnswerStart>();
  expectTypeOf<keyof hand.AnswerToken>().toExtend<keyof gen.AnswerToken>();
  expectTypeOf<keyof hand.AnswerDone>().toExtend<keyof gen.AnswerDone>();
  expectTypeOf<keyof hand.AnswerError>().toExtend<keyof gen.AnswerError>();
  expectTypeOf<keyof hand.Session>().toExtend<keyof gen.Session>();
  // A saved message's `cached` becomes `cached_from`, as on answer:done.
  expectTypeOf<Exclude<keyof hand.Message, 'cached_from'>>().toExtend<keyof gen.SessionMessage>();
  expectTypeOf<keyof hand.Meter>().toExtend<keyof gen.Meter>();
  expectTypeOf<keyof hand.Price>().toExtend<keyof gen.Price>();
  expectTypeOf<keyof hand.CloudSettings>().toExtend<keyof gen.CloudSettings>();
  expectTypeOf<keyof hand.Model>().toExtend<keyof gen.Model>();
  expectTypeOf<keyof hand.Suggestion>().toExtend<keyof gen.Suggestion>();
  expectTypeOf<keyof hand.Models>().toExtend<keyof gen.Models>();
  expectTypeOf<keyof hand.PullEvent>().toExtend<keyof gen.PullEvent>();
  expectTypeOf<keyof hand.WatchedFolder>().toExtend<keyof gen.WatchedFolder>();
  expectTypeOf<keyof hand.WatchSynced>().toExtend<keyof gen.WatchSync>();
  expectTypeOf<keyof hand.Latency>().toExtend<keyof gen.Latency>();
  expectTypeOf<keyof hand.StatsPeriod>().toExtend<keyof gen.StatsPeriod>();
  expectTypeOf<keyof hand.Stats>().toExtend<keyof gen.Stats>();
  expectTypeOf<keyof hand.ChunkField>().toExtend<keyof gen.ChunkField>();
  expectTypeOf<keyof hand.ChunkSettings>().toExtend<keyof gen.ChunkSettings>();
  expectTypeOf<keyof hand.LibraryFolder>().toExtend<keyof gen.LibraryFolder>();
  expectTypeOf<keyof hand.CachedFrom>().toExtend<keyof gen.CachedFrom>();
  expectTypeOf<keyof hand.MemoryItem>().toExtend<keyof gen.Memory>();
  expectTypeOf<keyof hand.MemorySettings>().toExtend<keyof gen.MemorySettings>();
  expectTypeOf<keyof hand.AddResult>().toExtend<keyof gen.Queued>();
  expectTypeOf<keyof hand.StudyCard>().toExtend<keyof gen.Card>();
  expectTypeOf<keyof hand.CardSchedule>().toExtend<keyof gen.CardSchedule>();
  expectTypeOf<keyof hand.Deck>().toExtend<keyof gen.Deck>();
  expectTypeOf<keyof hand.MakeResult>().toExtend<keyof gen.MakeResult>();
  expectTypeOf<keyof hand.Question>().toExtend<keyof gen.Question>();
  expectTypeOf<keyof hand.Marking>().toExtend<keyof gen.Marking>();
  expectTypeOf<keyof hand.QuizScore>().toExtend<keyof gen.QuizScore>();
  expectTypeOf<keyof hand.DeckStats>().toExtend<keyof gen.DeckStats>();
  expectTypeOf<keyof hand.ModelResult>().toExtend<keyof gen.ModelResult>();
  expectTypeOf<keyof hand.DayCount>().toExtend<keyof gen.DayCount>();
});

test('types.ts has the Go enumerated values', () => {
  expectTypeOf<hand.Mode>().toEqualTypeOf<gen.StatusMode>();
  expectTypeOf<hand.DocumentEvent['status']>().toEqualTypeOf<gen.DocStatus>();
  expectTypeOf<hand.Message['status']>().toEqualTypeOf<gen.MessageStatus>();
  expectTypeOf<hand.CachedFrom['match']>().toEqualTypeOf<gen.CacheMatch>();
  expectTypeOf<keyof hand.EventMap>().toEqualTypeOf<keyof gen.BridgeEvents>();
});
