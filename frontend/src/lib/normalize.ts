// Values from the backend are parsed here once, at the boundary: Go's nil slices arrive
// as null, older backends may omit fields, and event payloads are untrusted JSON. Every
// function returns a complete value with safe defaults and never throws.

import {
  ANSWER_MODE_VALUES,
  DOC_STATUS_VALUES,
  DOCUMENT_KIND_VALUES,
  DOCUMENT_TYPE_VALUES,
  KEY_SOURCE_VALUES,
  MATCH_TYPE_VALUES,
  MESSAGE_STATUS_VALUES,
  MODEL_ROLE_VALUES,
  PROVIDER_NAME_VALUES,
  STATUS_MODE_VALUES,
} from './bridge.gen';
import { isOneOf, keyedBy, oneOf } from './enum';
import { cachedFrom } from './recall';
import type {
  AnswerDone,
  AnswerError,
  AnswerStart,
  AnswerToken,
  Citation,
  Document,
  DocumentEvent,
  OnlineSettings,
  Hit,
  AnswerMode,
  Mode,
  Model,
  Models,
  PullEvent,
  Suggestion,
  Message,
  SavedCitation,
  Session,
  SessionDetail,
  SessionEvent,
  Meter,
  CloudSettings,
  Price,
  ProviderName,
  Status,
  Usage,
  Claim,
  ClaimSpan,
  Latency,
  StatsPeriod,
  Stats,
  ChunkSettings,
  ChunkField,
  LibraryFolder,
} from './types';

type Obj = Record<string, unknown>;

const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : v == null ? '' : String(v));
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : Number(v) || 0);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

// Enumerated values are checked against the Go type's values (bridge.gen.ts *_VALUES).
/** Status mode: unknown values read as the most careful one. */
export const mode = (v: unknown): Mode => oneOf(STATUS_MODE_VALUES, v, 'no-model');
/** An answer's mode: optional (answer:start may omit it); unknown values read as ''. */
export const answerMode = (v: unknown): AnswerMode | '' => oneOf(ANSWER_MODE_VALUES, v, '');
/** A provider (Go's provider.Name): '' when no model answered, and for anything else. */
const provider = (v: unknown): ProviderName => oneOf(PROVIDER_NAME_VALUES, v, '');

export function status(v: unknown): Status {
  const o = obj(v);
  const ol = obj(o.ollama);
  return {
    library: str(o.library),
    mode: mode(o.mode),
    reason: str(o.reason),
    fix: str(o.fix),
    ollama: {
      host: str(ol.host),
      reachable: ol.reachable === true,
      version: str(ol.version),
      models: arr(ol.models).map(str),
    },
    chat_model: str(o.chat_model),
    embed_model: str(o.embed_model),
    documents: num(o.documents),
    chunks: num(o.chunks),
    read_only: o.read_only === true,
    read_only_reason: str(o.read_only_reason),
    notices: arr(o.notices).map(str).filter(Boolean),
  };
}

export function documentEvent(v: unknown): DocumentEvent {
  const o = obj(v);
  const p = obj(o.progress);
  return {
    id: str(o.id),
    path: str(o.path),
    title: str(o.title),
    // Go's document.Kind; for a file of no kind Carrel reads Go sends its extension, read
    // as '' (library.kindLabel takes the extension from the path).
    kind: oneOf(DOCUMENT_KIND_VALUES, o.kind, ''),
    pages: num(o.pages),
    chunks: num(o.chunks),
    bytes: num(o.bytes),
    status: oneOf(DOC_STATUS_VALUES, o.status, 'queued'),
    error: str(o.error),
    progress: { done: num(p.done), total: num(p.total) },
    added_at: str(o.added_at),
    ocr_pages: num(o.ocr_pages),
    ...(str(o.url) ? { url: str(o.url) } : {}),
  };
}

export function onlineSettings(v: unknown): OnlineSettings {
  const o = obj(v);
  return {
    on: o.on !== false,
    hosts: arr(o.hosts).map((h) => {
      const x = obj(h);
      return { host: str(x.host), count: num(x.count), first: str(x.first), last: str(x.last) };
    }),
  };
}

export function document(v: unknown): Document {
  const d = documentEvent(v);
  return { ...d, status: d.status === 'removed' ? 'failed' : d.status };
}

export function citation(v: unknown, i = 0): Citation {
  const o = obj(v);
  return {
    n: num(o.n) || i + 1,
    doc_id: str(o.doc_id),
    doc_title: str(o.doc_title),
    doc_path: str(o.doc_path),
    page: num(o.page),
    text: str(o.text),
    // A passage crossing a page break ends on a later page: the viewer follows it there.
    ...(num(o.page_end) > num(o.page) ? { page_end: num(o.page_end) } : {}),
    // Where the passage starts on its page (bytes): a recording's transcript maps it to a time.
    ...(num(o.start) > 0 ? { start: num(o.start) } : {}),
    // A passage of several pages (slides) opens where the search matched.
    ...(num(o.focus_page) > num(o.page) && num(o.focus_page) <= num(o.page_end) ? { focus_page: num(o.focus_page) } : {}),
  };
}

export const citations = (v: unknown): Citation[] => arr(v).map(citation);

export function hit(v: unknown): Hit {
  const o = obj(v);
  const mt = str(o.match_type);
  return {
    doc_id: str(o.doc_id),
    doc_path: str(o.doc_path),
    doc_title: str(o.doc_title),
    page: num(o.page),
    text: str(o.text),
    score: num(o.score),
    match_type: oneOf(MATCH_TYPE_VALUES, mt, 'hybrid'),
    lexical_rank: num(o.lexical_rank),
    vector_rank: num(o.vector_rank),
  };
}

function usage(v: unknown): Usage {
  const o = obj(v);
  return {
    prompt_tokens: num(o.prompt_tokens),
    completion_tokens: num(o.completion_tokens),
    cost_usd: num(o.cost_usd),
  };
}

export function answerStart(v: unknown): AnswerStart {
  const o = obj(v);
  return {
    ask_id: str(o.ask_id),
    question: str(o.question),
    citations: citations(o.citations),
    mode: answerMode(o.mode),
    session_id: str(o.session_id),
  };
}

export function answerToken(v: unknown): AnswerToken {
  const o = obj(v);
  return { ask_id: str(o.ask_id), text: str(o.text) };
}

export function answerDone(v: unknown): AnswerDone {
  const o = obj(v);
  return {
    ask_id: str(o.ask_id),
    answer: str(o.answer),
    citations: citations(o.citations),
    usage: usage(o.usage),
    model: str(o.model),
    mode: answerMode(o.mode),
    note: str(o.note),
    session_id: str(o.session_id),
    warning: str(o.warning),
    claims: claims(o.claims),
    cached_from: cachedFrom(o.cached_from),
  };
}

/** Each sentence of an answer with its supporting spans (see lib/claims.ts); bad entries dropped. */
export function claims(v: unknown): Claim[] {
  return arr(v)
    .map((c) => {
      const o = obj(c);
      const spans: ClaimSpan[] = arr(o.spans)
        .map((sp) => {
          const x = obj(sp);
          return { n: num(x.n), start: num(x.start), end: num(x.end), quote: str(x.quote) };
        })
        .filter((sp) => sp.n > 0 && sp.end >= sp.start);
      return { start: num(o.start), end: num(o.end), supported: o.supported === true, spans };
    })
    .filter((c) => c.end > c.start);
}

export function answerError(v: unknown): AnswerError {
  const o = obj(v);
  return { ask_id: str(o.ask_id), message: str(o.message), partial: str(o.partial), session_id: str(o.session_id), pull: str(o.pull) };
}

export const addResult = (v: unknown) => ({ queued: num(obj(v).queued) });

export function model(v: unknown): Model {
  const o = obj(v);
  return {
    name: str(o.name),
    size: num(o.size),
    family: str(o.family),
    parameter_size: str(o.parameter_size),
    quantization: str(o.quantization),
    modified_at: str(o.modified_at),
    embedding: o.embedding === true,
  };
}

export function suggestion(v: unknown): Suggestion {
  const o = obj(v);
  return {
    name: str(o.name),
    role: oneOf(MODEL_ROLE_VALUES, o.role, 'chat'),
    download: str(o.download),
    note: str(o.note),
    default: o.default === true,
  };
}

export function models(v: unknown): Models {
  const o = obj(v);
  return {
    host: str(o.host),
    reachable: o.reachable === true,
    version: str(o.version),
    installed: o.installed === true,
    error: str(o.error),
    models: arr(o.models).map(model).filter((m) => m.name),
    suggested: arr(o.suggested).map(suggestion).filter((s) => s.name),
    chat_model: str(o.chat_model),
    embed_model: str(o.embed_model),
  };
}

export function pullEvent(v: unknown): PullEvent {
  const o = obj(v);
  return {
    pull_id: str(o.pull_id),
    model: str(o.model),
    status: str(o.status),
    digest: str(o.digest),
    total: num(o.total),
    completed: num(o.completed),
    done: o.done === true,
    error: str(o.error),
  };
}

export function session(v: unknown): Session {
  const o = obj(v);
  return {
    id: str(o.id),
    title: str(o.title),
    doc_ids: arr(o.doc_ids).map(str),
    provider: provider(o.provider),
    model: str(o.model),
    created_at: str(o.created_at),
    updated_at: str(o.updated_at),
    messages: Array.isArray(o.messages) ? o.messages.length : num(o.messages),
    cost_usd: num(o.cost_usd),
  };
}

export function sessionEvent(v: unknown): SessionEvent {
  return { ...session(v), deleted: obj(v).deleted === true };
}

function savedCitation(v: unknown, i: number): SavedCitation {
  const o = obj(v);
  return { ...citation(v, i), page_end: num(o.page_end), start: num(o.start), end: num(o.end), section: str(o.section) };
}

export function message(v: unknown): Message {
  const o = obj(v);
  return {
    id: num(o.id),
    session_id: str(o.session_id),
    question: str(o.question),
    standalone: str(o.standalone),
    answer: str(o.answer),
    status: oneOf(MESSAGE_STATUS_VALUES, o.status, 'done'),
    mode: answerMode(o.mode),
    note: str(o.note),
    provider: provider(o.provider),
    model: str(o.model),
    prompt_tokens: num(o.prompt_tokens),
    completion_tokens: num(o.completion_tokens),
    cost_usd: num(o.cost_usd),
    created_at: str(o.created_at),
    citations: arr(o.citations).map(savedCitation),
    claims: claims(o.claims),
    cached_from: cachedFrom(o.cached),
  };
}

export function sessionDetail(v: unknown): SessionDetail {
  const o = obj(v);
  const { messages: _n, ...rest } = session(v);
  return { ...rest, messages: arr(o.messages).map(message), scope: arr(o.scope).map(str) };
}

export function meter(v: unknown): Meter {
  const o = obj(v);
  return {
    total_usd: num(o.total_usd),
    answers: num(o.answers),
    prompt_tokens: num(o.prompt_tokens),
    completion_tokens: num(o.completion_tokens),
    budget_usd: num(o.budget_usd),
    budget_used: num(o.budget_used),
    warning: str(o.warning),
    provider: provider(o.provider),
    model: str(o.model),
    prices_as_of: str(o.prices_as_of),
  };
}

function price(v: unknown): Price {
  const o = obj(v);
  const p: Price = { input: num(o.input), output: num(o.output), cached_input: num(o.cached_input) };
  if (o.cache_write != null) p.cache_write = num(o.cache_write);
  return p;
}

function prices(v: unknown): Record<string, Price> {
  return Object.fromEntries(Object.entries(obj(v)).map(([k, p]) => [k, price(p)]));
}

/** The providers one can choose to answer (every provider.Name but None). */
export const PROVIDERS = PROVIDER_NAME_VALUES.filter((p): p is Exclude<ProviderName, ''> => p !== '');

export function cloudSettings(v: unknown): CloudSettings {
  const o = obj(v);
  const keySource = (x: unknown) => oneOf(KEY_SOURCE_VALUES, x, '');
  return {
    provider: oneOf(PROVIDERS, o.provider, 'ollama'),
    openai_model: str(o.openai_model),
    anthropic_model: str(o.anthropic_model),
    openai_base_url: str(o.openai_base_url),
    anthropic_base_url: str(o.anthropic_base_url),
    budget_usd: num(o.budget_usd),
    prices: prices(o.prices),
    keep_alive: str(o.keep_alive),
    keys: keyedBy(PROVIDER_NAME_VALUES, o.keys, keySource),
    key_error: keyedBy(PROVIDER_NAME_VALUES, o.key_error, str),
    builtin_prices: prices(o.builtin_prices),
    prices_as_of: str(o.prices_as_of),
  };
}

function latency(v: unknown): Latency {
  const o = obj(v);
  return { n: num(o.n), p50_ms: num(o.p50_ms), p95_ms: num(o.p95_ms), max_ms: num(o.max_ms) };
}

export function statsPeriod(v: unknown): StatsPeriod {
  const o = obj(v);
  return {
    day: str(o.day),
    questions: num(o.questions),
    cache_hits: num(o.cache_hits),
    cache_misses: num(o.cache_misses),
    not_found: num(o.not_found),
    no_model: num(o.no_model),
    prompt_tokens: num(o.prompt_tokens),
    completion_tokens: num(o.completion_tokens),
    cost_usd: num(o.cost_usd),
    saved_usd: num(o.saved_usd),
    retrieval: latency(o.retrieval),
    ttft_cached: latency(o.ttft_cached),
    ttft_uncached: latency(o.ttft_uncached),
    total_cached: latency(o.total_cached),
    total_uncached: latency(o.total_uncached),
  };
}

export function stats(v: unknown): Stats {
  const o = obj(v);
  return { total: statsPeriod(o.total), days: (Array.isArray(o.days) ? o.days : []).map(statsPeriod).filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d.day)) };
}

function numbers(v: unknown): Record<string, number> {
  return Object.fromEntries(Object.entries(obj(v)).filter(([, x]) => typeof x === 'number' && Number.isFinite(x)) as [string, number][]);
}

export function chunkSettings(v: unknown): ChunkSettings {
  const o = obj(v);
  const types = (Array.isArray(o.doc_types) ? o.doc_types : []).filter((t) => isOneOf(DOCUMENT_TYPE_VALUES, t));
  const fields: ChunkField[] = (Array.isArray(o.fields) ? o.fields : []).map((f) => {
    const x = obj(f);
    return { name: str(x.name), integer: x.integer === true, min: num(x.min), max: num(x.max) };
  }).filter((f) => f.name);
  return { doc_types: types, profiles: keyedBy(DOCUMENT_TYPE_VALUES, o.profiles, numbers), defaults: keyedBy(DOCUMENT_TYPE_VALUES, o.defaults, numbers), fields, error: str(o.error) };
}

export function libraryFolder(v: unknown): LibraryFolder {
  const o = obj(v);
  return { dir: str(o.dir), standard: str(o.standard), remembered: o.remembered === true, documents: num(o.documents), can_choose: o.can_choose === true };
}
