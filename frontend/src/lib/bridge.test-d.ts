// Type-level check (vitest typecheck): every type written out in types.ts that stands for
// a Go type (bridge.gen.ts, generated from Go) declares only fields the Go type sends, each
// with a type the Go type's values fit, nested types included (the types types.ts
// re-exports from bridge.gen.ts are Go's own). The fields normalize.ts (or
// study.ts, recall.ts, api.ts) fills in, converts or renames are named per type, with
// the reason. A field renamed, dropped or retyped in Go fails here; bridge.test.ts checks
// that every type of types.ts is listed here or declared frontend-only.
import { expectTypeOf, test } from 'vitest';
import type * as gen from './bridge.gen';
import type * as media from './transcript';
import type * as hand from './types';
import './api'; // declares window.go.app.App: api.ts's hand-typed methods

/**
 * The fields of H that drift from Go's G: fields G does not send, and shared fields
 * whose Go values do not fit H's type; Filled are the fields a normalizer fills in,
 * converts or adds (never: all checked). `never` when H fits G.
 */
type Drift<G, H, Filled extends keyof H = never> =
  | Exclude<keyof H, keyof G | Filled>
  | { [K in Exclude<keyof H & keyof G, Filled>]-?: [G[K]] extends [H[K]] ? never : K }[Exclude<keyof H & keyof G, Filled>];

/** Compiles only when T is never: an error names the drifting fields. */
// eslint-disable-next-line @typescript-eslint/no-unused-vars
function none<T extends never>(): void {}

test('types.ts declares only fields the Go types send, with types their values fit', () => {
  none<Drift<gen.Status, hand.Status>>();
  // Documents listed are never removed: only library:changed announces 'removed'.
  // A file of no kind Carrel reads has kind '' here (normalize.documentEvent).
  none<Drift<gen.Document, hand.DocumentEvent>>();
  none<Drift<gen.Document, hand.Document, 'status'>>();
  none<Drift<gen.Hit, hand.Hit>>();
  none<Drift<gen.Passage, hand.Citation>>();
  none<Drift<gen.Usage, hand.Usage>>();
  // answer:start carries no mode (normalize.answerStart fills in '').
  none<Drift<gen.AnswerStart, hand.AnswerStart, 'mode'>>();
  // cached_from: see CachedFrom below (recall.cachedFrom).
  none<Drift<gen.AnswerDone, hand.AnswerDone, 'cached_from'>>();
  none<Drift<gen.AnswerError, hand.AnswerError>>();
  none<Drift<gen.Session & { deleted: boolean }, hand.SessionEvent>>();
  // A saved message's `cached` becomes `cached_from`, as on answer:done; its mode stays
  // the answer's own.
  none<Drift<gen.SessionMessage, hand.Message, 'cached_from'>>();
  none<Drift<gen.SessionDetail, hand.SessionDetail, 'messages'>>();
  none<Drift<gen.Meter, hand.Meter>>();
  none<Drift<gen.Model, hand.Model>>();
  none<Drift<gen.Models, hand.Models>>();
  // api.ts fills in the lists Go omits when empty.
  none<Drift<gen.WatchSync, hand.WatchSynced, 'ingested' | 'removed' | 'removed_ids'>>();
  // normalize.statsPeriod reads the total's absent day as ''.
  none<Drift<gen.StatsPeriod, hand.StatsPeriod, 'day'>>();
  none<Drift<gen.Stats, hand.Stats, 'total' | 'days'>>();
  // recall.ts reads an absent similarity (a match by words) as 0.
  none<Drift<gen.CachedFrom, hand.CachedFrom, 'similarity'>>();
  none<Drift<gen.Memory, hand.MemoryItem>>();
  none<Drift<gen.MemorySettings, hand.MemorySettings>>();
  none<Drift<gen.Card, hand.StudyCard>>();
  none<Drift<gen.CardSchedule, hand.CardSchedule>>();
  none<Drift<gen.Deck, hand.Deck>>();
  // study.ts reads an absent model result (cards made without a model) as null.
  none<Drift<gen.MakeResult, hand.MakeResult, 'model' | 'stopped'>>();
  // study.ts reads a short-answer question's absent choices as [].
  none<Drift<gen.Question, hand.Question, 'choices'>>();
  // study.ts reads an absent verdict (no judge asked) as null, an absent judge_error as ''.
  none<Drift<gen.Marking, hand.Marking, 'judge' | 'judge_error'>>();
  // study.ts reads a section's absent overview flag as false.
  none<Drift<gen.SummarySection, hand.SummarySection, 'overview'>>();
  none<Drift<gen.Summary, hand.Summary, 'sections'>>();
  none<Drift<gen.SummaryStart, hand.SummaryStart>>();
  none<Drift<gen.SummaryPart, hand.SummaryPart, 'section'>>();
  none<Drift<gen.SummaryDone, hand.SummaryDone, 'summary'>>();
  // transcript.ts narrows media_kind to the recordings' kinds (audio, video).
  none<Drift<gen.Transcript, media.Transcript, 'media_kind'>>();
  none<Drift<gen.MediaSettings, media.MediaSettings>>();
});

/** A Go parameter's type as JSON may carry it: a slice also as null (nil in Go). */
type Sent<T> = T extends readonly unknown[] ? T | null : T;
type SentParams<P extends unknown[]> = { [I in keyof P]: Sent<P[I]> };
/** api.ts's methods (call() takes their arguments). */
type Wails = NonNullable<NonNullable<NonNullable<Window['go']>['app']>['App']>;
/** The methods whose arguments, as api.ts types them, a Go method's parameters do not all take. */
type ArgDrift = {
  [M in keyof gen.Bridge]-?: M extends keyof Wails
    ? [Parameters<NonNullable<Wails[M]>>] extends [SentParams<Parameters<gen.Bridge[M]>>]
      ? never
      : M
    : M;
}[keyof gen.Bridge];

test("api.ts passes each Go method only arguments its parameters take", () => {
  none<ArgDrift>();
});

test('types.ts has the Go enumerated values', () => {
  expectTypeOf<hand.Mode>().toEqualTypeOf<gen.StatusMode>();
  expectTypeOf<hand.AnswerMode>().toEqualTypeOf<gen.AnswerMode>();
  expectTypeOf<hand.Message['status']>().toEqualTypeOf<gen.MessageStatus>();
  expectTypeOf<hand.Message['mode']>().toEqualTypeOf<gen.AnswerMode | ''>();
  expectTypeOf<hand.Message['provider']>().toEqualTypeOf<gen.ProviderName>();
  expectTypeOf<hand.Session['provider']>().toEqualTypeOf<gen.ProviderName>();
  expectTypeOf<hand.DocumentEvent['kind']>().toEqualTypeOf<gen.DocumentKind | ''>();
  expectTypeOf<hand.DocumentEvent['status']>().toEqualTypeOf<gen.DocStatus>();
  expectTypeOf<hand.Suggestion['role']>().toEqualTypeOf<gen.ModelRole>();
  expectTypeOf<media.Transcript['media_kind']>().toEqualTypeOf<Extract<gen.DocumentKind, 'audio' | 'video'>>();
  expectTypeOf<hand.CachedFrom['match']>().toEqualTypeOf<gen.CacheMatch>();
  expectTypeOf<hand.MemoryItem['kind']>().toEqualTypeOf<gen.MemoryKind>();
  expectTypeOf<hand.StudyCard['kind']>().toEqualTypeOf<gen.CardKind>();
  expectTypeOf<hand.StudyCard['origin']>().toEqualTypeOf<gen.CardOrigin>();
  expectTypeOf<hand.Marking['by']>().toEqualTypeOf<gen.MarkBy>();
  expectTypeOf<media.Transcript['recognizer']>().toEqualTypeOf<gen.Recognizer>();
  expectTypeOf<media.MediaSettings['transcriber']>().toEqualTypeOf<gen.Recognizer>();
  // Maps keyed by a Go enumerated type are keyed by it here too.
  expectTypeOf<hand.MakeResult['by_kind']>().toEqualTypeOf<gen.MakeResult['by_kind']>();
  expectTypeOf<NonNullable<hand.MakeResult['model']>['reasons']>().toEqualTypeOf<Partial<Record<gen.DropReason, number>>>();
  expectTypeOf<hand.CloudSettings['keys']>().toEqualTypeOf<Partial<Record<gen.ProviderName, gen.KeySource>>>();
  expectTypeOf<hand.ChunkSettings['profiles']>().toEqualTypeOf<Partial<Record<gen.DocumentType, Record<string, number>>>>();
  expectTypeOf<Parameters<gen.Bridge['AddMemory']>[0]>().toEqualTypeOf<hand.MemoryKind>();
  expectTypeOf<Parameters<gen.Bridge['ExportDeck']>[1]>().toEqualTypeOf<hand.ExportFormat>();
  expectTypeOf<keyof hand.EventMap>().toEqualTypeOf<keyof gen.BridgeEvents>();
});
