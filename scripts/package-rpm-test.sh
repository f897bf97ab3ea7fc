#!/usr/bin/env bash
# RPM package test, on Debian with Debian's rpm: installs the .rpm into a throwaway root
# (its own rpm database; no rpm-based machine is at hand), checks the package's
# metadata, that rpm verifies every installed file against the package's file list
# (digest, size, mode), the same files, desktop entry, MIME types and man page as the
# .deb test, and that the binary it installed runs; then erases it and checks that a
# user's library in that root was left alone.
# Dependencies cannot be resolved here (no Fedora or openSUSE repository): the test
# checks instead that the package requires, by soname, exactly the libraries the binary
# links, which is how rpm-based distributions name them (their library packages provide
# SONAME()(64bit) whatever the package is called), and that rpm's install refuses for
# those and nothing else (an rpmlib feature this rpm lacks would show up there).
# Usage: package-rpm-test.sh RPM DEB VERSION
set -euo pipefail
rpmfile=$(realpath "${1:?usage: package-rpm-test.sh RPM DEB VERSION}")
deb=$(realpath "${2:?usage: package-rpm-test.sh RPM DEB VERSION}")
version=${3:?usage: package-rpm-test.sh RPM DEB VERSION}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
fail() { echo "FAIL: rpm: $*" >&2; exit 1; }
# Debian's rpm warns that it is not Debian's installer; the database is Fedora's path.
rpmr() { rpm --root "$root" --dbpath /var/lib/rpm "$@" 2> >(grep -v -e 'use Alien instead' -e 'you know what you are doing' >&2); }

# 1. Metadata.
meta=$(rpm -qp --qf '%{NAME} %{VERSION} %{RELEASE} %{ARCH} %{OS}\n' "$rpmfile" 2>/dev/null)
[ "$meta" = "carrel $version 1 x86_64 linux" ] || fail "metadata is '$meta', want 'carrel $version 1 x86_64 linux'"
summary=$(rpm -qp --qf '%{SUMMARY}' "$rpmfile" 2>/dev/null)
[ -n "$summary" ] || fail "no summary"
scripts=$(rpm -qp --scripts "$rpmfile" 2>/dev/null)
# No scriptlets: rpm distributions refresh the desktop and icon caches by file triggers
# on /usr/share/applications and the hicolor theme (step 2 does what they do).
[ -z "$scripts" ] || fail "the package has scriptlets this test does not run: $scripts"

# 2. Install into the throwaway root. Without --nodeps rpm must refuse for exactly the
# sonames (the root provides none of them), so nothing else is missing.
rpmr --initdb
refused=$(rpmr -i "$rpmfile" 2>&1 >/dev/null | sed -n 's/^[[:space:]]*\(.*\) is needed by carrel-.*/\1/p' | sort || true)
rpmr -i --nodeps "$rpmfile"
# Requires: one soname capability per library the binary links, no Debian names.
want=$(objdump -p "$root/usr/bin/carrel" | awk '$1 == "NEEDED" { print $2 "()(64bit)" }' | sort)
[ -n "$want" ] || fail "objdump found no linked libraries in the packaged binary"
requires=$(rpm -qp --requires "$rpmfile" 2>/dev/null | grep -v '^rpmlib(' | sort)
[ "$requires" = "$want" ] || fail "Requires differ from the binary's linked libraries:
$(diff <(echo "$want") <(echo "$requires") || true)"
debdeps=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/[ (].*//; s/^ *//' | grep .)
while read -r d; do
  if grep -qx "$d" <<<"$requires"; then fail "Requires names Debian's package $d"; fi
done <<<"$debdeps"
for r in $(rpm -qp --recommends "$rpmfile" 2>/dev/null | tr -d '()' | sed 's/ or /\n/g'); do
  if grep -qx "$r" <<<"$debdeps"; then fail "Recommends names Debian's package $r"; fi
  if [[ $r == *-dev || $r == *-devel ]]; then fail "Recommends a development package: $r"; fi
done
[ "$refused" = "$want" ] || fail "rpm refused for other requirements than the sonames:
$(diff <(echo "$want") <(echo "$refused") || true)"
[ "$(rpmr -q carrel)" = "carrel-$version-1.x86_64" ] || fail "rpm -q does not list carrel-$version-1.x86_64 in the root"
# rpm -V compares every installed file with the package's file list: digest, size, mode,
# owner, links. No output means all match.
bad=$(rpmr -V --nodeps carrel || true)
[ -z "$bad" ] || fail "rpm -V found files that do not match the package: $bad"
files=$(rpmr -ql carrel)
debfiles=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' | sort)
[ "$(sort <<<"$files")" = "$debfiles" ] || fail "the .rpm and the .deb carry different files:
$(diff <(echo "$debfiles") <(sort <<<"$files") || true)"
for f in /usr/bin/carrel /usr/share/applications/carrel.desktop /usr/share/man/man1/carrel.1.gz \
  /usr/share/icons/hicolor/{16x16,22x22,24x24,32x32,48x48,64x64,128x128,256x256,512x512}/apps/carrel.png; do
  grep -qx "$f" <<<"$files" || fail "the package has no $f"
  [ -f "$root$f" ] || fail "$f is in the file list but not installed"
done
[ "$(stat -c %a "$root/usr/bin/carrel")" = 755 ] || fail "/usr/bin/carrel is mode $(stat -c %a "$root/usr/bin/carrel"), want 755"
for s in 16 22 24 32 48 64 128 256 512; do
  got=$(identify -format '%wx%h' "$root/usr/share/icons/hicolor/${s}x${s}/apps/carrel.png")
  [ "$got" = "${s}x${s}" ] || fail "the ${s}x${s} icon is $got"
done
desktop-file-validate "$root/usr/share/applications/carrel.desktop" || fail "the desktop entry is not valid"
# What Fedora's desktop-file-utils file trigger runs on install.
update-desktop-database "$root/usr/share/applications"
for m in application/pdf application/epub+zip application/vnd.openxmlformats-officedocument.wordprocessingml.document text/markdown; do
  awk -F= -v m="$m" '$1 == m && $2 ~ /carrel\.desktop/ {found = 1} END {exit !found}' "$root/usr/share/applications/mimeinfo.cache" || fail "$m is not associated with carrel.desktop"
done
zcat "$root/usr/share/man/man1/carrel.1.gz" | grep -q '^\.SH NAME' || fail "the man page is not a man page"
# The installed binary runs, and every library it loads is found (this machine's).
got=$("$root/usr/bin/carrel" --version)
[ "$got" = "carrel $version" ] || fail "the installed carrel --version says '$got', want 'carrel $version'"
if ldd "$root/usr/bin/carrel" | grep -q "not found"; then fail "missing libraries: $(ldd "$root/usr/bin/carrel" | grep 'not found')"; fi
echo "package test: rpm: metadata, $(wc -l <<<"$want") soname requirements (= the binary's linked libraries), no scriptlets; installed into a throwaway root: rpm -V clean, the .deb's files, icons, desktop entry, MIME types, man page ok; $got"

# 3. Erase: the program goes, a user's library in the root stays.
lib=$root/home/student/.config/Carrel/library
mkdir -p "$lib"
echo "a note" >"$lib/note.md"
sum=$(sha256sum "$lib/note.md")
rm -f "$root/usr/share/applications/mimeinfo.cache" # the trigger's, not the package's
rpmr -e carrel
if rpmr -q carrel >/dev/null 2>&1; then fail "carrel is still installed in the root after rpm -e"; fi
for f in $files; do [ ! -e "$root$f" ] || fail "$f is still there after rpm -e"; done
[ "$(sha256sum "$lib/note.md")" = "$sum" ] || fail "erasing the package changed a user's library"
echo "package test: rpm: erased; its $(wc -l <<<"$files") files gone, a user's library untouched"
