#!/usr/bin/env bash
# The real search of check-big (issue 4): `safecoll search` against this
# machine's MPI at P = 4, MPI_CHAR, from n = 2^20 up to the memory limit,
# then the effectiveness check of every bound it finds.
#
#   tests/big/search.sh TOOL LOGDIR
#
# TOOL is bin/safecoll, LOGDIR where the search's output goes.  Prints
# `PASS search-...` / `FAIL search-...` / `INFO ...` lines as run.sh does and
# exits non-zero when an assertion failed.  For each collective searched:
#
# * a failure found: the record was written and `safecoll bounds check`
#   accepts it, the failure lies within delta of n_s (n_s passed, n_s +
#   delta or the Step 1 count failed), it is classified (a Table IX row or
#   class X), the safe collective with that record passes from the failing
#   count up to the memory limit (`search --safe`: the new safe bound), and
#   with only the shipped data/known-bounds it avoids the native call at the
#   failing count (`probe --safe`) — the record must be shipped;
# * no failure: the search reached the memory or count limit; the last
#   count that passed is reported.
#
# Environment: SAFECOLL_SEARCH_COLLS (default scatter,allgather),
# SAFECOLL_SEARCH_ICOLLS (default none; e.g. iscatter: searched after them
# with a first time limit of 60 s, which is also the limit of each verifying
# probe, since MPI_Iscatter hangs where MPI_Scatter crashes.  Its hangs cost
# 10-14 minutes of check-big, so CI leaves it out; the safe iscatter past
# the bug is run by run.sh's iscatter-dense configurations),
# SAFECOLL_SEARCH_F (Step 2's divisor, default 4),
# SAFECOLL_SEARCH_MEM (default 12Gi: the probe's buffers, MPI's own
# temporaries come on top), SAFECOLL_SEARCH_NSTART (default 64Mi: Step 1
# from there brackets the same failures as from 1Mi, without the six small
# probes check-search's fault injection already covers), MPIEXEC;
# SAFECOLL_SEARCH_FAULT, to test this script on small sizes, is given to the
# native search as SAFECOLL_PROBE_FAULT (a simulated bug).
set -u

tool=${1:?usage: search.sh TOOL LOGDIR}
logs=${2:?usage: search.sh TOOL LOGDIR}
here=$(cd "$(dirname "$0")" && pwd)
shipped=$here/../../data/known-bounds
# scatter: the root's buffer is n*P elements, and MPICH 4.0.2 crashes
# there (data/known-bounds); allgather: every rank receives n*P, by a ring
# of its own.  gather, the same n*P at the root, works to n*P = 2^32 (doc/
# testing.md) but costs 300 s there, and native-gather already records it.
colls=${SAFECOLL_SEARCH_COLLS-scatter,allgather}
icolls=${SAFECOLL_SEARCH_ICOLLS-}
f=${SAFECOLL_SEARCH_F:-4}
mem=${SAFECOLL_SEARCH_MEM:-12Gi}
nstart=${SAFECOLL_SEARCH_NSTART:-64Mi}
# shellcheck source=tests/mpi-names.sh
. "$(dirname "${BASH_SOURCE[0]}")/../mpi-names.sh"
export MPIEXEC
# The native calls are probed as the MPI ships them; the registry matters
# only to the safe runs below, which set it themselves.
export SAFECOLL_KNOWN_BOUNDS= SAFECOLL_BOUNDS=
unset SAFECOLL_PROBE_FAULT SAFECOLL_STRATEGY

# shellcheck source=tests/lib.sh
. "$here/../lib.sh"
lib_big_start search "$tool" "$logs"

# A large collective spends seconds in first-touching and checking its
# buffers inside the watchdog's time, and 4 ranks share 2 cores: a floor of
# 60 s per probe and 120 s of grace for the launch and the fill.
limits=(--time-limit 120 --time-floor 60 --grace 120)

# A hang costs its whole limit, in Step 1 and in each of the two failing
# verifying probes: the i-forms, which hang, run with 60 s.
ilimits=(--time-limit 60 --time-floor 60 --grace 120)
: >"$out"
: >"$err"
for group in "$colls" "$icolls"; do
    [ -n "$group" ] || continue
    lim=("${limits[@]}")
    [ "$group" = "$icolls" ] && lim=("${ilimits[@]}")
    t0=$(date +%s)
    SAFECOLL_PROBE_FAULT=${SAFECOLL_SEARCH_FAULT:-} "$tool" search --coll "$group" --procs 4 \
        --type char --n-start "$nstart" --mem-limit "$mem" --f "$f" "${lim[@]}" \
        --out "$found" >>"$out" 2>>"$err"
    rc=$?
    echo "     search: $(($(date +%s) - t0)) s, exit $rc: $tool search --coll $group --procs 4" \
         "--type char --n-start $nstart --mem-limit $mem --f $f ${lim[*]}"
    if [ $rc -ne 0 ]; then
        echo "FAIL search-mpich (safecoll search exit $rc; log: $err)"
        tail -n 20 "$err" | sed 's/^/    | /'
        exit 1
    fi
done
# The tables: collective P s n_s delta class probes +ver seconds detector...
awk '/^collective +P +s +n_s/ { t = 1 } /^collective=/ { t = 0 } t && NF' "$out" |
    sed 's/^/     | /'

IFS=, read -r -a list <<< "$colls${colls:+${icolls:+,}}$icolls"
for c in "${list[@]}"; do
    row=$(awk -v c="$c" '$1 == c && $2 == 4 { print; exit }' "$out")
    read -r _ _ _ ns delta cls probes ver secs det <<< "$row"
    if [ -z "$row" ]; then
        echo "FAIL search-$c (no result row; log: $err)"
        status=1
        continue
    fi
    # The last count probed natively (Step 1 or 2) and how it ended, and
    # the last that failed (wrong data, an error, a crash or a timeout).
    last=$(grep -E "^  $c P=4 char step [12] n=" "$err" | tail -n 1)
    fail=$(grep -E "^  $c P=4 char step [12] n=[0-9]+: (wrong data|error|crash|timeout)" \
           "$err" | tail -n 1)
    n_fail=$(sed -E 's/.* n=([0-9]+):.*/\1/' <<< "$fail")
    case $det in
    no* | memory*)
        # "no failure" up to the count limit, or "memory limit": the next
        # count would not fit.
        if [ "$det" = "memory limit" ]; then stop="the memory limit ($mem of buffers)"
        else stop="the count limit of the int API"; fi
        echo "PASS search-$c (no failure at P=4 char: every count from $nstart to n_s=$ns" \
             "passed (n*P = $((ns * 4))); stopped by $stop after $probes probes in ${secs} s;" \
             "last: ${last#  })"
        continue
        ;;
    esac

    # A failure: n_s, delta, the record, the class.
    ok=1 why=()
    rec=$(grep -E "^collective=$c " "$found")
    if [ -z "$rec" ] || ! "$tool" bounds check "$found" >/dev/null 2>&1; then
        ok=0 why+=("no record of $c in $found, or the file does not load")
    fi
    if [[ ! $det =~ ^(n|s\*n|X|-) ]] || [ "$cls" = - ]; then
        ok=0 why+=("not classified (detector '$det', class '$cls')")
    fi
    # Bounded within delta: n_s passed and a count at most delta above it
    # failed.
    if ! [[ $ns =~ ^[0-9]+$ && $delta =~ ^[0-9]+$ && $n_fail =~ ^[0-9]+$ ]] ||
       [ "$n_fail" -le "$ns" ] || [ $((n_fail - ns)) -gt "$delta" ]; then
        ok=0 why+=("the failure at n=${n_fail:-?} is not within delta=$delta above n_s=$ns")
    fi
    if [ $ok = 1 ]; then
        echo "PASS search-$c (failure found at P=4 char: n_s=$ns delta=$delta, first failure" \
             "n=$n_fail (${fail#*: }), class $cls, $det; $probes probes + $ver verifying," \
             "${secs} s)"
        echo "     record: $rec"
    else
        echo "FAIL search-$c (${why[*]}; log: $err)"
        status=1
        continue
    fi

    # Effectiveness with the record just found: the safe collective from the
    # failing count up to the memory limit (paper 000, Tables XI and XII).
    t0=$(date +%s)
    SAFECOLL_BOUNDS=$found "$tool" search --safe --coll "$c" --procs 4 --type char \
        --n-start "$n_fail" --mem-limit "$mem" "${limits[@]}" >"$out.safe-$c" 2>"$err.safe-$c"
    srow=$(awk -v c="$c" '$1 == c && $2 == 4 { print; exit }' "$out.safe-$c")
    read -r _ _ _ sns _ _ sprobes _ ssecs sdet <<< "$srow"
    if [[ $sdet == "safe: no failure" || $sdet == "safe: memory limit" ]] &&
       [[ $sns =~ ^[0-9]+$ ]] && [ "$sns" -ge "$n_fail" ]; then
        echo "PASS search-$c-safe (the safe $c with the record passes every count from" \
             "n=$n_fail to n=$sns ($sdet beyond); $sprobes probes, $(($(date +%s) - t0)) s)"
    else
        echo "FAIL search-$c-safe (the safe $c from n=$n_fail: '${srow:-no result}'; log:" \
             "$err.safe-$c)"
        tail -n 5 "$err.safe-$c" | sed 's/^/    | /'
        status=1
    fi

    # Out of the box: the shipped file alone must make it avoid the call.
    SAFECOLL_KNOWN_BOUNDS=$shipped timeout -k 10 600 "$MPIEXEC" -n 4 "$tool" probe --safe \
        --coll "$c" --type char --n "$n_fail" --time-limit 300 >"$out.shipped-$c" 2>&1
    prc=$?
    if [ $prc -eq 0 ] && grep -q "^safe: avoided" "$out.shipped-$c"; then
        echo "PASS search-$c-shipped (with data/known-bounds alone: $(grep '^safe:' \
             "$out.shipped-$c") at n=$n_fail)"
    else
        echo "FAIL search-$c-shipped (data/known-bounds does not make the safe $c avoid" \
             "n=$n_fail, or it failed (exit $prc): $(grep -m1 '^safe:\|^probe' \
             "$out.shipped-$c"); add the record above to data/known-bounds)"
        status=1
    fi
done
exit $status
