#!/usr/bin/env bash
# The main job: set up, build, and run the conformance suite on every available backend
# (the simulator always; the GPU too once the GPU backend exists and a GPU is present).
set -euo pipefail
cd "$(dirname "$0")/.."
ci/setup.sh
build_dir="${BUILD_DIR:-build}"
"$build_dir/cli/cutwin" conformance conformance/cases --backend sim
