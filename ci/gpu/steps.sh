# Sourced by the GPU machine's run scripts (run_pending.sh, run_multi_gpu.sh) from the
# repository root, with $out set: unpacks dist.tar.xz, finds libdevice, and defines
# `step NAME SECONDS COMMAND...`, one run bounded in time, its output in $out/NAME.txt as it
# finishes (a call cut short still brings back what it made) and its status in
# $out/steps.txt.
mkdir -p "$out"
[ -d dist ] || xz -dc dist.tar.xz | tar -xf -
export CUTWIN_LIBDEVICE="${CUTWIN_LIBDEVICE:-$(ls /usr/local/cuda*/nvvm/libdevice/libdevice.10.bc | head -n 1)}"
step() {
  local name=$1 limit=$2
  shift 2
  local t0=$SECONDS
  timeout "$limit" bash -c '"$@"' step "$@" >"$out/$name.txt" 2>&1
  echo "$name: exit $?, $((SECONDS - t0)) s" | tee -a "$out/steps.txt"
}
