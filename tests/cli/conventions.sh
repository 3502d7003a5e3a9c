#!/usr/bin/env bash
# The cutwin command's conventions: --help (or -h, anywhere) prints the usage and exits 0;
# a command line it cannot take exits 2, saying what it expected, then the usage; an
# error in the work itself exits 1. Usage: conventions.sh CUTWIN KERNEL_FILE
set -u
cutwin="$1" kernel_file="$2"
failures=0
errfile="$(mktemp)"
trap 'rm -f "$errfile"' EXIT
expect() { # expect RC STREAM TEXT -- ARGS...: the exit status and a line of stdout/stderr
  local rc="$1" stream="$2" text="$3"
  shift 4
  local out err got
  out="$("$cutwin" "$@" 2>"$errfile")"
  got=$?
  err="$(cat "$errfile")"
  local where="$out"
  [ "$stream" = err ] && where="$err"
  if [ "$got" != "$rc" ] || ! grep -qF -- "$text" <<<"$where"; then
    echo "FAIL: cutwin $* -> exit $got (want $rc), $stream lacks: $text"
    echo "  stdout: ${out:0:200}"
    echo "  stderr: ${err:0:200}"
    failures=$((failures + 1))
  fi
}
expect 0 out "usage:" -- --help
expect 0 out "usage:" -- -h
expect 0 out "usage:" -- compile --help
expect 0 out "usage:" -- opt --help
expect 0 out "usage:" -- conformance -h
expect 0 out "cutwin " -- --version
expect 2 err "usage:" --
expect 2 err "unknown command 'frobnicate'" -- frobnicate
expect 2 err "unknown option '--kernl'; its options: --kernel" -- compile "$kernel_file" --kernl k
expect 2 err "needs --kernel NAME" -- compile "$kernel_file"
expect 2 err "option --kernel needs a value" -- compile "$kernel_file" --kernel
expect 2 err "option --verbose takes no value" -- conformance --verbose=1
expect 2 err "takes one file, got 0" -- opt --step=sim-lower
expect 2 err "takes no arguments, got 1" -- steps extra
expect 1 err "has no kernel named 'nosuch'" -- compile "$kernel_file" --kernel nosuch
expect 0 out "define" -- compile "$kernel_file" --kernel=fill --sig "void(float32[:])" --emit=ir
expect 2 err "takes no arguments, got 1" -- cache extra
expect 2 err "option --clear takes no value" -- cache --clear=1
expect 0 out "kernels: " -- cache
[ "$failures" = 0 ] && echo "all command-line conventions hold"
exit "$failures"
