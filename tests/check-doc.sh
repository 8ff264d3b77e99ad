#!/usr/bin/env bash
# The manual `make doc` builds: a main page with text (doc/mainpage.md),
# its links to the modules, and the examples listed with their code.
# `make check-doc` runs it after `make doc`; an empty index.html (no main
# page, no examples) once passed unnoticed.
#
#   tests/check-doc.sh [doc/html]
#
# Prints one line per failed assertion and "doc: N checks, F failed"; exit
# status non-zero when anything failed.
set -u

html=${1:-doc/html}
checks=0
failed=0

# expect FILE TEXT WHAT: FILE exists and contains TEXT.
expect() {
    checks=$((checks + 1))
    if [ ! -f "$1" ]; then
        failed=$((failed + 1)); echo "FAIL: $3: $1 is missing"
    elif ! grep -qF -- "$2" "$1"; then
        failed=$((failed + 1)); echo "FAIL: $3: $1 lacks \"$2\""
    fi
}

expect "$html/index.html" "MPI collectives that keep working at scale" "the main page's title"
expect "$html/index.html" "The API, by module" "the main page's text"
expect "$html/index.html" "group__displs.html" "the main page's link to a module"
expect "$html/index.html" "custom_displs_8c-example.html" "the main page's link to an example"
# Fortran programs find their module, its pkg-config file and CMake target.
for text in "safecoll_f08" "pkg-config --cflags --libs safecoll_f08" "safecoll::safecoll_f08" \
            "man safecoll_gatherv"; do
    expect "$html/index.html" "$text" "the main page on Fortran and the man pages"
done
for page in guide bounds_format testing performance architecture papers debugging scalability tracing; do
    expect "$html/index.html" "href=\"${page}.html\"" "the main page's link to the page ${page}"
done
for ex in examples/*.c; do
    name=$(basename "$ex" .c)
    expect "$html/examples.html" "${name}.c" "the list of examples"
    # The page shows the code: the example's first call of the library.
    call=$(grep -o 'safecoll_[a-z_]*(' "$ex" | head -1)
    expect "$html/${name}_8c-example.html" "${call%(}" "the code of ${name}.c"
done

echo "doc: $checks checks, $failed failed"
[ "$failed" -eq 0 ]
