#!/usr/bin/env bash
# The man pages `make man` builds: both render with groff without a warning,
# and safecoll(1) says what the tool says: a section for every command and
# subcommand the tool's --help texts list (walked here on their own, not
# through tools/man.sh), holding every line of that command's --help.  A
# page with a section taken out must fail these checks, and is tried too, so
# that a check that cannot fail does not pass unnoticed.
#
#   tests/check-man.sh TOOL MANDIR      (make check-man: bin/safecoll man)
#
# Environment: GROFF (default groff).  Prints one line per failed assertion
# and "man: N checks, F failed"; exit status non-zero when anything failed.
set -uo pipefail

tool=${1:?usage: check-man.sh TOOL MANDIR}
mandir=${2:?usage: check-man.sh TOOL MANDIR}
GROFF=${GROFF:-groff}
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

# safecoll(1) fits 80 columns as man(1) shows it on an 80-column terminal
# (a line length of 78, the help texts in no-fill mode at an indent of 3).
checks=$((checks + 1))
"$GROFF" -man -Tutf8 -rLL=78n -P-cbou "$mandir/safecoll.1" 2>/dev/null |
    awk 'length($0) > 80 { n++; if (n <= 5) print "    | " length($0) ": " $0 }
         END { exit n > 0 }' > "$scratch/wide" ||
    { fail "safecoll.1 has lines over 80 columns:"; cat "$scratch/wide"; }

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

echo "man: ${#paths[@]} commands, $checks checks, $failed failed"
[ "$failed" -eq 0 ]
