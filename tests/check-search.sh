#!/usr/bin/env bash
# `safecoll search` and `safecoll probe` against a simulated buggy MPI
# (SAFECOLL_PROBE_FAULT) at tiny sizes: Step 1, Step 2 and the Table IX
# classification for every class and failure kind, and the failures of the
# search itself (launcher, out of memory, bad options).  `make check` runs it.
#
#   tests/check-search.sh [bin/safecoll]
#
# Needs MPIEXEC (the Makefile exports it).  Prints one line per failed
# assertion and "search: N checks, F failed".  In the second MPI's pass
# (SAFECOLL_CHECK_SECOND_MPI=1, `make check-openmpi`) only the cases that
# exercise the MPI run: the search through a crash, a hang and a kill, the
# probe's exit status for each kind of fault, the launcher's failure and
# the options; the others, the tool's own logic, are skips
# (lib_mpi_independent), and the probes of every collective and type run
# in one job in `make check-mpi` (tests/mpi/test_probe_every.c).
set -u

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
lib_tool check-search "${1:-}"
lib_mpiexec
lib_probe_jobs
export SAFECOLL_KNOWN_BOUNDS= SAFECOLL_BOUNDS=
unset SAFECOLL_PROBE_FAULT

lib_scratch search
export TMPDIR=$scratch
# Small limits: a hang costs 2 s, a launch at most 5 more.
fast=(--n-start 64 --f 4 --time-limit 2 --time-floor 2 --grace 5 --mem-limit 1Gi)

# within COLL LOW: the table row of COLL has n_s <= LOW < n_s + delta, i.e.
# the largest passing count LOW of the synthetic bug is found within delta.
within() {
    local coll=$1 low=$2 ns delta
    checks=$((checks + 1))
    read -r ns delta < <(awk -v c="$coll" '$1 == c && $4 ~ /^[0-9]+$/ { print $4, $5 }' "$out")
    if [ -z "${ns:-}" ] || [ "$ns" -gt "$low" ] || [ $((ns + delta)) -le "$low" ]; then
        failed=$((failed + 1))
        echo "FAIL: $coll: n_s=${ns:-?} delta=${delta:-?} does not bracket $low"
        sed 's/^/    | /' "$out" | tail -4
    fi
}

# records: the records printed parse as a bound file.
records() {
    grep '^collective=' "$out" >rec.bounds
    checks=$((checks + 1))
    if ! "$tool" bounds check rec.bounds >/dev/null 2>&1 || [ ! -s rec.bounds ]; then
        failed=$((failed + 1))
        echo "FAIL: the records do not load:"; sed 's/^/    | /' rec.bounds
    fi
}

# --- G by elements (Table IX row 2), a crash: n*P > 1000 fails, so n = 500 passes at P = 2
SAFECOLL_PROBE_FAULT=kind=crash,class=gelem,bound=1000 run 0 search --coll gather --procs 2 "${fast[@]}"
within gather 500; records
expect out "class=G_elements"; expect out "Table IX row 2"
expect err "crash: rank 0 died of signal 11"

# --- G by bytes (row 1), wrong data: s*n*P > 2000 at s = 1, P = 2
if ! lib_mpi_independent "search: G by bytes (allgather, wrong data) and its record's effectiveness"; then
    SAFECOLL_PROBE_FAULT=kind=wrong,class=gbytes,bound=2000 run 0 search --coll allgather --procs 2 "${fast[@]}" --out found.bounds
    within allgather 1000; records
    expect out "class=G_bytes"; expect out "Table IX row 1"; expect err "wrong data: rank 1: element"
    run 0 bounds check found.bounds; expect out "ok: 1 record"

    # --- effectiveness: with that record in the registry, the safe allgather
    # avoids the native call past the bound and passes (the fault is in the
    # native call only), and a search with --safe finds no failure beyond it
    export SAFECOLL_BOUNDS=found.bounds
    for n in 4000:"avoided (detector G) by" 500:"not triggered, ran native"; do
        checks=$((checks + 1))
        SAFECOLL_PROBE_FAULT=kind=wrong,class=gbytes,bound=2000 $MPIEXEC -n 2 "$tool" probe --safe \
            --coll allgather --n "${n%%:*}" >"$out" 2>"$err" ||
            { failed=$((failed + 1)); echo "FAIL: probe --safe at n = ${n%%:*}"; }
        expect out "safe: ${n#*:}"
    done
    SAFECOLL_PROBE_FAULT=kind=wrong,class=gbytes,bound=2000 run 0 search --safe --coll allgather \
        --procs 2 "${fast[@]}" --n-start 1001 --n-max 8000
    expect out "safe: no failure"; expect out "8000          -"
    SAFECOLL_BOUNDS=
fi

# --- type 2 (row 3), an error return: s*n > 300; for scatter a per-message X record at s = 1
if ! lib_mpi_independent "search: type 2 (scatter, an error return)"; then
    SAFECOLL_PROBE_FAULT=kind=error,class=type2,bound=300 run 0 search --coll scatter --procs 2 "${fast[@]}"
    within scatter 300; records
    expect out "class=X"; expect out " s=1 "; expect out "Table IX row 3"; expect err "MPI error"
fi

# --- G by elements for bcast (row 4: n > n_s at 2P and 2s), a hang ended by the watchdog
SAFECOLL_PROBE_FAULT=kind=hang,class=gelem,bound=300 run 0 search --coll bcast --procs 2 "${fast[@]}"
within bcast 300; records
expect out "collective=bcast class=G_elements"; expect out "Table IX row 4"
expect err "timeout: the watchdog ended a hang"

# --- --confirm-timeout: a collective slow above n = 300 (3 s, past the 2 s
# limit) times out once and passes with the confirming limit: no failure;
# a real hang still times out twice and is found
if ! lib_mpi_independent "search: --confirm-timeout"; then
    SAFECOLL_PROBE_FAULT=kind=hang,class=gelem,bound=300,delay=3 run 0 search --coll bcast \
        --procs 2 "${fast[@]}" --n-max 600 --confirm-timeout 10 --no-classify
    expect out "no failure"; expect err "timeout: the watchdog ended a hang"
    expect err "bcast P=2 char step 1 n=512: pass"
    SAFECOLL_PROBE_FAULT=kind=hang,class=gelem,bound=300 run 0 search --coll bcast --procs 2 \
        "${fast[@]}" --n-max 600 --confirm-timeout 3 --no-classify
    within bcast 300
    checks=$((checks + 1))
    if [ "$(grep -c 'timeout: the watchdog ended a hang' "$err")" -lt 2 ]; then
        failed=$((failed + 1)); echo "FAIL: a hang was not confirmed by a second timeout"
        sed 's/^/    | /' "$err" | tail -6
    fi
fi

# --- class X: n*(P+s) > 3000 fits no row; the record is restricted to s and P
if ! lib_mpi_independent "search: class X (alltoall)"; then
    SAFECOLL_PROBE_FAULT=kind=crash,class=x,bound=3000 run 0 search --coll alltoall --procs 2 "${fast[@]}"
    within alltoall 1000; records
    expect out "class=X"; expect out " s=1 P=2 "; expect err "fit no row of Table IX"
fi

# --- the i-forms: started and completed with MPI_Wait, searched and classified as
# their blocking forms, recorded under their own name.  iscatter, G by bytes
# (row 1), wrong data: s*n*P > 2000
if ! lib_mpi_independent "search: the i-forms and an i-form record's effectiveness"; then
    SAFECOLL_PROBE_FAULT=kind=wrong,class=gbytes,bound=2000 run 0 search --coll iscatter --procs 2 "${fast[@]}" --out ifound.bounds
    within iscatter 1000; records
    expect out "collective=iscatter class=G_bytes bound="; expect out "Table IX row 1"
    expect err "iscatter P=2 char step 2 n="; expect err "wrong data: rank 1: element"
    # ireduce, type 2 (bcast-like row 3: G_bytes s*n), an error return: s*n > 300
    SAFECOLL_PROBE_FAULT=kind=error,class=type2,bound=300 run 0 search --coll ireduce --procs 2 "${fast[@]}"
    within ireduce 300; records
    expect out "collective=ireduce class=G_bytes bound="; expect out "Table IX row 3"
    # igatherv, G by elements (row 2), a crash: n*P > 1000
    SAFECOLL_PROBE_FAULT=kind=crash,class=gelem,bound=1000 run 0 search --coll igatherv --procs 2 "${fast[@]}"
    within igatherv 500; records
    expect out "collective=igatherv class=G_elements bound="
    # the effectiveness check of an i-form: with the iscatter record the safe
    # iscatter avoids the native call past the bound and passes; the record of
    # iscatter says nothing of scatter, whose safe call stays native
    export SAFECOLL_BOUNDS=ifound.bounds
    for cn in iscatter:4000:0:"avoided (detector G) by" iscatter:500:0:"not triggered, ran native" \
              scatter:4000:0:"not triggered, ran native"; do
        IFS=: read -r c n want text <<<"$cn"
        checks=$((checks + 1))
        SAFECOLL_PROBE_FAULT=kind=wrong,class=gbytes,bound=2000 $MPIEXEC -n 2 "$tool" probe --safe \
            --coll "$c" --n "$n" >"$out" 2>"$err"
        got=$?
        [ "$got" -eq "$want" ] ||
            { failed=$((failed + 1)); echo "FAIL: probe --safe $c at n = $n: exit $got, expected $want"; }
        expect out "safe: $text"
    done
    SAFECOLL_PROBE_FAULT=kind=wrong,class=gbytes,bound=2000 run 0 search --safe --coll iscatter \
        --procs 2 "${fast[@]}" --n-start 1001 --n-max 8000
    expect out "safe: no failure"; expect out "8000          -"
    SAFECOLL_BOUNDS=
fi

# --- the collectives added last (scatterv, alltoallv, reduce_scatter_block,
# reduce_scatter, scan, exscan and their i-forms): a simulated bug is found
# and classified by their row of Table V.  scatterv, G by elements (row 2),
# a crash: n*P > 1000
if ! lib_mpi_independent "search: the collectives added last"; then
    SAFECOLL_PROBE_FAULT=kind=crash,class=gelem,bound=1000 run 0 search --coll scatterv --procs 2 "${fast[@]}"
    within scatterv 500; records
    expect out "collective=scatterv class=G_elements bound="; expect out "Table IX row 2"
    expect err "crash: rank 0 died of signal 11"
    # alltoallv, G by bytes (row 1), wrong data: s*n*P > 2000
    SAFECOLL_PROBE_FAULT=kind=wrong,class=gbytes,bound=2000 run 0 search --coll alltoallv --procs 2 "${fast[@]}"
    within alltoallv 1000; records
    expect out "collective=alltoallv class=G_bytes bound="; expect out "Table IX row 1"
    expect err "wrong data: rank 1: element"
    # reduce_scatter_block: n is one rank's block, the global buffer n*P (as
    # the registry counts it), so G by elements is row 2 and the record's
    # bound n_s*P; wrong data of the reduction: n*P > 1000
    SAFECOLL_PROBE_FAULT=kind=wrong,class=gelem,bound=1000 run 0 search --coll reduce_scatter_block --procs 2 "${fast[@]}"
    within reduce_scatter_block 500; records
    expect out "collective=reduce_scatter_block class=G_elements bound="; expect out "Table IX row 2"
    expect err "wrong data: rank 1: element"
    # iscan: its global buffer is the message (G_e = n), so type 2 in bytes is
    # row 3 and a G_bytes record s*n_s; an error return: s*n > 300
    SAFECOLL_PROBE_FAULT=kind=error,class=gbytes,bound=300 run 0 search --coll iscan --procs 2 "${fast[@]}"
    within iscan 300; records
    expect out "collective=iscan class=G_bytes bound="; expect out "Table IX row 3"; expect err "MPI error"
fi

# --- SIGKILL (the kernel's out-of-memory kill): a limit, not a bug
SAFECOLL_PROBE_FAULT=kind=kill,class=gelem,bound=1000 run 0 search --coll gather --procs 2 "${fast[@]}"
expect err "out of memory: a process was killed by SIGKILL"; expect out "memory limit"

# --- the memory estimate stops Step 1 before any failure: gather at P = 2
# holds 2*s*n*P = 4n bytes, so 2Ki stops at n = 1024
if ! lib_mpi_independent "search: the memory estimate and the count limit"; then
    run 0 search --coll gather --procs 2 "${fast[@]}" --mem-limit 2Ki --no-classify
    expect out "512          -"; expect out "memory limit"
    run 0 search --coll gather --procs 2,4 --dry-run --mem-limit 1Mi
    expect out "gather P=4 char: Step 1 at most 18 probes"; expect out "memory limit 1048576 bytes"
    # the estimates of the collectives added last, by hand at n = 1000, s = 4,
    # P = 4: scatterv, scan, exscan 2*s*n*P; alltoallv 2*s*n*P*P;
    # reduce_scatter(_block) s*n*P*(P+1); the i-forms as their blocking forms
    run 0 search --coll scatterv,alltoallv,reduce_scatter_block,reduce_scatter,scan,exscan,ialltoallv,ireduce_scatter \
        --procs 4 --type int --dry-run --n-start 1000 --n-max 1000 --mem-limit 1Mi
    for cb in scatterv:32000 alltoallv:128000 reduce_scatter_block:80000 reduce_scatter:80000 \
              scan:32000 exscan:32000 ialltoallv:128000 ireduce_scatter:80000; do
        expect out "${cb%%:*} P=4 int: Step 1 at most 1 probes (n = 1000 .. 1000, ${cb#*:} bytes of buffers"
    done
    # the count limit of the v forms: their int displacements (P-1)*n end at
    # INT_MAX/(P-1), for the search's plan and for the probe itself
    run 0 search --coll alltoallv,iscatterv,gatherv,reduce_scatter --procs 3 --dry-run --mem-limit 1Mi
    expect out "alltoallv P=3 char: Step 1"; expect out "count limit 1073741823"
    expect out "reduce_scatter P=3 char: Step 1"; expect out "count limit 2147483647"
    checks=$((checks + 1))
    $MPIEXEC -n 3 "$tool" probe --coll ialltoallv --n 1073741824 >"$out" 2>"$err"
    got=$?
    [ "$got" -eq 2 ] || { failed=$((failed + 1)); echo "FAIL: probe ialltoallv past the int displacements: exit $got, expected 2"; }
    expect err "the displacements of ialltoallv at n = 1073741824 pass the int limit"
fi

# --- the live display on a terminal: script(1) gives the search a pty, on
# which one status line (carriage return, erase to the end of the line) is
# rewritten per probe, with the count of probes, the elapsed time and the
# time left, instead of a line per probe; the table follows (COLUMNS: no
# probe text cut to the width)
if ! lib_mpi_independent "search: the live display on a terminal"; then
    if command -v script >/dev/null 2>&1; then
        checks=$((checks + 1))
        COLUMNS=200 SAFECOLL_PROBE_FAULT=kind=crash,class=gelem,bound=1000 script -qec \
            "'$tool' search --coll gather --procs 2 ${fast[*]}" /dev/null >tty.out 2>&1
        got=$?
        [ "$got" -eq 0 ] || { failed=$((failed + 1)); echo "FAIL: search on a pty: exit $got"; }
        cr=$(printf '\r\033[K')
        for text in "${cr}search: 0/~" "(gather P=2 char step 1 n=64 ...), elapsed 0:" \
                    "(gather P=2 char step 1 n=512 ...)" "(gather P=2 char step 2 n=384 " \
                    "(gather P=4 char verify n=224 " "(gather P=2 short verify n=512 " \
                    ": pass), elapsed " ", left ~" \
                    "${cr}  gather P=2 char step 1 n=512: crash: rank 0 died of signal 11" \
                    "collective=gather class=G_elements" "Table IX row 2"; do
            checks=$((checks + 1))
            grep -qF -- "$text" tty.out ||
                { failed=$((failed + 1)); echo "FAIL: the pty output lacks '$text':"; cat -v tty.out | tail -5; }
        done
        # the table starts on a line of its own, and a probe that passed got
        # no line of its own (the failures do, above)
        checks=$((checks + 1))
        if ! grep -qE "^collective +P +s +n_s" <(tr '\r' '\n' <tty.out) ||
           grep -qE "^  gather P=2 char step .*: pass" <(tr '\r' '\n' <tty.out) ||
           ! grep -qE "^gather +2 +1 +[0-9]+ +[0-9]+ +G_elements" <(tr '\r' '\n' <tty.out); then
            failed=$((failed + 1)); echo "FAIL: the pty output's table or lines:"; cat -v tty.out | tail -8
        fi
    else
        lib_skip "search: the live display on a terminal" "script(1) is missing"
    fi
fi

# --- the launcher fails, the probe refuses its fault specification, bad options
run 1 search --coll gather --procs 2 "${fast[@]}" --launcher 'no-such-launcher -n {P}'
expect err "the launcher failed: no probe ran (launcher exit status 127): cannot run the launcher 'no-such-launcher'"
SAFECOLL_PROBE_FAULT=kind=boom,class=gelem,bound=1 run 1 search --coll gather --procs 2 "${fast[@]}"
expect err "SAFECOLL_PROBE_FAULT: unknown kind 'boom'"
run 2 search --coll gather;                    expect err "--coll and --procs are required"
run 2 search --coll frob --procs 2;            expect err "unknown or unsupported collective"
run 2 search --coll gather --procs 2 --f 0;    expect err "--f is not a number"
run 2 search --coll gather --procs 2 --mem-limit 8G; expect err "--mem-limit is not a number"
run 2 search --coll gather --procs 2 --bogus 1; expect err "unknown option: --bogus"
run 2 probe --coll gather;                     expect err "--coll and --n are required"
run 2 probe --safe --coll gather;              expect err "--coll and --n are required"
run 0 search --help;                           expect out "usage: safecoll search"

# --- the probe alone: every supported collective and type passes on the real MPI
if ! lib_mpi_independent "search: the probe alone, every collective and type" \
    "through the tool, a job each, in the MPICH pass; this MPI's collectives in one job: tests/mpi/test_probe_every (make check-mpi)"; then
    for c in gather scatter allgather alltoall bcast reduce allreduce gatherv allgatherv \
             igather iscatter iallgather ialltoall ibcast ireduce iallreduce igatherv iallgatherv; do
        types="char short int long float double"
        # The i-forms share the blocking forms' buffers and checks: two types
        # (integer and floating reductions) keep the time down.
        [ "${c#i}" != "$c" ] && types="char double"
        for t in $types; do
            checks=$((checks + 1))
            if ! $MPIEXEC -n 3 "$tool" probe --coll $c --type $t --n 257 >"$out" 2>&1; then
                failed=$((failed + 1)); echo "FAIL: probe $c $t:"; sed 's/^/    | /' "$out"
            fi
        done
    done
    # the collectives added last at P = 1, 2 and 3, the reductions with an
    # integer (BXOR) and a floating type (SUM); exscan's rank 0 checks nothing
    for c in scatterv alltoallv reduce_scatter_block reduce_scatter scan exscan \
             iscatterv ialltoallv ireduce_scatter_block ireduce_scatter iscan iexscan; do
        pt="1:long 2:double 3:char 3:float"
        [ "${c#i}" != "$c" ] && pt="1:int 2:float 3:char"
        for x in $pt; do
            checks=$((checks + 1))
            if ! $MPIEXEC -n "${x%%:*}" "$tool" probe --coll $c --type "${x#*:}" --n 300 >"$out" 2>&1; then
                failed=$((failed + 1)); echo "FAIL: probe $c P=${x%%:*} ${x#*:}:"; sed 's/^/    | /' "$out"
            fi
        done
    done
fi
# and their checks see wrong data where the searches above do not look
if ! lib_mpi_independent "search: the probe's checks of the collectives added last"; then
    for c in reduce_scatter exscan ireduce_scatter_block iscatterv; do
        checks=$((checks + 1))
        SAFECOLL_PROBE_FAULT=kind=wrong,class=gelem,bound=0 $MPIEXEC -n 3 "$tool" probe \
            --coll "$c" --type short --n 40 >"$out" 2>&1
        got=$?
        if [ "$got" -ne 65 ] || ! grep -qF "rank 2: element 20 is wrong" "$out"; then
            failed=$((failed + 1)); echo "FAIL: probe $c wrong data: exit $got, expected 65"
            sed 's/^/    | /' "$out"
        fi
    done
fi
# every fault spelling the probe accepts, and the exit status of each kind
for k in crash:139:allreduce hang:67:allreduce wrong:65:allreduce error:66:allreduce \
         crash:139:iallreduce hang:67:iallgather wrong:65:ibcast error:66:ialltoall; do
    IFS=: read -r kind want coll <<<"$k"
    checks=$((checks + 1))
    rm -f rep.*
    SAFECOLL_PROBE_FAULT=kind=$kind,class=type2,bound=1Ki $MPIEXEC -n 2 "$tool" probe \
        --coll "$coll" --n 2000 --time-limit 1 --report rep >"$out" 2>&1
    got=$?
    # MPICH's mpiexec exits with the signal's number when a rank dies of
    # one, Open MPI's with 128 + the number.
    [ "$kind" = crash ] && [ "$got" -eq 139 ] && want=139
    [ "$kind" = crash ] && [ "$got" -ne 139 ] && want=11
    # Every rank of a hang exits 67 on its own timer, but the ranks' timers
    # fire apart: when MPICH's mpiexec ends a rank whose timer has not fired
    # yet, its status can be the signal it sent (1 or 9). The rank reports
    # say what each rank saw: every rank that reported timed out.
    if [ "$kind" = hang ] && [ "$got" -ne 67 ] && { [ "$got" -eq 1 ] || [ "$got" -eq 9 ]; } &&
        [ "$(cat rep.* 2>/dev/null | grep -vc '^timeout$')" -eq 0 ] &&
        grep -qx timeout rep.* 2>/dev/null; then
        want=$got
    fi
    if [ "$got" -ne "$want" ]; then
        failed=$((failed + 1)); echo "FAIL: probe $coll fault $kind: exit $got, expected $want"
    fi
done
if ! lib_mpi_independent "search: every fault class of the probe"; then
    for c in gelem gbytes x; do
        checks=$((checks + 1))
        SAFECOLL_PROBE_FAULT=kind=wrong,class=$c,bound=0 $MPIEXEC -n 2 "$tool" probe \
            --coll gather --n 10 >"$out" 2>&1
        [ $? -eq 65 ] || { failed=$((failed + 1)); echo "FAIL: probe fault class $c"; }
    done
fi

# --- every collective the probe supports, through the calls and checks the
# collective table generates (src/probe/call.c): MPI's and the safe one,
# blocking and i-form, pass at P = 3 with a type per collective; a wrong
# element that a fault puts in the native result is found on each.
if ! lib_mpi_independent "search: every collective through the table's calls and checks" \
    "MPI-independent (the checks of a wrong element), checked in the MPICH pass; MPI's and the safe calls on this MPI in one job: tests/mpi/test_probe_every (make check-mpi)"; then
    types=(char short int long float double)
    k=0
    for c in gather scatter allgather alltoall bcast reduce allreduce gatherv scatterv allgatherv \
        alltoallv reduce_scatter_block reduce_scatter scan exscan; do
        t=${types[$((k % 6))]}; k=$((k + 1))
        for form in "$c" "i$c"; do
            for safe in "" --safe; do
                checks=$((checks + 1))
                $MPIEXEC -n 3 "$tool" probe --coll "$form" --n 7 --type "$t" $safe >"$out" 2>&1
                rc=$?
                if [ "$rc" -ne 0 ]; then
                    failed=$((failed + 1)); echo "FAIL: probe $form $t $safe: exit $rc"; tail -3 "$out"
                fi
            done
        done
        checks=$((checks + 1))
        SAFECOLL_PROBE_FAULT=kind=wrong,class=gelem,bound=0 $MPIEXEC -n 3 "$tool" probe \
            --coll "$c" --n 7 --type "$t" >"$out" 2>&1
        [ $? -eq 65 ] || { failed=$((failed + 1)); echo "FAIL: probe $c $t: a wrong element passed"; }
    done
fi

echo "  search: $checks checks, $failed failed"
[ "$failed" -eq 0 ]
