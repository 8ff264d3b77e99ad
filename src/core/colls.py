"""The collective table read by the generators (issue 32, section 5).

The facts of a collective live in two hand-written places: its row of
SC_COLLS in src/core/colls.h and the declarations of its wrappers in
include/safecoll/coll.h.  This module reads both, so that the generators
(src/fortran/gen.py, the Fortran binding; src/core/gen.py, the mappings of
include/safecoll/switch.h) take every collective from them and keep no
table of their own.

    rows(root)          the rows of SC_COLLS, in the table's order
    declarations(root)  {C name: [(kind, parameter name), ...]} of coll.h
    p2p_calls(root)     [(MPI name, C name), ...] of the point-to-point
                        wrappers of include/safecoll/p2p.h, in its order

A parameter's kind is what the binding makes of it: sbuf (a send buffer),
rbuf (a receive buffer), buf (bcast's one buffer), cnt (one count), cnts
(a counts array), dsp (a displacements array), type, types (a datatype a
peer), op, root, comm, req (the request an i-form returns).
"""
import os
import re


class Row:
    """One row: X(S, name, c, v, pattern, strategies, tv, call)."""

    def __init__(self, cols):
        self.suffix, self.name = cols[0], cols[1]
        self.large = cols[2] == '1'
        self.v = cols[3] == '1'
        self.pattern = cols[4]
        call = split_args(cols[7].strip()[1:-1])
        # MPI's blocking name is MPI_<Name>, its i-form MPI_I<name>.
        self.mpi = 'MPI_' + call[0]
        self.impi = 'MPI_I' + self.name
        self.shape = call[1]

    def forms(self):
        """(non-blocking?, large-count?) of every wrapper, as coll.h has them."""
        return [(nb, big) for nb in (False, True) for big in (False, True)
                if self.large or not big]


def split_args(text):
    """The arguments of a macro call's text, split at top-level commas."""
    out, depth, cur = [], 0, ''
    for ch in text:
        if ch == ',' and depth == 0:
            out.append(cur.strip())
            cur = ''
            continue
        depth += ch == '('
        depth -= ch == ')'
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _strip_comments(text):
    return re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)


def default_root():
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def rows(root=None):
    root = root or default_root()
    with open(os.path.join(root, 'src', 'core', 'colls.h')) as fh:
        text = fh.read()
    body = text.split('#define SC_COLLS(X)', 1)[1].split('/* clang-format on */', 1)[0]
    body = _strip_comments(body.replace('\\\n', ' '))
    out, i = [], 0
    while True:
        m = re.compile(r'\bX\(').search(body, i)
        if not m:
            break
        depth, j = 1, m.end()
        while depth:
            depth += {'(': 1, ')': -1}.get(body[j], 0)
            j += 1
        cols = split_args(body[m.end():j - 1])
        if len(cols) != 8:
            raise ValueError('colls.h: a row of %d columns: %s' % (len(cols), cols))
        out.append(Row(cols))
        i = j
    if not out:
        raise ValueError('colls.h: no row of SC_COLLS found')
    return out


def _kind(ctype, name):
    t = ' '.join(ctype.split())
    if t == 'const void *':
        return 'sbuf'
    if t == 'void *':
        return 'buf' if name == 'buffer' else 'rbuf'
    if t == 'MPI_Request *':
        return 'req'
    if t == 'MPI_Datatype':
        return 'type'
    if t == 'const MPI_Datatype []':
        return 'types'
    if t == 'MPI_Op':
        return 'op'
    if t == 'MPI_Comm':
        return 'comm'
    if t in ('int', 'MPI_Count'):
        return 'root' if name == 'root' else 'cnt'
    if t in ('const int []', 'const MPI_Count []', 'const MPI_Aint []'):
        return 'dsp' if 'displs' in name else 'cnts'
    raise ValueError('coll.h: parameter %r of type %r has no kind' % (name, t))


def declarations(root=None):
    root = root or default_root()
    with open(os.path.join(root, 'include', 'safecoll', 'coll.h')) as fh:
        text = _strip_comments(fh.read())
    out = {}
    for m in re.finditer(r'SAFECOLL_API\s+int\s+(safecoll_\w+)\s*\(([^)]*)\)\s*;', text):
        params = []
        for p in m.group(2).split(','):
            p = ' '.join(p.split())
            pm = re.match(r'^(.*?)(\w+)\s*(\[\])?$', p)
            if not pm:
                raise ValueError('coll.h: %s: parameter %r not understood' % (m.group(1), p))
            ctype = pm.group(1).strip() + (' []' if pm.group(3) else '')
            ctype = ctype.replace('*', ' *').replace('  ', ' ').strip()
            params.append((_kind(ctype, pm.group(2)), pm.group(2)))
        out[m.group(1)] = params
    return out


def cname(name, nb, big):
    return 'safecoll_' + ('i' if nb else '') + name + ('_c' if big else '')


def p2p_calls(root=None):
    """The point-to-point wrappers declared in p2p.h: each safecoll_<name>
    stands for MPI_<Name> (MPI's name with its first letter capitalized);
    the library's own calls (safecoll_replay_*, safecoll_trace_*) are none."""
    root = root or default_root()
    with open(os.path.join(root, 'include', 'safecoll', 'p2p.h')) as fh:
        text = _strip_comments(fh.read())
    out = []
    for m in re.finditer(r'SAFECOLL_API\s+int\s+safecoll_(\w+)\s*\(', text):
        name = m.group(1)
        if name.startswith('replay_') or name.startswith('trace_'):
            continue
        out.append(('MPI_' + name[0].upper() + name[1:], 'safecoll_' + name))
    if not out:
        raise ValueError('p2p.h: no wrapper found')
    return out
