#!/usr/bin/env bash
# Runs every fuzz target in the module (each `func FuzzX` in a _test.go file) for a
# bounded time, one after another: FUZZTIME each (default 6s; 17 targets ≈ 2.5 min with
# their builds). An input that fails is written by `go test` to the package's
# testdata/fuzz/FuzzX/ folder, where it stays as a regression case that every plain
# `go test` runs from then on; commit it with the fix.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-6s}
ran=0
failed=()
while IFS=: read -r file name; do
	pkg="./$(dirname "$file")"
	echo "fuzz $pkg $name ($fuzztime)"
	if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$pkg"; then
		failed+=("$pkg $name")
	fi
	ran=$((ran + 1))
done < <(grep -rHo --include='*_test.go' --exclude-dir=node_modules '^func Fuzz[A-Za-z0-9_]*' . |
	sed 's|^\./||; s|:func |:|' | sort)
echo "fuzz targets=$ran failed=${#failed[@]}"
if ((${#failed[@]})); then
	printf 'failed: %s\n' "${failed[@]}"
	# The inputs found are printed too: on a CI machine the files go with the machine, and
	# the log is what is left to copy them into testdata/fuzz from.
	find . -path ./frontend/node_modules -prune -o -path '*/testdata/fuzz/*' -type f -newer "$0" -print 2>/dev/null |
		while read -r f; do
			if ! git ls-files --error-unmatch "$f" >/dev/null 2>&1; then
				echo "found input $f:"
				cat "$f"
			fi
		done
	exit 1
fi
