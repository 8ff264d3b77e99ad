#!/usr/bin/env bash
# The command-line tool: exit codes and messages of `safecoll bounds ...` on
# good and bad files.  `make check` runs it.
#
#   tests/check-cli.sh [bin/safecoll]
#
# Exit codes under test: 0 success, 1 invalid data, 2 usage error.  The
# tool must not depend on the environment's bound files for `check`, `add`
# and `list FILE`, and must report a broken SAFECOLL_BOUNDS for `list`.
# Prints one line per failed assertion and "cli: N checks, F failed"; exit
# status non-zero when anything failed.  KEEP=1 keeps the scratch directory.
set -u

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
lib_tool check-cli "${1:-}"
shipped=$(pwd)/data/known-bounds
colls_h=$(cd "$(dirname "$0")/.." && pwd)/include/safecoll/coll.h
lib_scratch cli

# run EXPECTED_STATUS ARGS... and expect out|err TEXT (lib.sh) run the tool
# with a clean bound environment unless the caller set one (env VAR=... run
# ...).

# expect_lines FILE N: the file has N lines.
expect_lines() {
    local n
    checks=$((checks + 1))
    n=$(wc -l <"$1")
    if [ "$n" -ne "$2" ]; then
        failed=$((failed + 1))
        echo "FAIL: $(basename "$1") has $n lines, expected $2"
    fi
}

export SAFECOLL_KNOWN_BOUNDS= SAFECOLL_BOUNDS=

cat >good.bounds <<'EOF'
# two records, a comment and a blank line

collective=scatter class=G_elements bound=2147483647 P=3- mpi="MPICH Version:\t4.0.2\n" source=tested
collective=gather class=X bound=124Mi s=1 P=48 note="paper 000"   # trailing comment
EOF
printf 'collective=gather class=X bound=1\n\ncollective=gather class=X bund=5\n' >bad.bounds

# --- dispatcher, help, version
run 0 --help;                     expect out "usage: safecoll COMMAND"
run 0 --version;                  expect out "safecoll (libsafecoll)"
run 2;                            expect err "missing command"
run 2 frob;                       expect err "unknown command 'frob'"
checks=$((checks + 1))
if grep -q 'safecoll: safecoll:' "$err"; then
    failed=$((failed + 1)); echo "FAIL: the program's name twice: $(cat "$err")"
fi
run 0 bounds --help;              expect out "check FILE..."
run 2 bounds;                     expect err "bounds: missing command"
run 2 bounds frob;                expect err "unknown command 'frob'"
run 0 bounds list --help;         expect out "usage: safecoll bounds list"
run 0 bounds check --help;        expect out "usage: safecoll bounds check"
run 0 bounds add --help;          expect out "usage: safecoll bounds add"
for key in kind=performance use=STRATEGY oversubscribed= nodes=; do
    expect out "$key"
done
run 0 search --help;              expect out "SAFECOLL_PROBE_FAULT"
# The collectives search --help lists (the lines after "Collectives
# (--coll)" up to the text that follows): every collective of the library
# (include/safecoll/coll.h) that the probe runs, and no other. Whether it
# runs one is asked of `safecoll probe --coll NAME`, which refuses an
# unsupported one before it starts MPI.
sed -n '/^Collectives (--coll)/,/^n is the count/{/^  /p}' "$out" | tr ' ' '\n' |
    sed '/^$/d' | sort >help-colls
sed -n 's/^ *SAFECOLL_COLL_\([A-Z_]*\) = [0-9]*,.*/\1/p' "$colls_h" |
    tr 'A-Z' 'a-z' >all-colls
check "the library's collectives read from coll.h (34 or more: $(wc -l <all-colls))" \
    test "$(wc -l <all-colls)" -ge 34
: >probe-colls
while read -r c; do
    "$tool" probe --coll "$c" >/dev/null 2>probe.err
    if grep -q 'unknown or unsupported collective' probe.err; then
        check "search --help does not list $c, which the probe refuses" \
            bash -c '! grep -qx "$1" help-colls' _ "$c"
    else
        check "search --help lists $c, which the probe runs" grep -qx "$c" help-colls
        echo "$c" >>probe-colls
    fi
done <all-colls
check "search --help lists nothing but the probe's collectives: $(sort probe-colls |
    comm -13 - help-colls | tr '\n' ' ')" \
    cmp -s <(sort probe-colls) help-colls
check "some collectives are refused by the probe (barrier, alltoallw)" \
    test "$(wc -l <probe-colls)" -lt "$(wc -l <all-colls)"
run 0 --help;                     expect out "bisect [options] -- CMD..."
run 0 bisect --help;              expect out "usage: safecoll bisect [options] -- LAUNCHER... APP"
expect out "4 not the"
run 2 bisect;                     expect err "bisect: no command after --"
run 2 bisect --check;             expect err "unknown option or missing value: --check"
run 2 bisect --repeat 0 -- true;  expect err "--repeat is not a number in [1, 1000]: 0"
run 2 bisect --timeout -1 -- true; expect err "--timeout is not a positive number of seconds"
run 2 bisect --colls gatherv,frob -- true; expect err "'frob' is no collective with a p2p strategy"
run 2 bisect extra -- true;       expect err "unknown option or missing value: extra"

# --- every help text fits 80 columns with the margin safecoll(1) indents
# it by (77 + 3), for every command and subcommand, found by walking the
# "Commands:" tables as tools/man.sh does; and it names the installed
# documents, not the source tree's doc/
help_paths() {
    local sub
    printf '%s\n' "$*"
    # shellcheck disable=SC2068 # the words are the command path
    for sub in $("$tool" $@ --help | awk '/^Commands:$/ { on = 1; next }
            on && /^  [^ ]/ { print $1; next } on { exit }'); do
        help_paths "$@" "$sub"
    done
}
mapfile -t cmd_paths < <(help_paths)
check "the help texts walked: at least the tool and 8 commands (${#cmd_paths[@]})" \
    test "${#cmd_paths[@]}" -ge 9
for path in "${cmd_paths[@]}"; do
    # shellcheck disable=SC2086 # the words are the command path
    "$tool" $path --help >help.out 2>&1
    check "'safecoll${path:+ $path} --help' fits 77 columns: $(awk 'length($0) > 77 \
            { printf "%d: %s|", length($0), $0 }' help.out)" \
        awk 'length($0) > 77 { exit 1 }' help.out
    check "'safecoll${path:+ $path} --help' names no source-tree doc/ path" \
        bash -c "! grep -qE '(^|[ (\`])doc/[a-z-]+\\.md' help.out"
done
run 0 bounds --help
check "bounds --help names the installed bounds-format.md (an absolute path)" \
    grep -qE ' /[^ ]*/share/doc/safecoll/bounds-format\.md' "$out"

# --- check
run 0 bounds check good.bounds;   expect out "good.bounds: ok: 2 records"
n=$(grep -c '^collective=' "$shipped")
run 0 bounds check "$shipped";    expect out "ok: $n records"
run 1 bounds check bad.bounds;    expect err "bad.bounds:3: unknown key 'bund'"
run 1 bounds check good.bounds bad.bounds
expect out "good.bounds: ok: 2 records"
expect err "bad.bounds:3: unknown key 'bund'"
run 1 bounds check missing.bounds; expect err "missing.bounds: cannot open: No such file or directory"
run 2 bounds check;               expect err "no FILE given"
run 2 bounds check --frob x;      expect err "unknown option '--frob'"
printf 'collective=gather class=X bound=99999999999999999999\n' >big.bounds
run 1 bounds check big.bounds;    expect err "big.bounds:1: bound: 99999999999999999999 is out of range"
printf 'collective=gather class=X bound=1\r\ncollective=bcast class=G_bytes bound=2\r\n' >crlf.bounds
run 0 bounds check crlf.bounds;   expect out "ok: 2 records"
# A broken environment must not change what `check` says about a file.
SAFECOLL_BOUNDS=$scratch/missing.bounds SAFECOLL_KNOWN_BOUNDS=$scratch/bad.bounds \
    run 0 bounds check good.bounds
expect out "good.bounds: ok: 2 records"

# --- list
run 0 bounds list good.bounds
expect_lines "$out" 2
expect out "   0  collective=scatter class=G_elements bound=2147483647 P=3- mpi=\"MPICH Version:\\t4.0.2\\n\" source=tested  # good.bounds:3"
expect out "   1  collective=gather class=X bound=130023424 s=1 P=48 source=user note=\"paper 000\"  # good.bounds:4"
run 1 bounds list bad.bounds;     expect err "bad.bounds:3: unknown key 'bund'"
run 0 bounds list;                expect_lines "$out" 0
SAFECOLL_KNOWN_BOUNDS=$shipped SAFECOLL_BOUNDS=$scratch/good.bounds run 0 bounds list
expect_lines "$out" $((n + 2))
expect out "# $shipped:"
expect out "$(printf "%4d" "$n")  collective=scatter"  # the index as bounds list prints it
# Unset: the known bounds built into the library, record for record and
# line for line the file, with nothing installed; `list FILE` still shows
# the file alone.
unset SAFECOLL_KNOWN_BOUNDS
run 0 bounds list
expect_lines "$out" "$n"
expect out "# built-in known-bounds:"
checks=$((checks + 1))
if ! sed "s|  # built-in known-bounds:|  # $shipped:|" "$out" | cmp -s - <(
        SAFECOLL_KNOWN_BOUNDS=$shipped "$tool" bounds list); then
    failed=$((failed + 1))
    echo "FAIL: bounds list without SAFECOLL_KNOWN_BOUNDS differs from data/known-bounds:"
    sed 's/^/    | /' "$out" | head -5
fi
run 0 bounds list good.bounds
expect_lines "$out" 2
export SAFECOLL_KNOWN_BOUNDS=
SAFECOLL_BOUNDS=$scratch/missing.bounds run 1 bounds list
expect err "SAFECOLL_BOUNDS: $scratch/missing.bounds: cannot open"
SAFECOLL_BOUNDS=$scratch/bad.bounds run 1 bounds list
expect err "SAFECOLL_BOUNDS: $scratch/bad.bounds:3: unknown key 'bund'"

# --- folding to the terminal: --wrap folds to COLUMNS even into a file,
# at blanks outside quotes, the next lines indented by 6; without it a
# record is one line (above)
printf 'collective=gather class=X bound=1 note="a long note with blanks that goes on past the width of the screen"\n' >>good.bounds
COLUMNS=60 run 0 bounds list --wrap good.bounds
check "bounds list --wrap: no line longer than COLUMNS=60" \
    awk 'length($0) > 60 { exit 1 }' "$out"
check "bounds list --wrap: the records folded, continuation lines indented" \
    awk '/^      [^ ]/ { n++ } END { exit !(n >= 3) }' "$out"
expect out "   2  collective=gather class=X bound=1 source=user"
expect out '      note="a long note with blanks that goes on past the'
check "bounds list --wrap: the text is that of the unfolded list" \
    cmp -s <(tr -d ' \n' <"$out") <(COLUMNS=60 "$tool" bounds list good.bounds | tr -d ' \n')
# A note longer than a line breaks between its words, never inside one
# (nor does a path: it breaks after a '/')
printf 'collective=gather class=X bound=1 note="supercalifragilistic expialidocious words everywhere in a note that is long indeed, again and again"\n' >words.bounds
COLUMNS=60 run 0 bounds list --wrap words.bounds
check "bounds list --wrap: no line longer than COLUMNS=60 (a long note)" \
    awk 'length($0) > 60 { exit 1 }' "$out"
for word in supercalifragilistic expialidocious everywhere 'indeed,' again; do
    check "bounds list --wrap: the note's word '$word' stays whole" grep -qw -- "$word" "$out"
done
check "bounds list --wrap: the note folded over 3 lines or more" \
    awk '/^      [^ ]/ { n++ } END { exit !(n >= 3) }' "$out"
check "bounds list --wrap: the text is that of the unfolded list (long note)" \
    cmp -s <(tr -d ' \n' <"$out") <("$tool" bounds list words.bounds | tr -d ' \n')
# The origin, a path longer than a line, breaks after a '/'
deep=$scratch/a_directory_with_a_long_name/another_directory_too
mkdir -p "$deep"
cp words.bounds "$deep/words.bounds"
COLUMNS=50 run 0 bounds list --wrap "$deep/words.bounds"
check "bounds list --wrap: no line longer than COLUMNS=50 (a long path)" \
    awk 'length($0) > 50 { exit 1 }' "$out"
for word in a_directory_with_a_long_name another_directory_too words.bounds:1; do
    check "bounds list --wrap: the path's part '$word' stays whole" grep -q -- "$word" "$out"
done
COLUMNS=60 run 0 bounds list good.bounds;  expect_lines "$out" 3
if command -v script >/dev/null 2>&1; then
    COLUMNS=60 script -qec "'$tool' bounds list good.bounds" /dev/null >tty.out 2>&1
    check "bounds list folds on a terminal" \
        awk '{ sub(/\r$/, "") } length($0) > 60 { exit 1 } END { exit !(NR > 3) }' tty.out
    COLUMNS=60 script -qec "'$tool' bounds list --no-wrap good.bounds" /dev/null >tty.out 2>&1
    check "bounds list --no-wrap on a terminal: a line per record" \
        awk 'END { exit !(NR == 3) }' tty.out
fi
run 2 bounds list --frob;         expect err "unknown option '--frob'"
sed -i '$d' good.bounds

# --- progress of the long commands (tools/progress.c), without MPI: a
# guideline whose launcher fails at once and a bisect of a command that
# always fails; SAFECOLL_PROGRESS forces the display a terminal would get
cr=$(printf '\r\033[K')
glaunch=(guideline --coll allreduce --procs 2,3 --sizes 1Ki --launcher 'false {P}')
SAFECOLL_PROGRESS=tty run 1 "${glaunch[@]}"
expect err "${cr}guideline: 0/2 (allreduce P=2: 1 sizes, job running), elapsed 0:"
expect err "${cr}guideline: 1/2 (allreduce P=3: 1 sizes, job running), elapsed 0:"
expect err ", left ?"
expect err ", left ~"
expect err "safecoll: guideline: allreduce P=3: the job failed"
SAFECOLL_PROGRESS=plain run 1 "${glaunch[@]}"
expect err "guideline: 0/2 (allreduce P=2: 1 sizes, job running), elapsed 0:"
check "plain progress: no carriage return" bash -c "! grep -q \$'\\r' '$err'"
SAFECOLL_PROGRESS=tty TERM=dumb run 1 "${glaunch[@]}"
expect err "guideline: 0/2 (allreduce P=2"
check "TERM=dumb: carriage returns, no escape sequence" \
    bash -c "grep -q \$'\\r' '$err' && ! grep -q \$'\\033' '$err'"
SAFECOLL_PROGRESS=off run 1 "${glaunch[@]}"
check "SAFECOLL_PROGRESS=off: no progress" bash -c "! grep -q 'elapsed' '$err'"
expect err "allreduce P=2: the job failed"
run 1 "${glaunch[@]}"   # not a terminal: plain
check "stderr no terminal: no carriage return" bash -c "! grep -q \$'\\r' '$err'"
SAFECOLL_PROGRESS=tty run 4 bisect --logs "$scratch/blogs" --colls allreduce,bcast -- sh -c 'exit 1'
expect err "${cr}bisect: 0/~4 (run 1: native as set (your environment)), elapsed 0:"
expect err "${cr}bisect: 1/~4 (run 2: native none (all=p2p)), elapsed 0:"
expect err "${cr}run 2 of ~4: native none (all=p2p): exit 1 ("
expect out "verdict: not the collective layer"
SAFECOLL_PROGRESS=plain run 4 bisect --logs "$scratch/blogs2" --colls allreduce,bcast -- sh -c 'exit 1'
expect err "run 2 of ~4: native none (all=p2p): exit 1 ("
check "bisect, plain progress: no carriage return" bash -c "! grep -q \$'\\r' '$err'"

# --- add
run 0 bounds add --out new.bounds collective=alltoall class=G_bytes bound=2Gi \
    'mpi=MPICH Version:\t4.0.2\n' source=tested n_s=1Gi delta=64Mi date=2024-02-29 \
    'note=found by "search"'
expect out 'collective=alltoall class=G_bytes bound=2147483648 mpi="MPICH Version:\t4.0.2\n" source=tested n_s=1073741824 delta=67108864 date=2024-02-29 note="found by \"search\""'
expect_lines new.bounds 1
run 0 bounds add --out=new.bounds collective=bcast class=X bound=0 s=4-8
expect_lines new.bounds 2
run 0 bounds check new.bounds;    expect out "new.bounds: ok: 2 records"
run 1 bounds add --out new.bounds collective=bcast class=X bound=-1
expect err "bound: -1 is negative"
run 1 bounds add --out new.bounds collective=barrier class=X bound=1
expect err "barrier moves no data"
run 1 bounds add --out new.bounds collective=bcast class=X
expect err "missing key 'bound'"
run 1 bounds add --out new.bounds collective=bcast class=X bound=1 date=2023-02-29
expect err "date: '2023-02-29' is not a valid date"
run 1 bounds add --out new.bounds collective=bcast bogus
expect err "'bogus' is not key=value"
expect_lines new.bounds 2
run 2 bounds add collective=bcast class=X bound=1;   expect err "--out FILE is required"
run 2 bounds add --out new.bounds;                   expect err "no key=value given"
run 2 bounds add --out;                              expect err "--out needs a FILE"
cp bad.bounds bad2.bounds
run 1 bounds add --out bad2.bounds collective=bcast class=X bound=1
expect err "bad2.bounds:3: unknown key 'bund'"
expect err "nothing added"
cmp -s bad.bounds bad2.bounds || { failed=$((failed + 1)); echo "FAIL: bad2.bounds was changed"; }
printf 'collective=gather class=X bound=1' >nonl.bounds
run 0 bounds add --out nonl.bounds collective=gather class=X bound=2
expect_lines nonl.bounds 2
run 0 bounds check nonl.bounds;   expect out "ok: 2 records"
run 1 bounds add --out "$scratch/no/such/dir/x.bounds" collective=gather class=X bound=2
expect err "No such file or directory"

echo "  cli: $checks checks, $failed failed"
[ "$failed" -eq 0 ]
