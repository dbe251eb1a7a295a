#!/usr/bin/env bash
# Builds the libFuzzer targets in fuzz/targets and runs each for a bounded time.
#
#   scripts/fuzz.sh [SECONDS-PER-TARGET] [TARGET…]      (default 20 s, every target)
#
# For each target: replays fuzz/regressions/TARGET/* (every crash ever found), then fuzzes for
# SECONDS from the committed seeds (fuzz/corpus/TARGET) plus what earlier runs on this machine
# found (.build-fuzz/corpus/TARGET), and prints one line: executions, coverage, crashes. Exits
# non-zero if any target crashed or did not build; a crash's input is left in
# .build-fuzz/crashes/TARGET/ and shown in hex, to be fixed and then added to
# fuzz/regressions/TARGET/ (with a unit test).
#
# A target's dictionary, fuzz/dict/TARGET.dict, gives libFuzzer the tokens a text parser looks
# for (SDP lines, task fields, XML tags).
#
# The pure modules a target names on its `// fuzz-modules:` line are compiled once each, with
# coverage and AddressSanitizer (`swiftc -sanitize=fuzzer,address -O`), from their whole source
# directory, so files added to a module are picked up; a target's `// fuzz-sources:` files are
# compiled into the target itself (a parser that lives in a module too heavy to build here).
# TesseraComposition is only a dependency as a module (the one target reading its code,
# h264_sei, compiles those files itself) and is compiled without optimisation, in a quarter of
# the time.
#
# Targets are built and run in lanes (two by default): a lane builds what its next target needs
# (a module another lane is building is waited for, not built twice) and fuzzes it, so the
# RTP targets fuzz while the task module compiles.
#
# Environment: TESSERA_FUZZ_BUILD (scratch directory, default .build-fuzz), TESSERA_FUZZ_JOBS
# (lanes, default 2), TESSERA_FUZZ_OPTIMIZE (default -O), TESSERA_FUZZ_FLAGS (more libFuzzer
# flags, e.g. -max_len=65536).
set -uo pipefail
# A crash is reported by AddressSanitizer and libFuzzer; Swift's own backtracer, reading the
# crashed process's stack, would only add a false ASan report of its own.
export SWIFT_BACKTRACE=enable=no

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${1:-20}
shift $(( $# > 0 ? 1 : 0 ))
build=${TESSERA_FUZZ_BUILD:-$root/.build-fuzz}
jobs=${TESSERA_FUZZ_JOBS:-2}
mkdir -p "$build/lib" "$build/bin" "$build/logs"

if [ $# -gt 0 ]; then targets=("$@"); else
    # The RTP targets first: their modules build soonest, and they fuzz while TesseraTask builds.
    targets=(); for file in $(grep -l "fuzz-modules:.*TesseraRTP$" fuzz/targets/*.swift) $(ls fuzz/targets/*.swift); do
        target=$(basename "$file" .swift)
        [[ " ${targets[*]:-} " == *" $target "* ]] || targets+=("$target")
    done
fi
for target in "${targets[@]}"; do
    [ -f "fuzz/targets/$target.swift" ] || { echo "fuzz: no target $target (fuzz/targets/$target.swift)" >&2; exit 2; }
done

swift_flags=(-swift-version 6 -parse-as-library -package-name Tessera -sanitize=fuzzer,address
             -enforce-exclusivity=checked -I "$build/lib")
optimize=${TESSERA_FUZZ_OPTIMIZE:--O}
started=$(date +%s)

# Runs swiftc; a colleague's editor saving a source mid-compile is retried, a real error is not.
compile() {
    local log; log=$(mktemp "$build/logs/compile.XXXXXX")
    local attempt
    for attempt in 1 2 3 4 5; do
        if nice -n 5 swiftc "$@" >"$log" 2>&1; then rm -f "$log"; return 0; fi
        grep -q "modified during the build" "$log" || break
        sleep 20
    done
    grep -v "Cannot export local symbol" "$log" >&2
    rm -f "$log"
    return 1
}

# A module's sources: its whole directory, plus for TesseraTask the `Bundle.module` that SwiftPM
# would generate (pointing at the templates in the source tree).
module_sources() {
    find "Sources/$1" -name '*.swift' | sort
    if [ "$1" = TesseraTask ]; then
        local accessor="$build/lib/TesseraTask.bundle.swift" text
        text=$(printf 'import Foundation\nextension Foundation.Bundle {\n    static let module: Bundle = Bundle(path: "%s") ?? .main\n}' \
            "$root/Sources/TesseraTask/Resources")
        [ "$text" = "$(cat "$accessor" 2>/dev/null)" ] || echo "$text" >"$accessor"
        echo "$accessor"
    fi
}

# The Tessera modules a module imports (what its sources say, so the graph follows the package).
module_imports() {
    find "Sources/$1" -name '*.swift' -print0 | xargs -0 grep -h '^import Tessera' | awk '{print $2}' | sort -u | grep -vx "$1"
}

# Builds a module (after what it imports) into $build/lib unless nothing changed since; under a
# lock, so a lane needing a module another lane is building waits for it.
build_module() {
    local module=$1 dependency
    for dependency in $(module_imports "$module"); do build_module "$dependency" || return 1; done
    local library="$build/lib/lib$module.a" list="$build/lib/$module.sources" lock inputs sources status=0
    exec {lock}>"$build/lib/$module.lock"
    flock "$lock"
    sources=$(module_sources "$module")
    inputs="$sources $(for dependency in $(module_imports "$module"); do echo "$build/lib/lib$dependency.a"; done)"
    # shellcheck disable=SC2086
    if [ ! -f "$library" ] || [ "$sources" != "$(cat "$list" 2>/dev/null)" ] \
        || [ -n "$(find $inputs -newer "$library" 2>/dev/null | head -1)" ]; then
        local begin level=$optimize
        begin=$(date +%s)
        [ "$module" = TesseraComposition ] && level=-Onone
        # shellcheck disable=SC2086
        if compile -emit-library -static -emit-module -wmo -num-threads 2 -module-name "$module" "$level" "${swift_flags[@]}" \
            -o "$library" $sources; then
            echo "$sources" >"$list"
            echo "fuzz: built $module in $(( $(date +%s) - begin )) s"
        else
            echo "fuzz: $module did not compile" >&2
            rm -f "$library"; status=1
        fi
    fi
    exec {lock}>&-
    return $status
}

header() { sed -n "s|^// fuzz-$2: ||p" "fuzz/targets/$1.swift" | head -1; }

build_target() {
    local target=$1 module modules sources libraries=() support=(fuzz/support/FuzzSupport.swift)
    modules=$(header "$target" modules); sources=$(header "$target" sources)
    for module in $modules; do
        build_module "$module" || return 1
        libraries+=(-Xlinker "$build/lib/lib$module.a")
    done
    # Every module a target links brings what it imports; one group, so their order is free.
    for module in $modules; do for dependency in $(module_imports "$module"); do
        [[ " ${libraries[*]:-} " == *"/lib$dependency.a "* ]] || libraries+=(-Xlinker "$build/lib/lib$dependency.a")
    done; done
    grep -q PacketScript "fuzz/targets/$target.swift" && support+=(fuzz/support/PacketScript.swift)
    # shellcheck disable=SC2086
    compile -module-name "fuzz_$target" "$optimize" "${swift_flags[@]}" -o "$build/bin/$target" \
        "fuzz/targets/$target.swift" "${support[@]}" $sources -Xlinker --start-group "${libraries[@]}" -Xlinker --end-group
}

# Replays the regressions, then fuzzes; prints the target's line. Returns non-zero on a crash.
run_target() {
    local target=$1 binary="$build/bin/$target" log="$build/logs/$target.log"
    local crashes="$build/crashes/$target" corpus="$build/corpus/$target"
    mkdir -p "$crashes" "$corpus" "fuzz/corpus/$target"
    local regressions=()
    [ -d "fuzz/regressions/$target" ] && mapfile -t regressions < <(find "fuzz/regressions/$target" -type f | sort)
    if [ ${#regressions[@]} -gt 0 ]; then
        if ! "$binary" -runs=1 "${regressions[@]}" >"$log.regressions" 2>&1; then
            echo "fuzz $target: FAILED a regression vector replayed from fuzz/regressions/$target:"
            grep -E "^(Running|==[0-9]+==ERROR|SUMMARY|Fatal error|.*fuzz property)" "$log.regressions" | head -20
            return 1
        fi
    fi
    local dictionary=()
    [ -f "fuzz/dict/$target.dict" ] && dictionary=(-dict="fuzz/dict/$target.dict")
    # shellcheck disable=SC2086
    nice -n 5 "$binary" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$crashes/" "${dictionary[@]}" ${TESSERA_FUZZ_FLAGS:-} "$corpus" "fuzz/corpus/$target" >"$log" 2>&1
    local status=$?
    local executions coverage seeds grown
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    coverage=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
    seeds=$(find "fuzz/corpus/$target" -type f | wc -l)
    grown=$(find "$corpus" -type f | wc -l)
    if [ $status -eq 0 ]; then
        printf 'fuzz %-18s ok: %9s runs in %s s, %-18s %3s seeds + %4s found here, %s regressions, no crash\n' \
            "$target" "${executions:-?}" "$seconds" "${coverage:-cov ?}," "$seeds" "$grown" "${#regressions[@]}"
        return 0
    fi
    echo "fuzz $target: CRASH (exit $status) after ${executions:-?} runs:"
    grep -E "^(==[0-9]+==ERROR|SUMMARY|Fatal error|.*fuzz property|Test unit written)" "$log" | head -12
    local artifact; artifact=$(ls -t "$crashes"/* 2>/dev/null | head -1)
    if [ -n "$artifact" ]; then
        echo "fuzz $target: input $artifact ($(wc -c <"$artifact") bytes):"
        head -c 512 "$artifact" | od -An -tx1 | head -20
    fi
    return 1
}

lane() {
    local target=$1
    if ! build_target "$target"; then echo "fuzz $target: did not build"; return 1; fi
    run_target "$target"
}

# At most $jobs lanes at a time; each prints its target's line when it ends and leaves its
# verdict in a file (a status `wait -n` reaps early would otherwise be lost).
for target in "${targets[@]}"; do
    rm -f "$build/logs/$target.status"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    { lane "$target"; echo $? >"$build/logs/$target.status"; } &
done
wait
failed=0
for target in "${targets[@]}"; do
    [ "$(cat "$build/logs/$target.status" 2>/dev/null)" = 0 ] || failed=1
done
echo "fuzz: ${#targets[@]} targets, $seconds s each, $(( $(date +%s) - started )) s in all (builds included)$(
    [ $failed -eq 0 ] && echo ", no crash" || echo ", FAILED")"
exit $failed
