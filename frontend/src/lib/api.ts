// The only module that talks to the backend (app.App, see docs/bridge.md).
//
// Desktop (Wails): methods are the bindings `window.go.app.App.Method(...)` and events
// come from `window.runtime.EventsOn`. Browser (`carrel serve`, tests): the same methods
// travel as `POST /api/call/{Method}`, events as Server-Sent Events from `/api/events`,
// and dropped or picked files go to `POST /api/upload`. Callers never see which.
//
// Every value coming back is normalised (./normalize) so the UI can trust its shape.

import * as parse from './normalize';
import * as recall from './recall';
import * as study from './study';
import type { Deck, DeckStats, DocumentType, ExportFormat, ProviderName, MakeResult, Marking, MemoryKind, MemorySettings, Question, QuizScore, StudyCard, SummaryRequest } from './types';
import type { AddResult, ChunkSettings, OnlineSettings, LibraryFolder, Stats, CloudSettings, Document, EventMap, EventName, Hit, Meter, Models, Session, SessionDetail, Status, WatchedFolder, WatchSynced } from './types';
import { EVENT_NAMES } from './types';
import { parsePageWords, type PageWords } from './ocr-rects';
import { parseMediaSettings, parseTranscript, type MediaSettings, type Transcript } from './transcript';

/**
 * The bound Go methods, typed by hand from docs/bridge.md (no generated wailsjs). call()
 * takes their arguments; bridge.test.ts checks the names and counts against Go's
 * (bridge.gen.ts), bridge.test-d.ts that each argument is one Go's parameter takes.
 */
interface WailsApp {
  Status(): Promise<unknown>;
  ListDocuments(): Promise<unknown>;
  AddPaths(paths: string[]): Promise<unknown>;
  // Online sources (optional only so that older test doubles still type-check).
  AddURL?(url: string): Promise<unknown>;
  OnlineSettings?(): Promise<unknown>;
  SetOnlineSources?(on: boolean): Promise<unknown>;
  AddDialog(): Promise<unknown>;
  WatchFolder(dir: string): Promise<unknown>;
  UnwatchFolder(dir: string): Promise<unknown>;
  ListWatched(): Promise<unknown>;
  RemoveDocument(docID: string): Promise<unknown>;
  RereadDocument?(docID: string): Promise<unknown>;
  Search(query: string, k: number, docIDs: string[]): Promise<unknown>;
  Ask(question: string, docIDs: string[]): Promise<unknown>;
  Cancel(askID: string): Promise<unknown>;
  ListModels(): Promise<unknown>;
  StartOllama(): Promise<unknown>;
  PullModel(name: string, insecure: boolean): Promise<unknown>;
  CancelPull(pullID: string): Promise<unknown>;
  SetModels(chatModel: string, embedModel: string): Promise<unknown>;
  AskInSession(sessionID: string, question: string, docIDs: string[] | null, overrideBudget: boolean): Promise<unknown>;
  // Answer cache and memory (optional only so that older test doubles still type-check).
  AskFresh?(sessionID: string, question: string, docIDs: string[] | null, overrideBudget: boolean): Promise<unknown>;
  Memory?(): Promise<unknown>;
  SetMemoryEnabled?(on: boolean): Promise<unknown>;
  AddMemory?(kind: MemoryKind, text: string): Promise<unknown>;
  EditMemory?(id: number, text: string): Promise<unknown>;
  DeleteMemory?(id: number): Promise<unknown>;
  ListSessions(): Promise<unknown>;
  GetSession(sessionID: string): Promise<unknown>;
  RenameSession(sessionID: string, title: string): Promise<unknown>;
  DeleteSession(sessionID: string): Promise<unknown>;
  ExportSession(sessionID: string): Promise<unknown>;
  Meter(): Promise<unknown>;
  CloudSettings(): Promise<unknown>;
  SetCloudSettings(settings: CloudSettings): Promise<unknown>;
  SetAPIKey(provider: ProviderName, key: string): Promise<unknown>;
  DeleteAPIKey(provider: ProviderName): Promise<unknown>;
  PageWords(docID: string, page: number): Promise<unknown>;
  Transcript?(docID: string): Promise<unknown>;
  MediaSettings?(): Promise<unknown>;
  SetMediaSettings?(s: MediaSettings): Promise<unknown>;
  Stats(): Promise<unknown>;
  ChunkSettings(): Promise<unknown>;
  SetChunkSettings(profiles: Partial<Record<DocumentType, Record<string, number>>>): Promise<unknown>;
  LibraryFolderInfo(): Promise<unknown>;
  ChooseLibraryFolder(): Promise<unknown>;
  SetLibraryFolder(dir: string, move: boolean): Promise<unknown>;
  RechunkLibrary(): Promise<unknown>;
  CacheStatus?(): Promise<unknown>;
  OpenLogFolder?(): Promise<unknown>;
  // Flashcards (optional only so that older test doubles still type-check).
  MakeCards?(sessionID: string, docIDs: string[]): Promise<unknown>;
  MakeModelCards?(sessionID: string, docIDs: string[]): Promise<unknown>;
  StudyDecks?(): Promise<unknown>;
  DueCards?(deckID: string, limit: number): Promise<unknown>;
  DeckCards?(deckID: string): Promise<unknown>;
  DueByDocument?(): Promise<unknown>;
  GradeCard?(cardID: number, grade: number): Promise<unknown>;
  EditCard?(cardID: number, front: string, back: string): Promise<unknown>;
  SuspendCard?(cardID: number, suspended: boolean): Promise<unknown>;
  DeleteCard?(cardID: number): Promise<unknown>;
  ExportDeck?(deckID: string, format: ExportFormat): Promise<unknown>;
  Quiz?(deckID: string, n: number): Promise<unknown>;
  MarkAnswer?(cardID: number, given: string, judge: boolean): Promise<unknown>;
  RecordQuiz?(deckID: string, questions: number, correct: number): Promise<unknown>;
  QuizScores?(deckID: string): Promise<unknown>;
  StudyStats?(): Promise<unknown>;
  StartSummary?(req: SummaryRequest): Promise<unknown>;
  DocumentSections?(docID: string): Promise<unknown>;
  SaveDeck?(deckID: string, format: ExportFormat): Promise<unknown>;
}

/** The part of the Wails v2.9 JS runtime we use (wrapper/runtime.d.ts). */
interface WailsRuntime {
  EventsOn(name: string, cb: (...data: unknown[]) => void): () => void;
  BrowserOpenURL?(url: string): void;
  OnFileDrop(cb: (x: number, y: number, paths: string[]) => void, useDropTarget: boolean): void;
  OnFileDropOff(): void;
}

declare global {
  interface Window {
    go?: { app?: { App?: WailsApp } };
    runtime?: WailsRuntime;
  }
}

type Method = keyof WailsApp;

export class ApiError extends Error {
  constructor(
    message: string,
    readonly method: string,
    readonly status = 0,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const wailsApp = (): WailsApp | undefined => (typeof window === 'undefined' ? undefined : window.go?.app?.App);

/** Which transport is in use. Checked at call time: Wails injects its globals early, but never mind. */
export const transport = (): 'wails' | 'http' => (wailsApp() ? 'wails' : 'http');

/** A rejected Wails promise carries err.Error() (a string) or whatever ErrorFormatter made of it. */
function messageOf(reason: unknown): string {
  if (typeof reason === 'string') return reason;
  if (reason instanceof Error) return reason.message;
  if (reason && typeof reason === 'object') {
    const o = reason as Record<string, unknown>;
    if (typeof o.message === 'string') return o.message;
    if (typeof o.error === 'string') return o.error;
  }
  return 'Unknown error';
}

async function call<M extends Method>(method: M, ...args: Parameters<NonNullable<WailsApp[M]>>): Promise<unknown> {
  const app = wailsApp();
  if (app) {
    try {
      return await (app[method] as (...a: unknown[]) => Promise<unknown>)(...args);
    } catch (e) {
      throw new ApiError(messageOf(e), method);
    }
  }
  let res: Response;
  try {
    res = await fetch(`api/call/${method}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(args),
    });
  } catch {
    throw new ApiError('Carrel is not responding. Is it still running?', method);
  }
  return readJSON(res, method);
}

async function readJSON(res: Response, method: string): Promise<unknown> {
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    if (res.ok) throw new ApiError(`Unexpected reply to ${method}`, method, res.status);
  }
  if (!res.ok) {
    const msg = messageOf(body) !== 'Unknown error' ? messageOf(body) : text.trim() || res.statusText;
    throw new ApiError(msg || `HTTP ${res.status}`, method, res.status);
  }
  return body;
}

// ---- methods ---------------------------------------------------------------------

export const getStatus = async (): Promise<Status> => parse.status(await call('Status'));

export async function listDocuments(): Promise<Document[]> {
  const v = await call('ListDocuments');
  return (Array.isArray(v) ? v : []).map(parse.document).filter((d) => d.id);
}

export const addPaths = async (paths: string[]): Promise<AddResult> =>
  parse.addResult(await call('AddPaths', paths));

/** True when a native open dialog exists (desktop). In the browser use an <input type=file>. */
export const canAddDialog = (): boolean => transport() === 'wails';

export const addDialog = async (): Promise<AddResult> => parse.addResult(await call('AddDialog'));

/** Fetches a web page, a document at a URL, or a Hacker News or Reddit thread, and adds it. */
export const addURL = async (url: string): Promise<AddResult> => parse.addResult(await call('AddURL', url));
export const onlineSettings = async (): Promise<OnlineSettings> => parse.onlineSettings(await call('OnlineSettings'));
export const setOnlineSources = async (on: boolean): Promise<OnlineSettings> => parse.onlineSettings(await call('SetOnlineSources', on));

// ---- watched folders ------------------------------------------------------------------

const watched = (v: unknown): WatchedFolder => {
  const o = (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
  return { dir: typeof o.dir === 'string' ? o.dir : '', active: o.active === true, error: typeof o.error === 'string' ? o.error : '' };
};

export const watchFolder = async (dir: string): Promise<WatchedFolder> => watched(await call('WatchFolder', dir));

export const unwatchFolder = async (dir: string): Promise<void> => {
  await call('UnwatchFolder', dir);
};

export async function listWatched(): Promise<WatchedFolder[]> {
  const v = await call('ListWatched');
  return (Array.isArray(v) ? v : []).map(watched).filter((w) => w.dir);
}

export async function removeDocument(docID: string): Promise<void> {
  await call('RemoveDocument', docID);
}

/** Reads a document again from its file (OCR included); progress comes as library:changed. */
export async function rereadDocument(docID: string): Promise<void> {
  await call('RereadDocument', docID);
}

/** Where the words of a scanned (OCR'd) page are; no words on pages with a text layer. */
export const pageWords = async (docID: string, page: number): Promise<PageWords> => parsePageWords(await call('PageWords', docID, page));
/** A recording's timed text and where to play it (docs/bridge.md "Recordings"). */
export const transcript = async (docID: string): Promise<Transcript> => parseTranscript(await call('Transcript', docID));
/** How recordings are transcribed, and which programs are installed. */
export const mediaSettings = async (): Promise<MediaSettings> => parseMediaSettings(await call('MediaSettings'));
export const setMediaSettings = async (s: MediaSettings): Promise<MediaSettings> => parseMediaSettings(await call('SetMediaSettings', s));

export async function search(query: string, k: number, docIDs: string[] = []): Promise<Hit[]> {
  const v = await call('Search', query, k, docIDs);
  return (Array.isArray(v) ? v : []).map(parse.hit);
}

/** Starts an answer; it streams as answer:* events carrying the returned askID. */
export async function ask(question: string, docIDs: string[] = []): Promise<string> {
  const v = await call('Ask', question, docIDs);
  if (typeof v !== 'string' || !v) throw new ApiError('The backend returned no answer id', 'Ask');
  return v;
}

/**
 * Asks in a study session ('' starts a new one); streams like ask(). docIDs null keeps the
 * session's scope; a list ([]: the whole library) becomes its scope.
 */
export async function askInSession(sessionID: string, question: string, docIDs: string[] | null, overrideBudget = false): Promise<string> {
  const v = await call('AskInSession', sessionID, question, docIDs, overrideBudget);
  if (typeof v !== 'string' || !v) throw new ApiError('The backend returned no answer id', 'AskInSession');
  return v;
}

/** Asks again without the answer cache (the model answers; its answer replaces the cached one). */
export async function askFresh(sessionID: string, question: string, docIDs: string[] | null): Promise<string> {
  const id = await call('AskFresh', sessionID, question, docIDs, false);
  if (typeof id !== 'string' || !id) throw new ApiError('Unexpected reply to AskFresh', 'AskFresh');
  return id;
}

// Flashcards.
export const makeCards = async (sessionID: string, docIDs: string[]): Promise<MakeResult> => study.makeResult(await call('MakeCards', sessionID, docIDs));
export const makeModelCards = async (sessionID: string, docIDs: string[]): Promise<MakeResult> => study.makeResult(await call('MakeModelCards', sessionID, docIDs));
export const studyDecks = async (): Promise<Deck[]> => {
  const v = await call('StudyDecks');
  return Array.isArray(v) ? v.map(study.deck) : [];
};
export const dueCards = async (deckID: string, limit = 0): Promise<StudyCard[]> => study.cards(await call('DueCards', deckID, limit));
export const deckCards = async (deckID: string): Promise<StudyCard[]> => study.cards(await call('DeckCards', deckID));
export const dueByDocument = async (): Promise<Record<string, number>> => study.dueCounts(await call('DueByDocument'));
export const gradeCard = async (cardID: number, grade: number): Promise<StudyCard> => study.card(await call('GradeCard', cardID, grade));
export const editCard = async (cardID: number, front: string, back: string): Promise<StudyCard> => study.card(await call('EditCard', cardID, front, back));
export const suspendCard = async (cardID: number, suspended: boolean): Promise<void> => {
  await call('SuspendCard', cardID, suspended);
};
export const deleteCard = async (cardID: number): Promise<void> => {
  await call('DeleteCard', cardID);
};
export const quiz = async (deckID: string, n: number): Promise<Question[]> => study.questions(await call('Quiz', deckID, n));
/** Marks a short answer by its words and meaning; judge also asks the local chat model. */
export const markAnswer = async (cardID: number, given: string, judge = false): Promise<Marking> => study.marking(await call('MarkAnswer', cardID, given, judge));
export const recordQuiz = async (deckID: string, questions: number, correct: number): Promise<QuizScore> => study.quizScore(await call('RecordQuiz', deckID, questions, correct));
export const quizScores = async (deckID: string): Promise<QuizScore[]> => {
  const v = await call('QuizScores', deckID);
  return Array.isArray(v) ? v.map(study.quizScore) : [];
};
export const studyStats = async (): Promise<DeckStats[]> => {
  const v = await call('StudyStats');
  return Array.isArray(v) ? v.map(study.deckStats) : [];
};
/** Starts a summary (a document, a section or a selection); it streams as summary:* events carrying the returned id; cancel(id) stops it. */
export async function startSummary(req: SummaryRequest): Promise<string> {
  const v = await call('StartSummary', req);
  if (typeof v !== 'string' || !v) throw new ApiError('The backend returned no summary id', 'StartSummary');
  return v;
}
/** A document's outline sections, in reading order. */
export const documentSections = async (docID: string): Promise<string[]> => {
  const v = await call('DocumentSections', docID);
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
};
/** Desktop: saves a deck's export where the user picks; returns the path ('' if cancelled). */
export const saveDeck = async (deckID: string, format: ExportFormat): Promise<string> => String((await call('SaveDeck', deckID, format)) ?? '');
export const exportDeck = async (deckID: string, format: ExportFormat): Promise<string> => String((await call('ExportDeck', deckID, format)) ?? '');

export const getMemory = async (): Promise<MemorySettings> => recall.memorySettings(await call('Memory'));
export const setMemoryEnabled = async (on: boolean): Promise<MemorySettings> => recall.memorySettings(await call('SetMemoryEnabled', on));
export const addMemory = async (kind: MemoryKind, text: string): Promise<MemorySettings> => recall.memorySettings(await call('AddMemory', kind, text));
export const editMemory = async (id: number, text: string): Promise<MemorySettings> => recall.memorySettings(await call('EditMemory', id, text));
export const deleteMemory = async (id: number): Promise<MemorySettings> => recall.memorySettings(await call('DeleteMemory', id));

export async function listSessions(): Promise<Session[]> {
  const v = await call('ListSessions');
  return (Array.isArray(v) ? v : []).map(parse.session).filter((s) => s.id);
}

export const getSession = async (sessionID: string): Promise<SessionDetail> => parse.sessionDetail(await call('GetSession', sessionID));

export async function renameSession(sessionID: string, title: string): Promise<void> {
  await call('RenameSession', sessionID, title);
}

export async function deleteSession(sessionID: string): Promise<void> {
  await call('DeleteSession', sessionID);
}

/** The session as Markdown, with its references. */
export async function exportSession(sessionID: string): Promise<string> {
  const v = await call('ExportSession', sessionID);
  return typeof v === 'string' ? v : '';
}

/** Spending so far (cloud answers; local ones cost nothing). */
export const getMeter = async (): Promise<Meter> => parse.meter(await call('Meter'));

export const getCloudSettings = async (): Promise<CloudSettings> => parse.cloudSettings(await call('CloudSettings'));

/** Saves who answers, cloud models and the budget (keys go through setAPIKey). */
export const setCloudSettings = async (s: CloudSettings): Promise<CloudSettings> =>
  parse.cloudSettings(await call('SetCloudSettings', s));

/** Stores a key in the OS keyring (never in files or logs). */
export const setAPIKey = async (provider: ProviderName, key: string): Promise<CloudSettings> =>
  parse.cloudSettings(await call('SetAPIKey', provider, key));

export const deleteAPIKey = async (provider: ProviderName): Promise<CloudSettings> => parse.cloudSettings(await call('DeleteAPIKey', provider));

/** Every answer's metrics, in total and per day (newest first), for the stats view. */
export const getStats = async (): Promise<Stats> => parse.stats(await call('Stats'));

/** Chunk sizes per document type, in force and by default. */
export const getChunkSettings = async (): Promise<ChunkSettings> => parse.chunkSettings(await call('ChunkSettings'));

/**
 * Saves chunk sizes (documents added afterwards use them). A refused value rejects with
 * one "type.field: reason" line per problem (see chunkErrors).
 */
export const setChunkSettings = async (profiles: Partial<Record<DocumentType, Record<string, number>>>): Promise<ChunkSettings> =>
  parse.chunkSettings(await call('SetChunkSettings', profiles));

/** Cuts every ready document again with the sizes now in force; returns how many. */
export async function rechunkLibrary(): Promise<number> {
  const v = await call('RechunkLibrary');
  return v && typeof v === 'object' && typeof (v as { documents?: unknown }).documents === 'number' ? (v as { documents: number }).documents : 0;
}

/** Where the library lives. */
export const getLibraryFolder = async (): Promise<LibraryFolder> => parse.libraryFolder(await call('LibraryFolderInfo'));

/** Desktop only: the system's folder dialog; '' when cancelled. */
export async function chooseLibraryFolder(): Promise<string> {
  const v = await call('ChooseLibraryFolder');
  return typeof v === 'string' ? v : '';
}

/** Moves this library into dir (move) or opens the library in dir (a new one if empty). */
export const setLibraryFolder = async (dir: string, move: boolean): Promise<LibraryFolder> =>
  parse.libraryFolder(await call('SetLibraryFolder', dir, move));

/** Shows the log file's folder in the system's file manager (desktop); returns its path. */
export async function openLogFolder(): Promise<string> {
  const v = await call('OpenLogFolder');
  return typeof v === 'string' ? v : '';
}

export async function cancel(askID: string): Promise<void> {
  await call('Cancel', askID);
}

/** Ollama, its installed models and Carrel's suggestions. */
export const listModels = async (): Promise<Models> => parse.models(await call('ListModels'));

/** Starts the installed Ollama when it is not running; then lists the models. */
export const startOllama = async (): Promise<Models> => parse.models(await call('StartOllama'));

/** Starts downloading a model; progress streams as model:pull events carrying the returned id. */
export async function pullModel(name: string, insecure = false): Promise<string> {
  const v = await call('PullModel', name, insecure);
  if (typeof v !== 'string' || !v) throw new ApiError('The backend returned no download id', 'PullModel');
  return v;
}

export async function cancelPull(pullID: string): Promise<void> {
  await call('CancelPull', pullID);
}

/** Switches models ('' keeps one); saved in the library's settings. */
export const setModels = async (chatModel: string, embedModel: string): Promise<Status> =>
  parse.status(await call('SetModels', chatModel, embedModel));

/** Browser only: sends File objects to the library inbox; same result as AddPaths. */
export async function upload(files: File[]): Promise<AddResult> {
  const form = new FormData();
  for (const f of files) form.append('files', f, f.name);
  let res: Response;
  try {
    res = await fetch('api/upload', { method: 'POST', body: form });
  } catch {
    throw new ApiError('Carrel is not responding. Is it still running?', 'upload');
  }
  return parse.addResult(await readJSON(res, 'upload'));
}

/** URL of a document's original bytes, for pdf.js or a text view. */
export const fileURL = (docID: string): string => `files/${encodeURIComponent(docID)}`;

// ---- events ----------------------------------------------------------------------

const parsers: { [K in EventName]: (v: unknown) => EventMap[K] } = {
  'library:changed': parse.documentEvent,
  'answer:start': parse.answerStart,
  'answer:token': parse.answerToken,
  'answer:done': parse.answerDone,
  'answer:error': parse.answerError,
  'status:changed': parse.status,
  'model:pull': parse.pullEvent,
  'session:changed': parse.sessionEvent,
  'meter:changed': parse.meter,
  'library:switched': parse.libraryFolder,
  'document:open': parse.document,
  'library:known': parse.document,
  'memory:changed': recall.memorySettings,
  'summary:start': study.summaryStart,
  'summary:token': study.summaryToken,
  'summary:section': study.summaryPart,
  'summary:done': study.summaryDone,
  'summary:error': study.summaryError,
  'cards:progress': study.cardsProgress,
  'watch:synced': (v: unknown): WatchSynced => {
    const o = (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
    const strs = (x: unknown) => (Array.isArray(x) ? x.filter((s): s is string => typeof s === 'string') : []);
    return { dir: typeof o.dir === 'string' ? o.dir : '', ingested: Array.isArray(o.ingested) ? o.ingested : [], removed: strs(o.removed), removed_ids: strs(o.removed_ids) };
  },
};

type Listener = (data: never) => void;
const listeners = new Map<EventName, Set<Listener>>();

function dispatch<K extends EventName>(name: K, raw: unknown) {
  const set = listeners.get(name);
  if (!set?.size) return;
  const data = parsers[name](raw);
  for (const cb of [...set]) {
    try {
      (cb as (d: EventMap[K]) => void)(data);
    } catch (e) {
      console.error(`listener for ${name} failed`, e);
    }
  }
}

// HTTP: one shared EventSource, opened with the first listener and closed with the last.
export type Connection = 'connecting' | 'open' | 'lost';
let source: EventSource | null = null;
let connection: Connection = 'connecting';
let everOpened = false;
const connectionListeners = new Set<(c: Connection, reconnected: boolean) => void>();

function setConnection(c: Connection, reconnected = false) {
  connection = c;
  for (const cb of [...connectionListeners]) cb(c, reconnected);
}

function openSource() {
  if (source) return;
  const es = new EventSource('api/events');
  source = es;
  for (const name of EVENT_NAMES) {
    es.addEventListener(name, (ev) => {
      let raw: unknown;
      try {
        raw = JSON.parse((ev as MessageEvent<string>).data);
      } catch {
        return;
      }
      dispatch(name, raw);
    });
  }
  es.onopen = () => {
    const re = everOpened;
    everOpened = true;
    setConnection('open', re);
  };
  // EventSource reconnects by itself; after an outage the UI refetches state (see onConnection).
  es.onerror = () => {
    if (es.readyState !== EventSource.OPEN) setConnection('lost');
  };
}

function closeSourceIfIdle() {
  let n = 0;
  for (const s of listeners.values()) n += s.size;
  if (n === 0 && source) {
    source.close();
    source = null;
    everOpened = false;
  }
}

const wailsOff = new Map<EventName, () => void>();

/** Subscribes to a backend event; returns the unsubscribe function. */
export function on<K extends EventName>(name: K, cb: (data: EventMap[K]) => void): () => void {
  let set = listeners.get(name);
  if (!set) listeners.set(name, (set = new Set()));
  set.add(cb as Listener);

  const rt = typeof window !== 'undefined' ? window.runtime : undefined;
  if (transport() === 'wails' && rt) {
    if (!wailsOff.has(name)) wailsOff.set(name, rt.EventsOn(name, (data: unknown) => dispatch(name, data)));
  } else {
    openSource();
  }
  return () => {
    set.delete(cb as Listener);
    if (set.size === 0) {
      wailsOff.get(name)?.();
      wailsOff.delete(name);
    }
    closeSourceIfIdle();
  };
}

/**
 * Connection state of the event stream (HTTP only; the Wails bridge cannot drop).
 * `reconnected` is true when the stream came back after an outage: state may have
 * changed meanwhile, so callers refetch.
 */
export function onConnection(cb: (c: Connection, reconnected: boolean) => void): () => void {
  connectionListeners.add(cb);
  cb(transport() === 'wails' ? 'open' : connection, false);
  return () => connectionListeners.delete(cb);
}

/**
 * Desktop only: native file drop gives real paths (folders too). Returns an
 * unsubscribe, or null in the browser, where drops deliver File objects instead.
 */
export function onFileDrop(cb: (paths: string[]) => void): (() => void) | null {
  const rt = typeof window !== 'undefined' ? window.runtime : undefined;
  if (transport() !== 'wails' || !rt?.OnFileDrop) return null;
  rt.OnFileDrop((_x, _y, paths) => cb(Array.isArray(paths) ? paths.filter((p) => typeof p === 'string') : []), false);
  return () => rt.OnFileDropOff?.();
}

/** Opens a web link outside the app (the desktop webview must never navigate away). */
export function openExternal(url: string): void {
  if (!/^(https?:|mailto:)/i.test(url)) return;
  const rt = typeof window !== 'undefined' ? window.runtime : undefined;
  if (transport() === 'wails' && rt?.BrowserOpenURL) rt.BrowserOpenURL(url);
  else window.open(url, '_blank', 'noopener,noreferrer');
}
