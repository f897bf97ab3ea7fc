#!/usr/bin/env bash
# Cross-builds Carrel for Windows on Linux with Debian's mingw-w64 and NSIS, leaving
#   build/dist/carrel.exe                  the portable app (window and CLI in one binary)
#   build/dist/carrel-amd64-installer.exe  the NSIS installer (Start menu, desktop icon,
#                                          "Open with Carrel" for .pdf/.epub/.docx/.md,
#                                          uninstaller)
# cgo goes through mingw: SQLite (mattn/go-sqlite3) compiles with it; FAISS is not
# cross-built, the Windows build uses the pure-Go exact index (backend/index/flat).
# Usage: package-windows.sh VERSION   (frontend/dist must be built)
set -euo pipefail
version=${1:?usage: package-windows.sh VERSION}
cd "$(dirname "$0")/.."
# The wails CLI is a host (Linux) program: build it before CC points at mingw.
wails=$(go tool -n wails)
export CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc CXX=x86_64-w64-mingw32-g++
for tool in "$CC" makensis; do
  command -v "$tool" >/dev/null || { echo "package-windows: $tool missing (go tool task setup:windows)" >&2; exit 1; }
done
[ -f frontend/dist/index.html ] || { echo "package-windows: build frontend/dist first (go tool task frontend)" >&2; exit 1; }
# -s: the frontend is already built; -skipbindings: the TS bindings are checked in.
# Wails links with -H windowsgui and embeds build/windows (icon, manifest, version info).
# The version is stamped as on Linux (`carrel.exe --version`; test:windows checks it).
"$wails" build -platform windows/amd64 -nsis -webview2 download -s -skipbindings -trimpath \
  -ldflags "-X main.version=$version" -o carrel.exe
mkdir -p build/dist
cp build/bin/carrel.exe build/dist/carrel.exe
cp build/bin/Carrel-amd64-installer.exe build/dist/carrel-amd64-installer.exe
ls -l build/dist/carrel.exe build/dist/carrel-amd64-installer.exe | awk '{printf "%s  %.1f MB\n", $NF, $5/1e6}'
