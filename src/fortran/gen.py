#!/usr/bin/env python3
"""Generate the collective part of the Fortran binding (issue 20).

    src/fortran/gen.py     rewrites src/fortran/shim.c,
                           src/fortran/coll_spec.inc and coll_body.inc

Every safe collective gets a C function taking Fortran handles (MPI_Fint)
and buffers as C descriptors (ISO_Fortran_binding.h), and a Fortran
wrapper with mpi_f08 types and an optional ierror; the int and the
INTEGER(MPI_COUNT_KIND) wrappers share one generic name, which the module
makes public.  Its input is the collective table (src/core/colls.h) and
the C declarations (include/safecoll/coll.h), read by src/core/colls.py:
a collective added there is bound without an edit here.  The outputs are
committed, so that building needs no Python; `make check-fortran` and
`make check-switch` (tests/check-generated.sh) check that they are what
this script writes.
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'core'))
import colls  # noqa: E402  (src/core/colls.py: the one table)

# The collectives, their forms and their parameters come from the table
# (src/core/colls.h) and the C declarations (include/safecoll/coll.h):
# this file holds no list of its own.  The argument kinds are colls.py's.
ROWS = colls.rows()
NAMES = [r.name for r in ROWS]
DECLS = colls.declarations()


def forms(name):
    """The forms made: (non-blocking?, large-count?), those coll.h declares.
    The i-forms with datatype arrays (ialltoallw) are left out: their
    arrays would have to be converted to C handles that live until the
    request completes, which a shim cannot know."""
    row = next(r for r in ROWS if r.name == name)
    out = []
    for nb, big in row.forms():
        c = colls.cname(name, nb, big)
        if c not in DECLS:
            raise SystemExit('gen.py: %s has a row in colls.h but no declaration in coll.h' % c)
        if nb and any(k == 'types' for k, _ in DECLS[c]):
            continue
        out.append((nb, big))
    return out


BUFS = ('sbuf', 'rbuf', 'buf')


def args_of(name, nb, big=False):
    return DECLS[colls.cname(name, nb, big)]


def cname(name, nb, big):
    return 'safecoll_' + ('i' if nb else '') + name + ('_c' if big else '')


def shim_name(name, nb, big):
    return 'sc__f08_' + ('i' if nb else '') + name + ('_c' if big else '')


# ------------------------------------------------------------------ C
def c_param(kind, n, big):
    return {
        'sbuf': 'const CFI_cdesc_t *' + n, 'rbuf': 'const CFI_cdesc_t *' + n,
        'buf': 'const CFI_cdesc_t *' + n,
        'cnt': ('MPI_Count ' if big else 'MPI_Fint ') + n,
        'cnts': ('const MPI_Count ' if big else 'const int ') + n + '[]',
        'dsp': ('const MPI_Aint ' if big else 'const int ') + n + '[]',
        'type': 'MPI_Fint ' + n, 'types': 'const MPI_Fint ' + n + '[]',
        'op': 'MPI_Fint ' + n, 'root': 'MPI_Fint ' + n, 'comm': 'MPI_Fint ' + n,
        'req': 'MPI_Fint *' + n,
    }[kind]


def c_arg(kind, n):
    return {
        'sbuf': 'b_' + n, 'rbuf': 'b_' + n, 'buf': 'b_' + n,
        'type': 'MPI_Type_f2c(' + n + ')', 'types': 't_' + n, 'op': 'MPI_Op_f2c(' + n + ')',
        'comm': 'c', 'req': '&r',
    }.get(kind, n)


def wrap(head, items, indent, close, width=99):
    """head(item, item, ...)close, cut at width."""
    out, line = [], head
    for i, it in enumerate(items):
        piece = it + (', ' if i < len(items) - 1 else close)
        if len(line) + len(piece.rstrip()) > width:
            out.append(line.rstrip())
            line = ' ' * indent
        line += piece
    out.append(line)
    return '\n'.join(out)


def c_func(name, nb, big, proto):
    a = args_of(name, nb, big)
    params = [c_param(k, n, big) for k, n in a] + ['const CFI_cdesc_t *in_place',
                                                     'const CFI_cdesc_t *bottom']
    head = 'int ' + shim_name(name, nb, big) + '('
    decl = wrap(head, params, len(head), ')')
    if proto:
        return decl + ';'
    s = ['/* ' + cname(name, nb, big) + ' */', decl, '{']
    s.append('    MPI_Comm c = MPI_Comm_f2c(comm);')
    bufs = [n for k, n in a if k in BUFS]
    for n in bufs:
        s.append('    void *b_%s;' % n)
    if nb:
        s.append('    MPI_Request r = MPI_REQUEST_NULL;')
        s.append('    *request = MPI_Request_c2f(MPI_REQUEST_NULL);')
    if bufs:
        for n in bufs:
            s.append('    if (sc__f08_buf(%s, in_place, bottom, &b_%s))' % (n, n))
            s.append('        return sc__f08_not_contiguous(c, "%s", "%s");'
                     % (cname(name, nb, big), n))
    else:
        s.append('    (void)in_place;\n    (void)bottom;')
    cargs = [c_arg(k, n) for k, n in a]

    def call(lead):
        h = '    ' + lead + cname(name, nb, big) + '('
        return wrap(h, cargs, len(h), ');')
    if any(k == 'types' for k, _ in a):
        # The send types are not looked at with MPI_IN_PLACE.
        s.append('    MPI_Datatype *t_sendtypes = NULL, *t_recvtypes = NULL;')
        s.append('    int rc = sc__f08_types(c, b_sendbuf == MPI_IN_PLACE ? NULL : sendtypes,')
        s.append('                           recvtypes, &t_sendtypes, &t_recvtypes);')
        s.append('    if (rc != MPI_SUCCESS)\n        return rc;')
        s.append(call('rc = '))
        s.append('    free(t_sendtypes);\n    free(t_recvtypes);\n    return rc;')
    elif nb:
        s.append(call('int rc = '))
        s.append('    *request = MPI_Request_c2f(r);\n    return rc;')
    else:
        s.append(call('return '))
    s.append('}')
    return '\n'.join(s)


C_HEAD = '''/* Generated by src/fortran/gen.py: do not edit.
 *
 * The C half of the Fortran binding (module safecoll_f08): one function a
 * safe collective, taking Fortran handles and the buffers as C descriptors
 * (Fortran 2018, ISO_Fortran_binding.h), so that mpi_f08's MPI_IN_PLACE
 * and MPI_BOTTOM, Fortran variables whose addresses are not C's, are told
 * apart here and replaced by C's.  Part of libsafecoll_f08, never of
 * libsafecoll.
 */
#include <stdio.h>
#include <stdlib.h>

#include <ISO_Fortran_binding.h>

#include <safecoll.h>

/* Fortran passes default INTEGER arrays, which the interfaces declare
 * INTEGER(c_int), to the C calls' int arrays; MPI_COUNT_KIND and
 * MPI_ADDRESS_KIND arrays to MPI_Count and MPI_Aint ones. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint is not int");

/* The C address of a Fortran buffer: C's MPI_IN_PLACE or MPI_BOTTOM for
 * Fortran's, else its first byte.  A buffer that is not contiguous (an
 * array section with a stride) is refused: 1. */
static int sc__f08_buf(const CFI_cdesc_t *d, const CFI_cdesc_t *in_place,
                       const CFI_cdesc_t *bottom, void **out)
{
    if (d->base_addr == in_place->base_addr) {
        *out = MPI_IN_PLACE;
        return 0;
    }
    if (d->base_addr == bottom->base_addr) {
        *out = MPI_BOTTOM;
        return 0;
    }
    if (!CFI_is_contiguous(d))
        return 1;
    *out = d->base_addr;
    return 0;
}

/* A non-contiguous buffer, argument arg of fn: MPI_ERR_BUFFER, raised by
 * the library as its own errors are (safecoll_error_raise): the message
 * in safecoll_last_error(), on stderr before a handler that ends the job,
 * then the communicator's error handler. */
static int sc__f08_not_contiguous(MPI_Comm c, const char *fn, const char *arg)
{
    char m[320];
    int rank = -1;

    MPI_Comm_rank(c != MPI_COMM_NULL ? c : MPI_COMM_WORLD, &rank);
    snprintf(m, sizeof m, "%s: rank %d: %s is not contiguous (an array section with a "
             "stride?); the Fortran binding takes contiguous buffers only: pass a contiguous "
             "array, or a copy of the section", fn, rank, arg);
    return safecoll_error_raise(c, MPI_ERR_BUFFER, m);
}

/* alltoallw's datatype arrays as C handles, one a rank of the group the
 * arrays describe (the remote group of an intercommunicator); the send
 * array is NULL when it is not looked at.  The caller frees both. */
static int sc__f08_types(MPI_Comm c, const MPI_Fint *fs, const MPI_Fint *fr,
                         MPI_Datatype **s, MPI_Datatype **r)
{
    int inter = 0, n = 0;
    if (c == MPI_COMM_NULL) {
        /* Left to the C call, which reports it. */
        return MPI_SUCCESS;
    }
    MPI_Comm_test_inter(c, &inter);
    if (inter)
        MPI_Comm_remote_size(c, &n);
    else
        MPI_Comm_size(c, &n);
    *s = fs ? malloc((size_t)n * sizeof **s + 1) : NULL;
    *r = malloc((size_t)n * sizeof **r + 1);
    if ((fs && !*s) || !*r) {
        free(*s);
        free(*r);
        *s = *r = NULL;
        return safecoll_error_raise(c, MPI_ERR_NO_MEM, "safecoll_alltoallw (Fortran binding): "
                                    "out of memory for the datatype arrays");
    }
    for (int i = 0; i < n; i++) {
        if (fs)
            (*s)[i] = MPI_Type_f2c(fs[i]);
        (*r)[i] = MPI_Type_f2c(fr[i]);
    }
    return MPI_SUCCESS;
}
'''


def gen_c():
    protos, bodies = [], []
    for name in NAMES:
        for nb, big in forms(name):
            protos.append(c_func(name, nb, big, True))
            bodies.append(c_func(name, nb, big, False))
    return C_HEAD + '\n/* Called from Fortran only, through the interfaces of coll_spec.inc; built\n' \
        ' * with hidden visibility, since the module procedures that call them are\n' \
        ' * in the same library. */\n' + '\n'.join(protos) + '\n\n' + '\n\n'.join(bodies) + '\n'


# ------------------------------------------------------------------ Fortran
def f_decl(kind, n, big, nb, shim):
    asy = ', asynchronous' if nb else ''
    if kind in BUFS:
        return 'type(*), dimension(..)' + (', intent(in)' if kind == 'sbuf' else '') + asy + ' :: ' + n
    if kind == 'cnt':
        k = 'MPI_COUNT_KIND' if big else ('c_int' if shim else '')
        return ('integer(%s)' % k if k else 'integer') + (', value' if shim else ', intent(in)') + ' :: ' + n
    if kind in ('cnts', 'dsp'):
        k = ('MPI_COUNT_KIND' if kind == 'cnts' else 'MPI_ADDRESS_KIND') if big else \
            ('c_int' if shim else '')
        return ('integer(%s)' % k if k else 'integer') + ', intent(in)' + asy + ' :: ' + n + '(*)'
    if kind in ('type', 'op', 'comm', 'root'):
        if shim:
            return 'integer(c_int), value :: ' + n
        t = {'type': 'type(MPI_Datatype)', 'op': 'type(MPI_Op)', 'comm': 'type(MPI_Comm)',
             'root': 'integer'}[kind]
        return t + ', intent(in) :: ' + n
    if kind == 'types':
        # mpi_f08's handle types are BIND(C) sequences of one INTEGER: an
        # array of them is an array of MPI_Fint to C.
        return 'type(MPI_Datatype), intent(in) :: ' + n + '(*)'
    if kind == 'req':
        return ('integer(c_int)' if shim else 'type(MPI_Request)') + ', intent(out) :: ' + n
    raise KeyError(kind)


def f_wrap(head, items, indent, close, width=100):
    out, line = [], head
    for i, it in enumerate(items):
        piece = it + (', ' if i < len(items) - 1 else close)
        if len(line) + len(piece.rstrip()) > width - 2:
            out.append(line.rstrip() + ' &')
            line = ' ' * indent
        line += piece
    out.append(line)
    return '\n'.join(out)


def fname(name, nb, big):
    return cname(name, nb, big) + '_f08'


def f_actual(kind, n):
    if kind in ('type', 'op', 'comm', 'req'):
        return n + '%MPI_VAL'
    return n


def gen_spec():
    s = ['! Generated by src/fortran/gen.py: do not edit.', '',
         '! The safe collectives the module offers, one generic name a call.']
    names = ['safecoll_' + ('i' if nb else '') + name for name in NAMES
             for nb in (False, True) if any(f[0] == nb for f in forms(name))]
    s.append(f_wrap('public :: ', names, 4, ''))
    s.append('')
    s.append('! The generic names: the int and the MPI_COUNT_KIND forms of a call.')
    for name in NAMES:
        for nb in (False, True):
            fs = [f for f in forms(name) if f[0] == nb]
            if not fs:
                continue
            g = 'safecoll_' + ('i' if nb else '') + name
            s.append('interface ' + g)
            s.append(f_wrap('  module procedure ', [fname(name, b, l) for b, l in fs], 19, ''))
            s.append('end interface ' + g)
    s.append('')
    s.append('! The C functions of src/fortran/shim.c.')
    s.append('interface')
    for name in NAMES:
        for nb, big in forms(name):
            a = args_of(name, nb, big)
            sn = shim_name(name, nb, big)
            names = [n for _, n in a] + ['in_place', 'bottom']
            s.append(f_wrap('  function %s(' % sn, names, 6, ') &'))
            s.append('      bind(C, name="%s") result(rc)' % sn)
            s.append('    import :: c_int, MPI_COUNT_KIND, MPI_ADDRESS_KIND' +
                     (', MPI_Datatype' if any(k == 'types' for k, _ in a) else ''))
            for k, n in a:
                s.append('    ' + f_decl(k, n, big, nb, True))
            s.append('    type(*), dimension(..), intent(in) :: in_place, bottom')
            s.append('    integer(c_int) :: rc')
            s.append('  end function ' + sn)
    s.append('end interface')
    return '\n'.join(s) + '\n'


def gen_body():
    s = ['! Generated by src/fortran/gen.py: do not edit.']
    for name in NAMES:
        for nb, big in forms(name):
            a = args_of(name, nb, big)
            fn = fname(name, nb, big)
            s.append('')
            s.append('!> ' + cname(name, nb, big) + ' with mpi_f08 arguments.')
            s.append(f_wrap('subroutine %s(' % fn, [n for _, n in a] + ['ierror'], 4, ')'))
            for k, n in a:
                s.append('  ' + f_decl(k, n, big, nb, False))
            s.append('  integer, optional, intent(out) :: ierror')
            s.append('  integer(c_int) :: rc')
            s.append(f_wrap('  rc = %s(' % shim_name(name, nb, big),
                            [f_actual(k, n) for k, n in a] + ['MPI_IN_PLACE', 'MPI_BOTTOM'], 6, ')'))
            s.append('  if (present(ierror)) ierror = rc')
            s.append('end subroutine ' + fn)
    return '\n'.join(s) + '\n'


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else here
    for f, text in (('shim.c', gen_c()), ('coll_spec.inc', gen_spec()),
                    ('coll_body.inc', gen_body())):
        with open(os.path.join(out, f), 'w') as fh:
            fh.write(text)


if __name__ == '__main__':
    main()
