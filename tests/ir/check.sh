#!/usr/bin/env bash
# Textual IR test driver: runs `cutwin compile FILE <args>` with the arguments on the
# file's "# RUN:" line and checks the output with FileCheck against the file's CHECK lines.
set -euo pipefail
cutwin="$1"; filecheck="$2"; file="$3"
args=$(sed -n 's/^# RUN: *//p' "$file")
eval "\"$cutwin\" compile \"$file\" $args" | "$filecheck" --match-full-lines=false "$file"
