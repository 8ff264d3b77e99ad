#!/usr/bin/env python3
"""One man page per public function of libsafecoll, from Doxygen's XML.

    tools/man3.py XMLDIR OUTDIR VERSION DATE

XMLDIR is the XML output of `doxygen doc/Doxyfile` with GENERATE_XML (the
Makefile runs it); OUTDIR receives NAME.3 for every function documented in
a group of the public headers, so that `man safecoll_gatherv` finds the
same text as the manual.  A page holds the prototype with its header, the
function's own description, its parameters and return value, then the
description of the group it belongs to (for a wrapper, the rules common to
all the collectives of its kind), and SEE ALSO its group's other functions.

The output is plain man(7) that groff renders without a warning and within
80 columns: text in fill mode, code in no-fill mode, non-ASCII characters
as \\[uXXXX] escapes.  Prints the number of pages written.
"""
import os
import re
import sys
import xml.etree.ElementTree as ET


def esc(text, code=False):
    """Text escaped for roff; in code, '-' is a minus and quotes are ASCII."""
    text = text.replace('\\', '\\e')
    if code:
        text = text.replace('-', '\\-').replace("'", "\\(aq").replace('`', '\\(ga')
    out = []
    for ch in text:
        out.append(ch if ord(ch) < 128 else '\\[u%04X]' % ord(ch))
    return ''.join(out)


def join_lines(chunks):
    """Roff text from chunks where '\\n.' starts a request: no request
    is glued to text, no text line starts with '.' or "'"."""
    text = ''.join(chunks)
    lines = []
    for line in text.split('\n'):
        line = line.strip(' ') if not line.startswith('.') else line
        if not line:
            continue
        if line[0] in ".'" and not re.match(r'^\.(PP|IP|TP|RS|RE|nf|fi|br|in|B|I|SS)\b',
                                            line):
            line = '\\&' + line
        lines.append(line)
    return '\n'.join(lines)


class Writer:
    """Converts Doxygen's description markup to roff chunks."""

    def __init__(self):
        self.sects = {}   # simplesect kind -> list of roff texts

    def inline(self, e, code=False):
        out = [esc(e.text or '', code)]
        for c in e:
            out.append(self.node(c, code))
            out.append(esc(c.tail or '', code))
        return ''.join(out)

    def node(self, e, code=False):
        tag = e.tag
        if tag == 'computeroutput':
            return '\\fB' + self.inline(e, True) + '\\fR'
        if tag in ('emphasis',):
            return '\\fI' + self.inline(e, code) + '\\fR'
        if tag == 'bold':
            return '\\fB' + self.inline(e, code) + '\\fR'
        if tag in ('ref', 'ulink', 'anchor', 'highlight', 'formula'):
            return self.inline(e, code)
        if tag == 'sp':
            return ' '
        if tag == 'linebreak':
            return '\n.br\n'
        if tag == 'para':
            return self.para(e)
        if tag in ('itemizedlist', 'orderedlist'):
            out = []
            for i, item in enumerate(e.findall('listitem'), 1):
                mark = '\\(bu' if tag == 'itemizedlist' else '%d.' % i
                out.append('\n.IP %s 3\n' % mark)
                out.append(self.blocks(item, first_pp=False))
            return ''.join(out) + '\n.PP\n'
        if tag == 'simplesect':
            kind = e.get('kind')
            body = self.blocks(e, first_pp=False)
            if kind in ('return', 'note', 'see', 'warning'):
                self.sects.setdefault(kind, []).append(body)
                return ''
            title = e.findtext('title') or kind.capitalize()
            return '\n.PP\n\\fI%s:\\fR %s\n' % (esc(title), body)
        if tag == 'parameterlist':
            out = []
            for item in e.findall('parameteritem'):
                names = ', '.join(esc(n.text or '') for n in item.iter('parametername'))
                desc = self.blocks(item.find('parameterdescription'), first_pp=False)
                out.append('\n.TP\n\\fI%s\\fR\n%s\n' % (names, desc))
            self.sects.setdefault('param', []).append(''.join(out))
            return ''
        if tag in ('programlisting', 'verbatim', 'preformatted'):
            if tag == 'programlisting':
                lines = [self.inline(cl, True) for cl in e.findall('codeline')]
            else:
                lines = [esc(ln, True) for ln in (e.text or '').split('\n')]
            body = '\n'.join('\\&' + ln for ln in lines)
            return '\n.PP\n.nf\n.RS 2\n%s\n.RE\n.fi\n.PP\n' % body
        if tag == 'table':
            out = []
            for row in e.findall('row'):
                cells = [self.blocks(c, first_pp=False).replace('\n', ' ').strip()
                         for c in row.findall('entry')]
                if not cells:
                    continue
                out.append('\n.TP\n%s\n%s\n' % (cells[0], '; '.join(cells[1:]) or ' '))
            return ''.join(out) + '\n.PP\n'
        if tag in ('heading', 'title'):
            return '\n.PP\n\\fB' + self.inline(e) + '\\fR\n.PP\n'
        return self.inline(e, code)

    def para(self, e):
        return self.inline(e)

    def blocks(self, e, first_pp=True):
        """The paragraphs of a description, one .PP each."""
        if e is None:
            return ''
        out = []
        paras = e.findall('para') if e.find('para') is not None else [e]
        for i, p in enumerate(paras):
            text = self.inline(p) if p.tag == 'para' else self.inline(p)
            if not text.strip():
                continue
            if i > 0 or first_pp:
                out.append('\n.PP\n')
            out.append(text)
        return ''.join(out)


def plain(e):
    return re.sub(r'\s+', ' ', ''.join(e.itertext())).strip() if e is not None else ''


def synopsis(m):
    """The prototype, in fill mode with a hanging indent; a parameter's
    words held together by unbreakable blanks, so lines break after commas
    (or after the type, or the parenthesis, of a long one)."""
    ret = esc(plain(m.find('type')), True)
    name = m.findtext('name')
    params = []
    for p in m.findall('param'):
        t = plain(p.find('type'))
        d = p.findtext('declname') or ''
        a = p.findtext('array') or ''
        if t == 'void' and not d:
            continue
        sep = '' if t.endswith('*') or not d else '\\ '
        words = esc(t, True).replace(' ', '\\ ')
        arg = words + sep + ('\\fI%s\\fP' % esc(d, True) if d else '') + esc(a, True)
        params.append(arg)
    args = ', '.join(params) if params else 'void'
    # A line may break between the type and the name, and after '(' (\\:).
    return '\\fB%s %s\\fP(\\:%s);' % (ret.replace(' ', '\\ '), esc(name, True), args)


def header_of(m, umbrella):
    loc = m.find('location').get('file')
    inc = loc
    if loc.startswith('include/'):
        inc = loc[len('include/'):]
    return 'safecoll.h' if inc in umbrella else inc


def main():
    if len(sys.argv) != 5:
        sys.exit('usage: man3.py XMLDIR OUTDIR VERSION DATE')
    xmldir, outdir, version, date = sys.argv[1:]
    os.makedirs(outdir, exist_ok=True)
    # The headers <safecoll.h> includes: their functions are declared by it.
    umbrella = {'safecoll.h'}
    for f in os.listdir(xmldir):
        if f == 'safecoll_8h.xml':
            for inc in ET.parse(os.path.join(xmldir, f)).iter('includes'):
                umbrella.add((inc.text or '').strip())
    pages = 0
    for f in sorted(os.listdir(xmldir)):
        if not f.startswith('group__'):
            continue
        cdef = ET.parse(os.path.join(xmldir, f)).getroot().find('compounddef')
        title = cdef.findtext('title') or ''
        funcs = [m for m in cdef.iter('memberdef') if m.get('kind') == 'function']
        gw = Writer()
        gdesc = join_lines([gw.blocks(cdef.find('briefdescription')),
                            gw.blocks(cdef.find('detaileddescription'))])
        gret = gw.sects.get('return', [])
        gnote = gw.sects.get('note', []) + gw.sects.get('warning', [])
        for m in funcs:
            name = m.findtext('name')
            w = Writer()
            # The first sentence of the brief, for NAME (and `man -k`).
            brief = re.split(r'(?<!e\.g)(?<!i\.e)\.(?:\s|$)',
                             plain(m.find('briefdescription')))[0]
            detail = join_lines([w.blocks(m.find('briefdescription')),
                                 w.blocks(m.find('detaileddescription'))])
            out = ['.\\" Generated by tools/man3.py from the Doxygen comments of',
                   '.\\" include/%s: do not edit.' % m.find('location').get('file'),
                   '.TH %s 3 "%s" "libsafecoll %s" "libsafecoll manual"' % (
                       name.upper(), date, version),
                   '.nh', '.ad l', '.SH NAME',
                   '%s \\- %s' % (esc(name, True), esc(brief)),
                   '.SH LIBRARY', 'libsafecoll (\\fB\\-lsafecoll\\fR)',
                   '.SH SYNOPSIS', '.nf',
                   '\\fB#include <%s>\\fR' % header_of(m, umbrella), '.fi', '.PP',
                   '.in +4n', '.ti -4n', synopsis(m), '.in',
                   '.SH DESCRIPTION', detail]
            if 'param' in w.sects:
                out += ['.SH PARAMETERS', join_lines(w.sects['param'])]
            rets = w.sects.get('return') or gret
            if rets:
                out += ['.SH RETURN VALUE', join_lines(rets)]
            notes = w.sects.get('note', []) + w.sects.get('warning', [])
            if notes:
                out += ['.SH NOTES', join_lines(['\n.PP\n'.join(notes)])]
            if gdesc.strip():
                out += ['.SH "%s"' % esc(title.upper()).replace('"', ''), gdesc]
                if gnote:
                    out += ['.PP', join_lines(['\n.PP\n'.join(gnote)])]
            see = ['.BR libsafecoll (3)']
            others = [o.findtext('name') for o in funcs if o.findtext('name') != name]
            see += ['.BR %s (3)' % esc(o, True) for o in others]
            if w.sects.get('see'):
                see.append('.PP\n' + join_lines(w.sects['see']))
            out += ['.SH SEE ALSO'] + [s + (',' if i < len(see) - 1 and s.startswith('.BR')
                                            and see[i + 1].startswith('.BR') else '')
                                       for i, s in enumerate(see)]
            text = '\n'.join(x for x in out if x != '') + '\n'
            with open(os.path.join(outdir, name + '.3'), 'w', encoding='ascii') as fp:
                fp.write(text)
            pages += 1
    print(pages)


if __name__ == '__main__':
    main()
