#!/usr/bin/env bash
# The man pages `make man` builds: both render with groff without a warning,
# and safecoll(1) says what the tool says: a section for every command and
# subcommand the tool's --help texts list (walked here on their own, not
# through tools/man.sh), holding every line of that command's --help.  A
# page with a section taken out must fail these checks, and is tried too, so
# that a check that cannot fail does not pass unnoticed.
#
# Then the per-function pages (MANDIR/man3, tools/man3.py): one for every
# function libsafecoll exports (nm -D LIB), each naming its function and
# prototype, rendering without a warning and within 80 columns; a set with
# a page taken out must fail too.  Where they were not made (no doxygen or
# python3: SAFECOLL_MAN3 empty), that part is a skip with the reason.
#
#   tests/check-man.sh TOOL MANDIR LIB  (make check-man: bin/safecoll man
#                                        lib/libsafecoll.so.X.Y.Z)
#
# Environment: GROFF (default groff), SAFECOLL_MAN3 (1: the pages were made).  Prints one line per failed assertion
# and "man: N checks, F failed"; exit status non-zero when anything failed.
set -uo pipefail

tool=${1:?usage: check-man.sh TOOL MANDIR LIB}
mandir=${2:?usage: check-man.sh TOOL MANDIR LIB}
lib=${3:?usage: check-man.sh TOOL MANDIR LIB}
GROFF=${GROFF:-groff}
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/safecoll-man.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
checks=0
failed=0

fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

# render PAGE DEVICE: the page as text, warnings (-ww) to $scratch/warn.
render() {
    "$GROFF" -man -ww -T"$2" -P-cbou "$1" 2>"$scratch/warn"
}

for page in "$mandir/safecoll.1" "$mandir/libsafecoll.3"; do
    checks=$((checks + 1))
    if [ ! -s "$page" ]; then fail "$page is missing or empty"; continue; fi
    for dev in utf8 ascii; do
        render "$page" "$dev" >/dev/null
        if [ -s "$scratch/warn" ]; then
            fail "$GROFF -man -T$dev $page warns:"; sed 's/^/    | /' "$scratch/warn"
        fi
    done
done

# Both fit 80 columns as man(1) shows them on an 80-column terminal (a
# line length of 78; safecoll(1) has the help texts in no-fill mode at an
# indent of 3).
for page in safecoll.1 libsafecoll.3; do
    checks=$((checks + 1))
    "$GROFF" -man -Tutf8 -rLL=78n -P-cbou "$mandir/$page" 2>/dev/null |
        awk 'length($0) > 80 { n++; if (n <= 5) print "    | " length($0) ": " $0 }
             END { exit n > 0 }' > "$scratch/wide" ||
        { fail "$page has lines over 80 columns:"; cat "$scratch/wide"; }
done

# libsafecoll(3) tells Fortran programs what to use and how to build.
render "$mandir/libsafecoll.3" ascii > "$scratch/lib3.txt"
for text in '^FORTRAN$' 'use safecoll_f08' 'pkg-config --cflags --libs safecoll_f08' \
            'safecoll::safecoll_f08' 'COMPONENTS f08'; do
    checks=$((checks + 1))
    grep -q -- "$text" "$scratch/lib3.txt" || fail "libsafecoll.3 does not say '$text'"
done

# Every command path: "" (the tool), then each name of a "Commands:" table,
# depth first, as "bounds", "bounds list", ...
commands_of() {
    awk '/^Commands:$/ { on = 1; next } on && /^  [^ ]/ { print $1; next } on { exit }'
}
walk() {
    local sub
    printf '%s\n' "$*"
    # shellcheck disable=SC2068 # the words are the command path
    for sub in $("$tool" $@ --help | commands_of); do walk "$@" "$sub"; done
}
mapfile -t paths < <(walk)
[ "${#paths[@]}" -ge 5 ] || fail "only ${#paths[@]} commands found in '$tool --help'"
printf '%s\n' "${paths[@]}" | grep -qx bisect || fail "no 'bisect' among the commands found"

# check_page PAGE: the failures of PAGE against the tool, counted in $bad.
# Lines are compared with their blanks squeezed (the page indents them).
squeeze() { sed -e 's/[[:space:]]\+/ /g' -e 's/^ //' -e 's/ $//'; }
check_page() {
    local page=$1 path text line
    bad=0
    render "$page" ascii | squeeze > "$scratch/page.txt"
    for path in "${paths[@]}"; do
        if [ -n "$path" ]; then
            checks=$((checks + 1))
            grep -qx "\\.SS \"safecoll $path\"" "$page" ||
                { bad=$((bad + 1)); echo "FAIL: ${page##*/}: no section for 'safecoll $path'"; }
        fi
        # shellcheck disable=SC2086 # the words are the command path
        text=$("$tool" $path --help)
        while IFS= read -r line; do
            [ -n "$line" ] || continue
            checks=$((checks + 1))
            grep -qxF -- "$line" "$scratch/page.txt" ||
                { bad=$((bad + 1)); echo "FAIL: ${page##*/}: 'safecoll${path:+ $path} --help' line missing: $line"; }
        done < <(printf '%s\n' "$text" | squeeze)
    done
}

check_page "$mandir/safecoll.1"
failed=$((failed + bad))

# The mutant: the page without the section of the last command listed.
last=${paths[${#paths[@]}-1]}
sed "/^\\.SS \"safecoll $last\"\$/,/^\\.fi\$/d" "$mandir/safecoll.1" > "$scratch/mutant.1"
checks=$((checks + 1))
check_page "$scratch/mutant.1" > "$scratch/mutant.log"
if [ "$bad" -eq 0 ]; then
    fail "a page without 'safecoll $last' passes the checks"
else
    echo "  mutant without 'safecoll $last': $bad failures, as it should"
fi

# --- the per-function pages
# check_man3 DIR: the failures of the pages in DIR, counted in $bad3.
check_man3() {
    local dir=$1 f page
    bad3=0
    for f in "${funcs[@]}"; do
        page=$dir/$f.3
        checks=$((checks + 1))
        if [ ! -s "$page" ]; then
            bad3=$((bad3 + 1)); echo "FAIL: no man page $f.3 for the exported $f"; continue
        fi
        for dev in utf8 ascii; do
            "$GROFF" -man -ww -T"$dev" -rLL=78n -P-cbou "$page" >"$scratch/f.txt" 2>"$scratch/warn"
            if [ -s "$scratch/warn" ]; then
                bad3=$((bad3 + 1)); echo "FAIL: $GROFF -man -T$dev $f.3 warns:"
                sed 's/^/    | /' "$scratch/warn" | head -3
            fi
        done
        awk 'length($0) > 80 { exit 1 }' "$scratch/f.txt" ||
            { bad3=$((bad3 + 1)); echo "FAIL: $f.3 has lines over 80 columns"; }
        squeeze <"$scratch/f.txt" >"$scratch/fs.txt"
        grep -q "^$f - [[:alnum:]]" "$scratch/fs.txt" ||
            { bad3=$((bad3 + 1)); echo "FAIL: $f.3: no NAME line '$f - ...'"; }
        if ! grep -q "^SYNOPSIS\$" "$scratch/fs.txt" || ! grep -q "#include <safecoll" "$scratch/fs.txt" ||
           ! grep -q "[ *]$f(" "$scratch/fs.txt"; then
            bad3=$((bad3 + 1)); echo "FAIL: $f.3: no SYNOPSIS with its #include and prototype"
        fi
    done
}
if [ -z "${SAFECOLL_MAN3:-}" ]; then
    lib_skip man3 "the per-function pages were not made (doxygen or python3 missing)"
else
    mapfile -t funcs < <(nm -D --defined-only "$lib" | awk '$2 == "T" && $3 ~ /^safecoll_/ { print $3 }' | sort)
    checks=$((checks + 1))
    [ "${#funcs[@]}" -ge 100 ] || fail "only ${#funcs[@]} exported functions found in $lib"
    check_man3 "$mandir/man3"
    failed=$((failed + bad3))
    for f in safecoll_gatherv safecoll_hang_start safecoll_bounds_load; do
        checks=$((checks + 1))
        "$GROFF" -man -Tascii -P-cbou "$mandir/man3/$f.3" 2>/dev/null | head -1 |
            grep -q "^${f^^}(3) " || fail "$f.3: the title is not ${f^^}(3)"
    done
    # The mutant: the pages without that of safecoll_gatherv.
    mkdir "$scratch/mutant3"
    cp "$mandir"/man3/safecoll_*.3 "$scratch/mutant3/"
    rm "$scratch/mutant3/safecoll_gatherv.3"
    checks=$((checks + 1))
    check_man3 "$scratch/mutant3" > "$scratch/mutant3.log"
    if [ "$bad3" -ne 1 ]; then
        fail "a set of pages without safecoll_gatherv.3 gives $bad3 failures, not 1"
    else
        echo "  mutant without safecoll_gatherv.3: 1 failure, as it should"
    fi
    echo "  ${#funcs[@]} per-function pages"
fi

echo "man: ${#paths[@]} commands, $checks checks, $failed failed"
[ "$failed" -eq 0 ]
