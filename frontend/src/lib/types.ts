// Types of the bridge between the frontend and app.App: the shapes the frontend works
// with, most of them as normalize.ts returns them. Their enumerated values are the Go
// types' (bridge.gen.ts, generated from Go); bridge.test-d.ts fails when a field here
// drifts from what Go sends, bridge.test.ts when a type here is not checked or an
// enumeration is written out again. JSON field names are exact; do not rename.
import type * as gen from './bridge.gen';

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

export type Document = {
  id: string;
  path: string;
  title: string;
  kind: string;
  pages: number;
  chunks: number;
  bytes: number;
  status: DocStatus;
  error: string;
  progress: { done: number; total: number };
  added_at: string;
  /** Pages whose text was read by OCR from scanned images (0 for none, or not ready yet). */
  ocr_pages: number;
  /** An online source's canonical URL (its path is then the snapshot in the library). */
  url?: string;
};

/** Settings → Online sources: whether URLs may be fetched, and every host contacted. */
export type OnlineHost = { host: string; count: number; first: string; last: string };
export type OnlineSettings = { on: boolean; hosts: OnlineHost[] };

/** `library:changed` carries a Document; a removed one has `status: "removed"`. */
export type DocumentEvent = Omit<Document, 'status'> & { status: gen.DocStatus };

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
};

/** The text of a cited passage supporting one answer sentence (backend/chat/cite.go Span). */
export type ClaimSpan = {
  /** The cited passage, citations[n-1]. */
  n: number;
  /** Character (code point) offsets in that passage's text. */
  start: number;
  end: number;
  quote: string;
};

/** One sentence of an answer and its support (backend/chat/cite.go Claim). */
export type Claim = {
  /** Character (code point) offsets of the sentence in the answer. */
  start: number;
  end: number;
  supported: boolean;
  spans: ClaimSpan[];
};

export type Usage = { prompt_tokens: number; completion_tokens: number; cost_usd: number };

export type AnswerStart = { ask_id: string; question: string; citations: Citation[]; mode: AnswerMode | ''; session_id?: string };
export type AnswerToken = { ask_id: string; text: string };
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
  claims?: Claim[];
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

/** A saved study session (docs/bridge.md, app/sessions.go). */
export type Session = {
  id: string;
  title: string;
  doc_ids: string[];
  provider: string;
  model: string;
  created_at: string;
  updated_at: string;
  messages: number;
  cost_usd: number;
};

export type SavedCitation = Citation & { page_end: number; start: number; end: number; section: string };

export type Message = {
  id: number;
  session_id: string;
  question: string;
  standalone: string;
  answer: string;
  status: gen.MessageStatus;
  mode: string;
  note: string;
  provider: string;
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
  created_at: string;
  citations: SavedCitation[];
  /** Each sentence of the answer with its support (GetSession; absent in older payloads). */
  claims?: Claim[];
  /** Where an answer served from the cache came from. */
  cached_from?: CachedFrom | null;
};

export type SessionDetail = Omit<Session, 'messages'> & { messages: Message[]; scope: string[] };

/** The cost meter (Meter, `meter:changed`). */
export type Meter = {
  total_usd: number;
  answers: number;
  prompt_tokens: number;
  completion_tokens: number;
  budget_usd: number;
  budget_used: number;
  warning: string;
  provider: string;
  model: string;
  prices_as_of: string;
};

export type Price = { input: number; output: number; cached_input: number; cache_write?: number };

/** Who answers, cloud models, keys and the budget (CloudSettings). */
export type CloudSettings = {
  provider: gen.Provider;
  openai_model: string;
  anthropic_model: string;
  openai_base_url: string;
  anthropic_base_url: string;
  budget_usd: number;
  prices: Record<string, Price>;
  keep_alive: string;
  keys: Record<string, gen.KeySource>;
  key_error: Record<string, string>;
  builtin_prices: Record<string, Price>;
  prices_as_of: string;
};

/** `session:changed`: a session created, answered in or renamed, or `deleted`. */
export type SessionEvent = Session & { deleted: boolean };

export type AddResult = { queued: number };

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

/** A model Carrel recommends for a machine without a GPU. */
export type Suggestion = { name: string; role: gen.ModelRole; download: string; note: string; default: boolean };

/** What the models panel shows (ListModels, StartOllama). */
export type Models = {
  host: string;
  reachable: boolean;
  version: string;
  installed: boolean;
  error: string;
  models: Model[];
  suggested: Suggestion[];
  chat_model: string;
  embed_model: string;
};

/** One `model:pull` event: progress of one layer, or (done) the end of the pull. */
export type PullEvent = {
  pull_id: string;
  model: string;
  status: string;
  digest: string;
  total: number;
  completed: number;
  done: boolean;
  error: string;
};

/** A folder whose files follow into the library (docs/bridge.md "Watched folders"). */
export type WatchedFolder = { dir: string; active: boolean; error: string };

/** `watch:synced`: a watched folder's changes were taken in. */
export type WatchSynced = { dir: string; ingested: unknown[]; removed: string[]; removed_ids: string[] };

/** Every event the backend emits, by name. Mirrors the Go event name consts. */
export type EventMap = {
  'watch:synced': WatchSynced;
  'library:changed': DocumentEvent;
  'answer:start': AnswerStart;
  'answer:token': AnswerToken;
  'answer:done': AnswerDone;
  'answer:error': AnswerError;
  'status:changed': Status;
  'model:pull': PullEvent;
  'session:changed': SessionEvent;
  'meter:changed': Meter;
  'library:switched': LibraryFolder;
  'memory:changed': MemorySettings;
  /** A document given to Carrel from outside (Open with, a second launch), to show. */
  'document:open': Document;
  /** A file added from the window was already in the library: the document it is. */
  'library:known': Document;
  'summary:start': SummaryStart;
  'summary:token': SummaryToken;
  'summary:section': SummaryPart;
  'summary:done': SummaryDone;
  'summary:error': SummaryError;
  'cards:progress': CardsProgress;
};

export type EventName = keyof EventMap;

export const EVENT_NAMES: EventName[] = [
  'watch:synced',
  'library:changed',
  'answer:start',
  'answer:token',
  'answer:done',
  'answer:error',
  'status:changed',
  'model:pull',
  'session:changed',
  'meter:changed',
  'library:switched',
  'memory:changed',
  'document:open',
  'library:known',
  'summary:start',
  'summary:token',
  'summary:section',
  'summary:done',
  'summary:error',
  'cards:progress',
];

/** One section of a summary (the overview: the reduce step's summary of the sections). */
export type SummarySection = { section: string; text: string; claims: Claim[]; overview: boolean };
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
/** What to summarise: a document, an outline section, or a selection on pages. */
export type SummaryRequest = { doc_id: string; session_id: string; section?: string; selection?: Selection | null };
export type Selection = { page: number; page_end: number; text: string };
export type SummaryStart = { id: string; doc_id: string; title: string; scope: string; steps: number; passages: Citation[] };
export type SummaryToken = { id: string; text: string; step: number; steps: number; reducing: boolean };
export type SummaryPart = { id: string; section: SummarySection; step: number; steps: number };
export type SummaryDone = { id: string; summary: Summary };
export type SummaryError = { id: string; message: string; session_id: string; message_id: number };
/** Cards asked of the model: passages done of total, cards kept so far. */
export type CardsProgress = { key: string; done: number; total: number; kept: number };

export type AnswerEvent =
  | { name: 'answer:start'; data: AnswerStart }
  | { name: 'answer:token'; data: AnswerToken }
  | { name: 'answer:done'; data: AnswerDone }
  | { name: 'answer:error'; data: AnswerError };

/** Latency of a set of answers, in milliseconds (docs/bridge.md "Stats"). */
export type Latency = { n: number; p50_ms: number; p95_ms: number; max_ms: number };

/** The answers of one day ("YYYY-MM-DD"), or of all time (day ''). */
export type StatsPeriod = {
  day: string;
  questions: number;
  cache_hits: number;
  cache_misses: number;
  not_found: number;
  no_model: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
  saved_usd: number;
  retrieval: Latency;
  ttft_cached: Latency;
  ttft_uncached: Latency;
  total_cached: Latency;
  total_uncached: Latency;
};

/** Stats(): in total and per day, newest day first. */
export type Stats = { total: StatsPeriod; days: StatsPeriod[] };

/** One numeric field of a chunking profile. */
export type ChunkField = { name: string; integer: boolean; min: number; max: number };

/** ChunkSettings(): chunk sizes per document type, in force and by default. */
export type ChunkSettings = {
  doc_types: string[];
  profiles: Record<string, Record<string, number>>;
  defaults: Record<string, Record<string, number>>;
  fields: ChunkField[];
  error: string;
};

/** LibraryFolderInfo(): where the library lives. */
export type LibraryFolder = { dir: string; standard: string; remembered: boolean; documents: number; can_choose: boolean };

/** Where a cached answer came from (answer:done `cached_from`, GetSession `cached`). */
export type CachedFrom = {
  session_id: string;
  session_title: string;
  message_id: number;
  /** The standalone question answered then. */
  question: string;
  /** When it was answered (RFC 3339). */
  at: string;
  /** 'meaning': embedding similarity and the same content words; 'words': content words only. */
  match: gen.CacheMatch;
  similarity: number;
  saved_usd: number;
};

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
  kind: string;
  origin: string;
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

/** What a model proposed for cards and what the check in code kept (cards made with a model). */
export type ModelResult = { passages: number; proposed: number; kept: number; dropped: number; reasons: Record<string, number>; failed: number };
export type MakeResult = { deck: Deck; passages: number; made: number; added: number; existing: number; by_kind: Record<string, number>; model: ModelResult | null; stopped: boolean };

/** A quiz question: multiple choice (choices, answer = index of the right one) or a short answer (no choices, answer -1). */
export type Question = { card_id: number; prompt: string; choices: string[]; answer: number; card: StudyCard };
/** A short answer's marking: by which grader it was found right ('' when wrong), the share of the answer's words given, the embedding similarity (-1 when not measured) and the judge model's verdict. */
export type Marking = { correct: boolean; score: number; by: string; similarity: number; closest: number; judge: Verdict | null; judge_error: string };
/** The chat model's verdict on a short answer. */
export type Verdict = { correct: boolean; reason: string };
export type QuizScore = { id: number; deck_id: string; questions: number; correct: number; taken_at: string };
export type DayCount = { day: string; reviews: number; again: number };
export type DeckStats = {
  deck_id: string;
  title: string;
  cards: number;
  due: number;
  reviews: number;
  days: DayCount[];
  retention: number;
  recalls: number;
  quizzes: number;
  last_correct: number;
  last_of: number;
};
