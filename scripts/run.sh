#!/usr/bin/env bash
# The main job: installs what is missing, builds seglog (release), and runs the walkthrough on
# the embedded default log directory ./data (the seeds' Example 1, step by step).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target seglog
./build/release/cli/seglog walkthrough --log-dir "${SEGLOG_LOG_DIR:-./data}"
