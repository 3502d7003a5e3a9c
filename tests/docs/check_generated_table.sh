#!/usr/bin/env bash
# A table in the docs generated from the code is, verbatim, what the command prints now:
# check_generated_table.sh DOC MARKER COMMAND... compares the lines between
# "<!-- BEGIN MARKER -->" and "<!-- END MARKER -->" in DOC with COMMAND's output.
set -euo pipefail
doc="$1"; marker="$2"; shift 2
want=$("$@")
got=$(sed -n "/<!-- BEGIN $marker -->/,/<!-- END $marker -->/p" "$doc" | sed '1d;$d')
if [ -z "$got" ]; then
  echo "$doc has no table between <!-- BEGIN $marker --> and <!-- END $marker -->"
  exit 1
fi
if [ "$want" != "$got" ]; then
  echo "$doc's table '$marker' differs from what '$*' prints (replace it with that output):"
  diff <(echo "$want") <(echo "$got") || true
  exit 1
fi
