#!/usr/bin/env bash
# What each module costs in the desktop binary: builds it with its symbol table (the
# release build strips it), sums `go tool nm -size` per module, and prints the largest.
# Symbols cover code and data; the runtime's per-function tables (pclntab) and the
# section padding are not attributed, so the rows sum to less than the file.
# Usage: binsize.sh [TOP]   (frontend/dist must be built)
set -euo pipefail
cd "$(dirname "$0")/.."
top=${1:-25}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -trimpath -tags desktop,production -o "$out/carrel" .
go list -m -f '{{.Path}}' all >"$out/modules"
go tool nm -size -sort size "$out/carrel" >"$out/nm"
awk 'NR == FNR { mods[++n] = $0; next }
  {
    size = $2; name = $4
    for (i = 5; i <= NF; i++) name = name " " $i
    mod = ""
    for (i = 1; i <= n; i++) {
      m = mods[i]
      if ((index(name, m ".") == 1 || index(name, m "/") == 1) && length(m) > length(mod)) mod = m
    }
    if (mod == "") {
      if (name ~ /^(runtime|internal|sync|syscall|reflect|os|net|crypto|encoding|math|strings|strconv|time|unicode|bytes|bufio|fmt|io|sort|slices|maps|context|errors|regexp|compress|hash|html|mime|path|text|image|embed|vendor|log|go\.|container|archive|database|debug|iter|unique|weak|structs|cmp|expvar|flag|plugin|testing)[.\/]/) mod = "(Go standard library)"
      else if (name ~ /^(type:|go:|runtime\.)/) mod = "(Go runtime types and tables)"
      else mod = "(C: SQLite, FAISS, WebKit glue) and other"
    }
    bytes[mod] += size
    total += size
  }
  END {
    for (m in bytes) printf "%12d  %5.1f MB  %s\n", bytes[m], bytes[m] / 1e6, m
    printf "%12d  %5.1f MB  (all symbols)\n", total, total / 1e6
  }' "$out/modules" "$out/nm" | sort -rn | head -n "$((top + 1))"
echo "file: $(stat -c %s "$out/carrel") bytes with symbols"
