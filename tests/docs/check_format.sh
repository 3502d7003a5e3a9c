#!/usr/bin/env bash
# The C++ sources follow .clang-format: check_format.sh CLANG_FORMAT SOURCE_DIR lists every
# .cpp/.h file (tracked by git where the tree is a clone, else found) that clang-format
# would change, with the first lines of the change, and fails if there is one.
# To fix: clang-format -i FILE (or `git ls-files '*.cpp' '*.h' | xargs clang-format -i`).
set -euo pipefail
clang_format="$1"; src="$2"
cd "$src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.h')
else
  mapfile -t files < <(find . -path ./build -prune -o -path ./.venv -prune -o \( -name '*.cpp' -o -name '*.h' \) -print)
fi
bad=0
for f in "${files[@]}"; do
  if ! "$clang_format" --dry-run -Werror "$f" >/dev/null 2>&1; then
    echo "not formatted: $f"
    diff <(cat "$f") <("$clang_format" "$f") | head -8 || true
    bad=$((bad + 1))
  fi
done
echo "${#files[@]} files checked, $bad not formatted"
[ "$bad" -eq 0 ]
