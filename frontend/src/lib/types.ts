// Types of the bridge between the frontend and app.App. Where the frontend works with a
// Go type as Go sends it, the type is the generated one (bridge.gen.ts, `go generate
// ./app`), re-exported here under the name the frontend uses. The types written out below
// are the frontend's own shapes, most of them as normalize.ts returns them: fewer fields,
// defaults filled in, renamed or converted. bridge.test-d.ts fails when a field of those
// drifts from what Go sends, bridge.test.ts when one is not checked or an enumeration is
// written out again. JSON field names are exact; do not rename.
import type * as gen from './bridge.gen';
import { BRIDGE_EVENTS } from './bridge.gen';
export type {
  AnswerToken,
  CardKind,
  CardOrigin,
  CardsProgress,
  ChunkField,
  ChunkSettings,
  /** An answer sentence's offsets (start, end) and its spans' offsets are code points. */
  Claim,
  CloudSettings,
  DayCount,
  DeckStats,
  DocumentKind,
  DocumentType,
  ExportFormat,
  Latency,
  LibraryFolder,
  MarkBy,
  MemoryKind,
  /** The cost meter (Meter, `meter:changed`). */
  Meter,
  ModelResult,
  OnlineSettings,
  Price,
  ProviderName,
  PullEvent,
  QuizScore,
  Recognizer,
  Selection,
  Session,
  Suggestion,
  SummaryError,
  SummaryRequest,
  SummaryToken,
  Verdict,
  WatchedFolder,
  Queued as AddResult,
  /** A saved message's citation: a passage with its exact place (page_end, start, end, section). */
  Citation as SavedCitation,
  /** Settings → Online sources: a host contacted, how often, first and last time. */
  Host as OnlineHost,
  /** The text of a cited passage (citations[n-1]) supporting one answer sentence. */
  Span as ClaimSpan,
} from './bridge.gen';

export type Mode = gen.StatusMode;
/** How an answer was made: by a model, from the passages alone (no model), or not found. */
export type AnswerMode = gen.AnswerMode;

export type Status = {
  library: string;
  mode: Mode;
  reason: string;
  fix: string;
  ollama: { host: string; reachable: boolean; version: string; models: string[] };
  chat_model: string;
  embed_model: string;
  documents: number;
  chunks: number;
  /** The library is on a read-only disk or folder; read_only_reason says what that means. */
  read_only?: boolean;
  read_only_reason?: string;
  /** Repairs made when the library was opened (a damaged index rebuilt). */
  notices?: string[];
};

/**
 * A document's status in the library (a removed one is only ever announced: DocumentEvent).
 * 'fetching': a URL being fetched, before it is a document (its id is PATH_ID_PREFIX + the URL).
 */
export type DocStatus = Exclude<gen.DocStatus, 'removed'>;

/**
 * `library:changed` carries a Document; a removed one has `status: "removed"`. Its kind is
 * '' for a file of no kind Carrel reads (Go sends the file's extension then).
 */
export type DocumentEvent = Omit<gen.Document, 'kind'> & { kind: gen.DocumentKind | '' };

export type Document = Omit<DocumentEvent, 'status'> & { status: DocStatus };

export type Hit = {
  doc_id: string;
  doc_path: string;
  doc_title: string;
  page: number;
  text: string;
  score: number;
  match_type: gen.MatchType;
  lexical_rank: number;
  vector_rank: number;
};

export type Citation = {
  n: number;
  doc_id: string;
  doc_title: string;
  doc_path: string;
  page: number;
  text: string;
  /** Last page of the passage when it crosses a page break (0 or absent: same page). */
  page_end?: number;
  /** Byte offset in page's text where the passage starts (absent: 0). */
  start?: number;
  /** The page the search matched on, within page..page_end (absent: page): the viewer opens there. */
  focus_page?: number;
};

export type Usage = { prompt_tokens: number; completion_tokens: number; cost_usd: number };

export type AnswerStart = { ask_id: string; question: string; citations: Citation[]; mode: AnswerMode | ''; session_id?: string };
export type AnswerDone = {
  ask_id: string;
  answer: string;
  citations: Citation[];
  usage: Usage;
  model: string;
  mode: AnswerMode | '';
  note: string;
  /** The study session the answer was saved in ('' or absent for a plain Ask). */
  session_id?: string;
  /** A budget warning (from 80% of the cloud budget). */
  warning?: string;
  /** Each sentence of the answer with the passage text supporting it. */
  claims?: gen.Claim[];
  /** Where a reused answer came from (the answer cache); null when a model answered now. */
  cached_from?: CachedFrom | null;
};
export type AnswerError = {
  ask_id: string;
  message: string;
  partial: string;
  session_id?: string;
  /** The chat model to download when it is not installed in Ollama. */
  pull?: string;
};

export type Message = {
  id: number;
  session_id: string;
  question: string;
  standalone: string;
  answer: string;
  status: gen.MessageStatus;
  mode: AnswerMode | '';
  note: string;
  provider: gen.ProviderName;
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
  created_at: string;
  citations: gen.Citation[];
  /** Each sentence of the answer with its support (GetSession; absent in older payloads). */
  claims?: gen.Claim[];
  /** Where an answer served from the cache came from. */
  cached_from?: CachedFrom | null;
};

export type SessionDetail = Omit<gen.Session, 'messages'> & { messages: Message[]; scope: string[] };

/** `session:changed`: a session created, answered in or renamed, or `deleted`. */
export type SessionEvent = gen.Session & { deleted: boolean };

/** An installed Ollama model (ListModels). */
export type Model = {
  name: string;
  size: number;
  family: string;
  parameter_size: string;
  quantization: string;
  modified_at: string;
  embedding: boolean;
};

/** What the models panel shows (ListModels, StartOllama). */
export type Models = Omit<gen.Models, 'models'> & { models: Model[] };

/** `watch:synced`: a watched folder's changes were taken in. */
export type WatchSynced = { dir: string; ingested: unknown[]; removed: string[]; removed_ids: string[] };

/** Every event the backend emits, by name. Mirrors the Go event name consts. */
export type EventMap = {
  'watch:synced': WatchSynced;
  'library:changed': DocumentEvent;
  'answer:start': AnswerStart;
  'answer:token': gen.AnswerToken;
  'answer:done': AnswerDone;
  'answer:error': AnswerError;
  'status:changed': Status;
  'model:pull': gen.PullEvent;
  'session:changed': SessionEvent;
  'meter:changed': gen.Meter;
  'library:switched': gen.LibraryFolder;
  'memory:changed': MemorySettings;
  /** A document given to Carrel from outside (Open with, a second launch), to show. */
  'document:open': Document;
  /** A file added from the window was already in the library: the document it is. */
  'library:known': Document;
  'summary:start': SummaryStart;
  'summary:token': gen.SummaryToken;
  'summary:section': SummaryPart;
  'summary:done': SummaryDone;
  'summary:error': gen.SummaryError;
  'cards:progress': gen.CardsProgress;
};

export type EventName = keyof EventMap;

/** The names of EventMap (keyof EventMap is Go's event names: bridge.test-d.ts). */
export const EVENT_NAMES: readonly EventName[] = BRIDGE_EVENTS;

/** One section of a summary (the overview: the reduce step's summary of the sections). */
export type SummarySection = { section: string; text: string; claims: gen.Claim[]; overview: boolean };
/** A summary as saved in its study session (docs/bridge.md "Summaries"). */
export type Summary = {
  doc_id: string;
  title: string;
  scope: string;
  sections: SummarySection[];
  passages: Citation[];
  num_ctx: number;
  map_calls: number;
  reduce_calls: number;
  dropped: number;
  stopped: boolean;
  session_id: string;
  message_id: number;
};
export type SummaryStart = { id: string; doc_id: string; title: string; scope: string; steps: number; passages: Citation[] };
export type SummaryPart = { id: string; section: SummarySection; step: number; steps: number };
export type SummaryDone = { id: string; summary: Summary };

export type AnswerEvent =
  | { name: 'answer:start'; data: AnswerStart }
  | { name: 'answer:token'; data: gen.AnswerToken }
  | { name: 'answer:done'; data: AnswerDone }
  | { name: 'answer:error'; data: AnswerError };

/** The answers of one day ("YYYY-MM-DD"), or of all time (day ''). */
export type StatsPeriod = Omit<gen.StatsPeriod, 'day'> & { day: string };

/** Stats(): in total and per day, newest day first. */
export type Stats = { total: StatsPeriod; days: StatsPeriod[] };

/** Where a cached answer came from (answer:done `cached_from`, GetSession `cached`); similarity 0 for a match by words (Go omits it then). */
export type CachedFrom = Omit<gen.CachedFrom, 'similarity'> & { similarity: number };

/** One thing Carrel remembers about the user (Memory()). */
export type MemoryItem = {
  id: number;
  kind: gen.MemoryKind;
  text: string;
  /** The user's sentence it was learnt from ('' when added by hand). */
  source: string;
  created_at: string;
};

/** Memory(): whether memory is on, and every memory kept. */
export type MemorySettings = { enabled: boolean; memories: MemoryItem[] };

// ---- Flashcards (docs/bridge.md, "Study") ----

/** A card's spaced-repetition state (FSRS): 0 new, 1 learning, 2 review, 3 relearning. */
export type CardSchedule = {
  state: number;
  due: string; // RFC 3339
  stability: number;
  difficulty: number;
  scheduled_days: number;
  reps: number;
  lapses: number;
};

/** A flashcard. `context` is the span of the passage it stands on (its answer is in it). */
export type StudyCard = {
  id: number;
  deck_id: string;
  doc_id: string;
  kind: gen.CardKind;
  origin: gen.CardOrigin;
  front: string;
  back: string;
  context: string;
  page: number;
  page_end: number;
  start: number;
  end: number;
  section: string;
  suspended: boolean;
  stale: boolean;
  schedule: CardSchedule;
};

export type Deck = { id: string; session_id: string; title: string; doc_ids: string[]; cards: number; due: number };

export type MakeResult = { deck: Deck; passages: number; made: number; added: number; existing: number; by_kind: Partial<Record<gen.CardKind, number>>; model: gen.ModelResult | null; stopped: boolean };

/** A quiz question: multiple choice (choices, answer = index of the right one) or a short answer (no choices, answer -1). */
export type Question = { card_id: number; prompt: string; choices: string[]; answer: number; card: StudyCard };
/** A short answer's marking: by which grader it was found right ('' when wrong), the share of the answer's words given, the embedding similarity (-1 when not measured) and the judge model's verdict. */
export type Marking = { correct: boolean; score: number; by: gen.MarkBy; similarity: number; closest: number; judge: gen.Verdict | null; judge_error: string };
