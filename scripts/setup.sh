#!/usr/bin/env bash
# Installs the given Debian/Ubuntu packages when any is missing; on macOS prints the
# Homebrew line instead. Usage: setup.sh PKG...
set -euo pipefail
case "$(uname -s)" in
Darwin)
  echo "On macOS install the libraries with Homebrew:  brew install faiss openblas pkg-config"
  echo "(WebKit ships with macOS; Wails needs the Xcode command line tools: xcode-select --install)"
  exit 0 ;;
Linux) ;;
*)
  echo "Automatic setup supports Debian/Ubuntu and macOS; on Windows see docs/building.md."
  exit 0 ;;
esac
if ! command -v apt-get >/dev/null; then
  echo "No apt-get: install the equivalents of: $*" >&2
  exit 0
fi
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "Installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Wait for another apt (a parallel build, the desktop's updater) instead of failing.
lock=(-o DPkg::Lock::Timeout=900)
$sudo apt-get "${lock[@]}" update -qq
$sudo apt-get "${lock[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
