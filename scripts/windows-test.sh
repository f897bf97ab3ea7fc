#!/usr/bin/env bash
# Runs the Windows build's CLI under wine64 and checks it finds what the Linux build finds.
# Usage: windows-test.sh LINUX_BINARY WINDOWS_EXE VERSION
#
# Both must say `carrel VERSION` to --version (wails.json's productVersion, stamped at build).
# Both builds ingest the same PDFs of the pdfcpu corpus into fresh libraries, then answer
# the same lexical searches (--json). The test fails unless the ingests give the same
# documents (doc id = hash of the bytes; pages; chunk counts; doc type; warnings) and every search
# the same hits in the same order: doc id, pages, offsets, and the chunk's text (the
# chunk id is the hash of that text), with BM25 scores equal to 1e-9.
# No Ollama is reachable (OLLAMA_HOST is a closed port), as for a user without one: the
# Windows-only vector index is compared with FAISS in backend/index/faiss instead.
#
# wine's first start in a new prefix takes a while (wineboot); the prefix is kept in the
# user cache (carrel-test/wine64-VERSION) and reused. Mono and Gecko are not installed.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
linux=$(readlink -f "$1")
exe=$(readlink -f "$2")
version=${3:?usage: windows-test.sh LINUX_BINARY WINDOWS_EXE VERSION}
# Debian's wine64 package keeps wine64 and wineserver in /usr/lib/wine (the wine package
# adds the /usr/bin wrappers).
export PATH="$PATH:/usr/lib/wine"
command -v wine64 >/dev/null || { echo "FAIL: wine64 missing (go tool task setup:windows)" >&2; exit 1; }

corpus=$(go list -m -f '{{.Dir}}' github.com/pdfcpu/pdfcpu)/pkg/testdata
pdfs=(Walden.pdf pike-stanford.pdf go.pdf adobe_errata.pdf TheGoProgrammingLanguageCh1.pdf)
queries=("goroutines and channels" "Walden pond woods" "garbage collector" "errata correction table"
  "interface method" "concurrency is not parallelism" "zzqxv nothing matches this")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/pdfs"
for p in "${pdfs[@]}"; do cp "$corpus/$p" "$work/pdfs/"; done

cache=${XDG_CACHE_HOME:-$HOME/.cache}/carrel-test
export WINEPREFIX=${CARREL_WINEPREFIX:-$cache/wine64-$(wine64 --version | tr -c 'A-Za-z0-9.-' _)}
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" # no Mono/Gecko install prompts
export WINEARCH=win64
# No OCR on either side: the wine prefix has no Tesseract, so the Linux run must not
# find one either (a scanned title page would otherwise add a chunk on Linux only).
export OLLAMA_HOST=127.0.0.1:9 CARREL_LIBRARY= CARREL_TESSERACT=/nonexistent/tesseract
mkdir -p "$(dirname "$WINEPREFIX")"
t0=$(date +%s.%N)
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  wine64 wineboot -i >/dev/null 2>&1 || true
  wineserver -w
fi
# wine 8 has no bcryptprimitives.dll, without which Go programs do not start: add the
# one function Go needs (see scripts/wine/bcryptprimitives.c).
sys32="$WINEPREFIX/drive_c/windows/system32"
if [ ! -f "$sys32/bcryptprimitives.dll" ]; then
  x86_64-w64-mingw32-gcc -O2 -shared -o "$sys32/bcryptprimitives.dll" "$repo/scripts/wine/bcryptprimitives.c" -ladvapi32
fi
t1=$(date +%s.%N)

win() { wine64 "$exe" "$@"; }
wpath() { echo "Z:$1"; } # wine maps / to drive Z:

for got in "$("$linux" --version)" "$(win --version | tr -d '\r')"; do
  [ "$got" = "carrel $version" ] || { echo "FAIL: --version says '$got', want 'carrel $version'" >&2; exit 1; }
done
echo "carrel.exe --version under wine: carrel $version, as the Linux build"

"$linux" --library "$work/lin" ingest "$work"/pdfs/*.pdf >"$work/lin-ingest.json" 2>"$work/lin-ingest.log"
winpdfs=()
for p in "$work"/pdfs/*.pdf; do winpdfs+=("$(wpath "$p")"); done
t2=$(date +%s.%N)
win --library "$(wpath "$work/win")" ingest "${winpdfs[@]}" >"$work/win-ingest.json" 2>"$work/win-ingest.log" || {
  echo "FAIL: carrel.exe ingest under wine exited $?"; cat "$work/win-ingest.log"; exit 1; }
t3=$(date +%s.%N)
i=0
for q in "${queries[@]}"; do
  "$linux" --library "$work/lin" search --json --mode lexical --k 10 "$q" >"$work/lin-$i.json"
  win --library "$(wpath "$work/win")" search --json --mode lexical --k 10 "$q" >"$work/win-$i.json" 2>"$work/win-$i.log" || {
    echo "FAIL: carrel.exe search under wine exited $?"; cat "$work/win-$i.log"; exit 1; }
  i=$((i + 1))
done
t4=$(date +%s.%N)

python3 - "$work" "${#queries[@]}" <<'PY'
import hashlib, json, sys
work, nq = sys.argv[1], int(sys.argv[2])
def lines(p):
    return [json.loads(l) for l in open(p) if l.strip()]
def doc(r):
    return (r["doc_id"], r["status"], r["pages"], r["chunks"], r.get("doc_type"), r.get("error"), r.get("warnings"))
lin, win = lines(f"{work}/lin-ingest.json"), lines(f"{work}/win-ingest.json")
if [doc(r) for r in lin] != [doc(r) for r in win]:
    sys.exit(f"FAIL: ingest differs:\n linux   {[doc(r) for r in lin]}\n windows {[doc(r) for r in win]}")
if not all(r["status"] == "inserted" and r["chunks"] > 0 for r in win):
    sys.exit(f"FAIL: not every document is ready with chunks: {[doc(r) for r in win]}")
total = 0
for i in range(nq):
    a, b = json.load(open(f"{work}/lin-{i}.json")), json.load(open(f"{work}/win-{i}.json"))
    key = lambda h: (h["doc_id"], h["page"], h["page_end"], h["start"], h["end"],
                     hashlib.sha256(h["text"].encode()).hexdigest()[:16], h["match_type"])
    if [key(h) for h in a] != [key(h) for h in b]:
        sys.exit(f"FAIL: query {i}: hits differ:\n linux   {[key(h) for h in a]}\n windows {[key(h) for h in b]}")
    for x, y in zip(a, b):
        if abs(x["score"] - y["score"]) > 1e-9 or abs(x["lexical_score"] - y["lexical_score"]) > 1e-9:
            sys.exit(f"FAIL: query {i}: scores differ: {x['score']} vs {y['score']}")
    total += len(a)
if total == 0:
    sys.exit("FAIL: no query found anything; the comparison proves nothing")
print(f"{len(win)} documents ({sum(r['pages'] for r in win)} pages, {sum(r['chunks'] for r in win)} chunks), "
      f"{nq} searches, {total} hits: identical on Windows (wine64) and Linux")
PY
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v e="$t4" -v n="${#queries[@]}" 'BEGIN {
  printf "times: wine prefix %.1fs, ingest linux %.1fs, ingest windows %.1fs, %d searches on both %.1fs\n", b-a, c-b, d-c, n, e-d }'
echo "PASS: carrel.exe under wine64 matches the Linux build"
