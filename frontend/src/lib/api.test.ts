import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as api from './api';

/** A stand-in EventSource (jsdom has none) that tests can push events through. */
class FakeEventSource {
  static instances: FakeEventSource[] = [];
  static readonly OPEN = 1;
  readyState = 0;
  listeners = new Map<string, ((e: MessageEvent) => void)[]>();
  onopen: (() => void) | null = null;
  onerror: (() => void) | null = null;
  closed = false;
  constructor(readonly url: string) {
    FakeEventSource.instances.push(this);
  }
  addEventListener(name: string, cb: (e: MessageEvent) => void) {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), cb]);
  }
  emit(name: string, data: string) {
    for (const cb of this.listeners.get(name) ?? []) cb({ data } as MessageEvent);
  }
  close() {
    this.closed = true;
  }
}

afterEach(() => {
  delete window.go;
  delete window.runtime;
  vi.unstubAllGlobals();
  FakeEventSource.instances = [];
});

describe('HTTP transport', () => {
  let fetchMock: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    fetchMock = vi.fn();
    vi.stubGlobal('fetch', fetchMock);
    vi.stubGlobal('EventSource', FakeEventSource);
  });

  const reply = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status });

  it('posts the arguments as a JSON array to /api/call/{Method}', async () => {
    fetchMock.mockResolvedValue(reply(200, 'ask-1'));
    expect(api.transport()).toBe('http');
    await expect(api.ask('why?', ['d1'])).resolves.toBe('ask-1');
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe('api/call/Ask');
    expect(init.method).toBe('POST');
    expect(JSON.parse(init.body)).toEqual(['why?', ['d1']]);
  });

  it('turns {"error"} replies into ApiError with the message', async () => {
    fetchMock.mockResolvedValue(reply(422, { error: 'no such document' }));
    const err = await api.removeDocument('x').catch((e) => e);
    expect(err).toBeInstanceOf(api.ApiError);
    expect(err.message).toBe('no such document');
    expect(err.status).toBe(422);
  });

  it('normalises results: null slices, missing fields', async () => {
    fetchMock.mockResolvedValueOnce(reply(200, null));
    await expect(api.listDocuments()).resolves.toEqual([]);
    fetchMock.mockResolvedValueOnce(reply(200, { mode: 'lexical', ollama: null }));
    const s = await api.getStatus();
    expect(s.mode).toBe('lexical');
    expect(s.ollama.models).toEqual([]);
  });

  it('reports an unreachable backend in plain words', async () => {
    fetchMock.mockRejectedValue(new TypeError('Failed to fetch'));
    await expect(api.getStatus()).rejects.toThrow(/not responding/);
  });

  it('uploads files as multipart field "files"', async () => {
    fetchMock.mockResolvedValue(reply(200, { queued: 2 }));
    const files = [new File(['a'], 'a.pdf'), new File(['b'], 'b.md')];
    await expect(api.upload(files)).resolves.toEqual({ queued: 2 });
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe('api/upload');
    const form = init.body as FormData;
    expect(form.getAll('files').map((f) => (f as File).name)).toEqual(['a.pdf', 'b.md']);
  });

  it('shares one EventSource, parses events, and closes it with the last listener', () => {
    const seen: string[] = [];
    const off1 = api.on('answer:token', (d) => seen.push(d.text));
    const off2 = api.on('library:changed', (d) => seen.push(`${d.id}:${d.status}`));
    expect(FakeEventSource.instances).toHaveLength(1);
    const es = FakeEventSource.instances[0];
    expect(es.url).toBe('api/events');
    es.emit('answer:token', JSON.stringify({ ask_id: 'a', text: 'Hel' }));
    es.emit('answer:token', 'not json');
    es.emit('library:changed', JSON.stringify({ id: 'd', status: 'removed' }));
    expect(seen).toEqual(['Hel', 'd:removed']);
    off1();
    expect(es.closed).toBe(false);
    off2();
    expect(es.closed).toBe(true);
  });

  it('pulls models and delivers model:pull progress', async () => {
    fetchMock.mockResolvedValueOnce(reply(200, 'pull-7'));
    await expect(api.pullModel('127.0.0.1:5000/library/tiny:latest', true)).resolves.toBe('pull-7');
    expect(JSON.parse(fetchMock.mock.calls[0][1].body)).toEqual(['127.0.0.1:5000/library/tiny:latest', true]);
    fetchMock.mockResolvedValueOnce(reply(200, ''));
    await expect(api.pullModel('x')).rejects.toThrow(/no download id/);
    const seen: number[] = [];
    const off = api.on('model:pull', (d) => seen.push(d.completed));
    FakeEventSource.instances[0].emit('model:pull', JSON.stringify({ pull_id: 'pull-7', digest: 'sha256:a', total: 10, completed: 4 }));
    expect(seen).toEqual([4]);
    off();
  });

  it('has no native file drop or dialog', () => {
    expect(api.onFileDrop(() => {})).toBeNull();
    expect(api.canAddDialog()).toBe(false);
  });
});

describe('Wails transport', () => {
  function installWails() {
    const handlers = new Map<string, (...d: unknown[]) => void>();
    const off = vi.fn();
    const App = {
      Status: vi.fn().mockResolvedValue({ mode: 'full', chat_model: 'llama3.2:3b' }),
      ListDocuments: vi.fn().mockResolvedValue(null),
      AddPaths: vi.fn().mockResolvedValue({ queued: 3 }),
      AddDialog: vi.fn().mockResolvedValue({ queued: 0 }),
      RemoveDocument: vi.fn().mockRejectedValue('document is being ingested'),
      Search: vi.fn().mockResolvedValue([]),
      Ask: vi.fn().mockResolvedValue('ask-9'),
      Cancel: vi.fn().mockRejectedValue({ code: 'not_found', message: 'no running answer' }),
      ListModels: vi.fn().mockResolvedValue({ reachable: true, models: null, suggested: [{ name: 'x', role: 'embed' }] }),
      StartOllama: vi.fn().mockRejectedValue('ollama is not installed'),
      PullModel: vi.fn().mockResolvedValue('pull-1'),
      CancelPull: vi.fn().mockResolvedValue(null),
      SetModels: vi.fn().mockResolvedValue({ mode: 'lexical', chat_model: 'tiny' }),
      AskInSession: vi.fn().mockResolvedValue('ask-10'),
      ListSessions: vi.fn().mockResolvedValue([{ id: 's1', title: 'Ponds', messages: 2 }, { title: 'no id' }]),
      GetSession: vi.fn().mockResolvedValue({ id: 's1', messages: [{ id: 1, question: 'q', status: 'weird', citations: null }] }),
      RenameSession: vi.fn().mockResolvedValue(null),
      DeleteSession: vi.fn().mockResolvedValue(null),
      ExportSession: vi.fn().mockResolvedValue('# Ponds'),
      CloudSettings: vi.fn().mockResolvedValue({ provider: 'weird', keys: { openai: 'keyring', anthropic: 'nope' }, budget_usd: 5, prices: { 'gpt-x': { input: 1, output: 2 } } }),
      SetCloudSettings: vi.fn().mockImplementation(async (s) => s),
      SetAPIKey: vi.fn().mockRejectedValue('no keyring here: set OPENAI_API_KEY instead'),
      DeleteAPIKey: vi.fn().mockResolvedValue({ provider: 'openai' }),
      PageWords: vi.fn().mockResolvedValue({ ocr: true, width: 612, height: 792, words: [] }),
      Meter: vi.fn().mockResolvedValue({ total_usd: 0.42, answers: '3', budget_usd: 1, budget_used: 0.42, provider: 'openai' }),
      WatchFolder: vi.fn().mockResolvedValue({ dir: '/w', active: true, error: '' }),
      UnwatchFolder: vi.fn().mockResolvedValue(null),
      ListWatched: vi.fn().mockResolvedValue([{ dir: '/w', active: 'yes' }, { dir: 7 }]),
      Stats: vi.fn().mockResolvedValue({ total: { questions: 2, cache_hits: 1, retrieval: null }, days: null }),
      ChunkSettings: vi.fn().mockResolvedValue({ doc_types: ['paper', 3], profiles: { paper: { target: 1200, overlap: 0.15, name: 'x' } }, defaults: null, fields: [{ name: 'target', integer: true, min: 1, max: 9 }, {}] }),
      SetChunkSettings: vi.fn().mockRejectedValue('paper.min: must be at most the target (1200)'),
      LibraryFolderInfo: vi.fn().mockResolvedValue({ dir: '/lib', documents: 2, can_choose: true }),
      ChooseLibraryFolder: vi.fn().mockResolvedValue(null),
      SetLibraryFolder: vi.fn().mockResolvedValue({ dir: '/new', remembered: true }),
      RechunkLibrary: vi.fn().mockResolvedValue({ documents: 3 }),
    };
    let drop: ((x: number, y: number, paths: string[]) => void) | null = null;
    window.go = { app: { App } };
    window.runtime = {
      EventsOn: vi.fn((name: string, cb: (...d: unknown[]) => void) => {
        handlers.set(name, cb);
        return off;
      }),
      OnFileDrop: vi.fn((cb) => {
        drop = cb;
      }),
      OnFileDropOff: vi.fn(),
    };
    return { App, handlers, off, drop: (paths: string[]) => drop?.(1, 2, paths) };
  }

  it('calls the bound methods directly', async () => {
    const w = installWails();
    expect(api.transport()).toBe('wails');
    expect((await api.getStatus()).chat_model).toBe('llama3.2:3b');
    await expect(api.addPaths(['/a.pdf', '/dir'])).resolves.toEqual({ queued: 3 });
    expect(w.App.AddPaths).toHaveBeenCalledWith(['/a.pdf', '/dir']);
    await expect(api.ask('q', [])).resolves.toBe('ask-9');
    await expect(api.listDocuments()).resolves.toEqual([]);
    expect(api.canAddDialog()).toBe(true);
  });

  it('lists, pulls, cancels and switches models', async () => {
    const w = installWails();
    const m = await api.listModels();
    expect(m.reachable).toBe(true);
    expect(m.models).toEqual([]);
    expect(m.suggested[0]).toMatchObject({ name: 'x', role: 'embed', default: false });
    await expect(api.pullModel('tiny')).resolves.toBe('pull-1');
    expect(w.App.PullModel).toHaveBeenCalledWith('tiny', false);
    await api.cancelPull('pull-1');
    expect(w.App.CancelPull).toHaveBeenCalledWith('pull-1');
    expect((await api.setModels('tiny', '')).mode).toBe('lexical');
    expect(w.App.SetModels).toHaveBeenCalledWith('tiny', '');
    await expect(api.startOllama()).rejects.toThrow('ollama is not installed');
  });

  it('asks in sessions, lists, opens, renames, deletes and exports them', async () => {
    const w = installWails();
    await expect(api.askInSession('', 'q', null)).resolves.toBe('ask-10');
    expect(w.App.AskInSession).toHaveBeenCalledWith('', 'q', null, false);
    const list = await api.listSessions();
    expect(list.map((s) => [s.id, s.messages])).toEqual([['s1', 2]]);
    const d = await api.getSession('s1');
    expect(d.messages[0]).toMatchObject({ question: 'q', status: 'done', citations: [] });
    await api.renameSession('s1', 'Walden');
    expect(w.App.RenameSession).toHaveBeenCalledWith('s1', 'Walden');
    await api.deleteSession('s1');
    await expect(api.exportSession('s1')).resolves.toBe('# Ponds');
    const cs = await api.getCloudSettings();
    expect(cs).toMatchObject({ provider: 'ollama', budget_usd: 5, keys: { openai: 'keyring', anthropic: '' }, prices: { 'gpt-x': { input: 1, output: 2, cached_input: 0 } } });
    await expect(api.setCloudSettings({ ...cs, provider: 'openai' })).resolves.toMatchObject({ provider: 'openai', budget_usd: 5 });
    await expect(api.setAPIKey('openai', 'sk-x')).rejects.toThrow(/OPENAI_API_KEY/);
    const m = await api.getMeter();
    expect(m).toMatchObject({ total_usd: 0.42, answers: 3, budget_used: 0.42, provider: 'openai', warning: '', prompt_tokens: 0 });
  });

  it('reads stats, chunk settings and the library folder into complete values', async () => {
    const w = installWails();
    const st = await api.getStats();
    expect(st.days).toEqual([]);
    expect(st.total).toMatchObject({ questions: 2, cache_hits: 1, cache_misses: 0, retrieval: { n: 0, p50_ms: 0 } });
    const cs = await api.getChunkSettings();
    expect(cs).toEqual({
      doc_types: ['paper'],
      profiles: { paper: { target: 1200, overlap: 0.15 } },
      defaults: {},
      fields: [{ name: 'target', integer: true, min: 1, max: 9 }],
      error: '',
    });
    await expect(api.setChunkSettings({ paper: { min: 2000 } })).rejects.toThrow('paper.min: must be at most');
    expect(w.App.SetChunkSettings).toHaveBeenCalledWith({ paper: { min: 2000 } });
    await expect(api.getLibraryFolder()).resolves.toEqual({ dir: '/lib', standard: '', remembered: false, documents: 2, can_choose: true });
    await expect(api.chooseLibraryFolder()).resolves.toBe('');
    await expect(api.setLibraryFolder('/new', true)).resolves.toMatchObject({ dir: '/new', remembered: true });
    expect(w.App.SetLibraryFolder).toHaveBeenCalledWith('/new', true);
    await expect(api.rechunkLibrary()).resolves.toBe(3);
  });

  it('carries the rejection message, string or formatted object', async () => {
    installWails();
    await expect(api.removeDocument('d')).rejects.toThrow('document is being ingested');
    await expect(api.cancel('x')).rejects.toThrow('no running answer');
  });

  it('subscribes once per event name through EventsOn and unsubscribes', () => {
    const w = installWails();
    const got: string[] = [];
    const off1 = api.on('answer:token', (d) => got.push(d.text));
    const off2 = api.on('answer:token', (d) => got.push(d.text.toUpperCase()));
    expect(window.runtime!.EventsOn).toHaveBeenCalledTimes(1);
    w.handlers.get('answer:token')!({ ask_id: 'a', text: 'ok' });
    expect(got).toEqual(['ok', 'OK']);
    off1();
    expect(w.off).not.toHaveBeenCalled();
    off2();
    expect(w.off).toHaveBeenCalledTimes(1);
  });

  it('delivers native file drops as paths', () => {
    const w = installWails();
    const paths: string[][] = [];
    const off = api.onFileDrop((p) => paths.push(p));
    expect(off).toBeTypeOf('function');
    expect(window.runtime!.OnFileDrop).toHaveBeenCalledWith(expect.any(Function), false);
    w.drop(['/home/me/paper.pdf']);
    expect(paths).toEqual([['/home/me/paper.pdf']]);
    off!();
    expect(window.runtime!.OnFileDropOff).toHaveBeenCalled();
  });
});

describe('openExternal', () => {
  it('uses BrowserOpenURL in the desktop app, only for web and mail links', () => {
    const open = vi.fn();
    window.go = { app: { App: {} as never } };
    window.runtime = { EventsOn: vi.fn(), OnFileDrop: vi.fn(), OnFileDropOff: vi.fn(), BrowserOpenURL: open };
    api.openExternal('https://example.com/a');
    api.openExternal('mailto:me@example.com');
    api.openExternal('javascript:alert(1)');
    api.openExternal('file:///etc/passwd');
    expect(open.mock.calls).toEqual([['https://example.com/a'], ['mailto:me@example.com']]);
  });

  it('opens a new browsing context without opener in the browser', () => {
    const open = vi.fn();
    vi.stubGlobal('open', open);
    api.openExternal('http://example.com/');
    api.openExternal('data:text/html,x');
    expect(open.mock.calls).toEqual([['http://example.com/', '_blank', 'noopener,noreferrer']]);
  });
});
