#!/usr/bin/env bash
# Backend step test driver: runs `cutwin opt FILE <args>` (one pipeline step alone on the
# file's hand-written IR) with the arguments on its "; RUN:" line and checks the output
# with FileCheck against the file's CHECK lines.
set -euo pipefail
cutwin="$1"; filecheck="$2"; file="$3"
args=$(sed -n 's/^; RUN: *//p' "$file")
eval "\"$cutwin\" opt \"$file\" $args" | "$filecheck" --match-full-lines=false "$file"
