#!/usr/bin/env bash
# macOS release steps, run by .github/workflows/release.yml on GitHub's macOS runners
# (they cannot run on the Linux machine Carrel is developed on; see docs/release.md).
#
#   macos-app.sh build ARCH [nofaiss]   build build/bin/Carrel.app for arm64 or amd64 with
#                                       Homebrew's faiss, its dylibs copied into the bundle
#   macos-app.sh universal A.app B.app OUT.app   merge two single-arch bundles with lipo
#   macos-app.sh sign APP               Developer ID signature with the hardened runtime if
#                                       MACOS_SIGN_IDENTITY is set, else ad-hoc
#   macos-app.sh dmg APP OUT.dmg        a compressed disk image with an Applications link
#   macos-app.sh notarize DMG           notarytool submit --wait and staple, from APPLE_ID,
#                                       APPLE_TEAM_ID and APPLE_APP_PASSWORD
set -euo pipefail
cd "$(dirname "$0")/.."

exe_of() { /usr/libexec/PlistBuddy -c 'Print CFBundleExecutable' "$1/Contents/Info.plist"; }

case "${1:-}" in
build)
  arch=$2 tags=""
  if [ "${3:-}" = nofaiss ]; then
    tags="-tags nofaiss" # the pure-Go exact index (backend/index/flat): no dylibs to bundle
  else
    brew list faiss >/dev/null 2>&1 || brew install faiss
    brew list libomp >/dev/null 2>&1 || brew install libomp
    brew list dylibbundler >/dev/null 2>&1 || brew install dylibbundler
    prefix=$(brew --prefix) omp=$(brew --prefix libomp)
    export CGO_CPPFLAGS="-I$prefix/include -I$omp/include"
    export CGO_LDFLAGS="-L$prefix/lib -L$omp/lib"
  fi
  export CGO_ENABLED=1 MACOSX_DEPLOYMENT_TARGET=11.0
  go tool task frontend
  version=$(sed -n 's/.*"productVersion": *"\([^"]*\)".*/\1/p' wails.json) # as Taskfile.yml's VERSION
  # shellcheck disable=SC2086
  go tool wails build -platform "darwin/$arch" -s -skipbindings -trimpath $tags \
    -ldflags "-X main.version=$version"
  app=$(ls -d build/bin/*.app)
  if [ -z "$tags" ]; then
    # Homebrew's libfaiss, libomp and OpenBLAS are dylibs: copy them into the bundle and
    # point the executable at them, so the app runs without Homebrew.
    dylibbundler -od -b -x "$app/Contents/MacOS/$(exe_of "$app")" \
      -d "$app/Contents/Frameworks" -p @executable_path/../Frameworks/
  fi
  otool -L "$app/Contents/MacOS/$(exe_of "$app")"
  ;;
universal)
  a=$2 b=$3 out=$4
  rm -rf "$out"
  ditto "$a" "$out"
  # Every Mach-O file in the bundle (the executable and the bundled dylibs) becomes fat.
  while IFS= read -r -d '' f; do
    rel=${f#"$a"/}
    if file "$f" | grep -q Mach-O; then
      [ -f "$b/$rel" ] || { echo "universal: $rel is only in $a" >&2; exit 1; }
      lipo -create "$f" "$b/$rel" -output "$out/$rel"
    fi
  done < <(find "$a" -type f -print0)
  lipo -info "$out/Contents/MacOS/$(exe_of "$out")"
  ;;
sign)
  app=$2
  if [ -n "${MACOS_SIGN_IDENTITY:-}" ]; then
    # Dylibs first, then the app: --deep does not apply the hardened runtime options.
    find "$app/Contents/Frameworks" -name '*.dylib' -exec codesign --force --timestamp \
      --options runtime -s "$MACOS_SIGN_IDENTITY" {} \; 2>/dev/null || true
    codesign --force --timestamp --options runtime --entitlements build/darwin/entitlements.plist \
      -s "$MACOS_SIGN_IDENTITY" "$app"
  else
    echo "No MACOS_SIGN_IDENTITY: ad-hoc signature (runs after the user allows it; cannot be notarised)"
    codesign --force --deep -s - "$app"
  fi
  codesign --verify --deep --strict --verbose=2 "$app"
  ;;
dmg)
  app=$2 out=$3
  stage=$(mktemp -d)
  ditto "$app" "$stage/$(basename "$app")"
  ln -s /Applications "$stage/Applications"
  hdiutil create -volname Carrel -srcfolder "$stage" -ov -format UDZO "$out"
  rm -rf "$stage"
  ;;
notarize)
  dmg=$2
  for v in APPLE_ID APPLE_TEAM_ID APPLE_APP_PASSWORD MACOS_SIGN_IDENTITY; do
    if [ -z "${!v:-}" ]; then
      echo "notarize: $v is not set; skipping notarisation (the app is not Developer ID signed)"
      exit 0
    fi
  done
  codesign --force --timestamp -s "$MACOS_SIGN_IDENTITY" "$dmg"
  xcrun notarytool submit "$dmg" --apple-id "$APPLE_ID" --team-id "$APPLE_TEAM_ID" \
    --password "$APPLE_APP_PASSWORD" --wait
  xcrun stapler staple "$dmg"
  ;;
*)
  sed -n '2,16p' "$0" >&2
  exit 2
  ;;
esac
