#!/usr/bin/env bash
# Fuzzes each libFuzzer target of test/fuzz for SECONDS (default 60), one
# after the other, each in one process on a scratch copy of its seed corpus
# and regressions (the tree is never written). Builds build-sanitize/ first
# (as scripts/test.sh --sanitize does). Fails when any target finds a crash,
# a leak, a sanitizer report, a timeout or an out-of-memory; the input that
# did it is kept in build-sanitize/fuzz-artifacts/<target>/. With
# TFUSE_NO_BUILD=1 the build is taken as it is.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     (targets: the test/fuzz folders)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
seconds=${1:-60}
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/fuzz.sh [SECONDS] [TARGET...]" >&2
  exit 2
fi
shift $(($# > 0 ? 1 : 0))
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for dir in "$TFUSE_ROOT"/test/fuzz/*/; do
    targets+=("$(basename "$dir")")
  done
fi
if [ -z "${TFUSE_NO_BUILD:-}" ]; then
  tfuse_install_deps
  tfuse_build_sanitize >/dev/null
fi
tfuse_sanitizer_env

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
for name in "${targets[@]}"; do
  src="$TFUSE_ROOT/test/fuzz/$name"
  bin="$TFUSE_SANITIZE_BUILD/bin/tfuse-fuzz-$name"
  if [ ! -x "$bin" ]; then
    echo "fuzz: no target '$name' ($bin)" >&2
    failed=$((failed + 1))
    continue
  fi
  corpus="$work/$name"
  artifacts="$TFUSE_SANITIZE_BUILD/fuzz-artifacts/$name"
  mkdir -p "$corpus" "$artifacts"
  cp "$src"/corpus/* "$corpus"/
  [ -d "$src/regressions" ] && cp "$src"/regressions/* "$corpus"/
  # fuzz.options: this target's flags (its -max_len, its dictionary).
  read -r -a options <<<"$(sed "s|@DIR@|$src|g" "$src/fuzz.options")"
  echo "== $name: ${seconds} s"
  if "$bin" "${options[@]}" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" \
    "$corpus" >"$work/$name.log" 2>&1; then
    grep -E "^(#[0-9]+.*DONE|Done [0-9]+ runs)" "$work/$name.log" | tail -1
    grep -E "^stat::(number_of_executed_units|peak_rss_mb)" "$work/$name.log"
    passed=$((passed + 1))
  else
    tail -60 "$work/$name.log"
    echo "fuzz: $name FAILED; its input is in $artifacts/"
    failed=$((failed + 1))
  fi
done
echo "fuzz: $passed passed, $failed failed (${seconds} s each)"
[ "$failed" -eq 0 ]
