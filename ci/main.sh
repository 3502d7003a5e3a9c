#!/usr/bin/env bash
# The main job: set up, build, and run the conformance suite on every available backend:
# the simulator always, the GPU when a CUDA driver and device are present; without a GPU,
# every case's PTX is also checked with ptxas.
set -euo pipefail
cd "$(dirname "$0")/.."
ci/setup.sh
build_dir="${BUILD_DIR:-build}"
"$build_dir/cli/cutwin" conformance conformance/cases --backend available
"$build_dir/cli/cutwin" conformance conformance/cases --backend ptx --arch sm_90
