#!/usr/bin/env python3
"""pdftext.py PDF: the text items of the one-page PDFs tracecluster draws
(through Cairo), one per line: "X Y TEXT", X and Y the start of its
baseline in points from the top left, rounded; a line "page W H" first.

Enough PDF for Cairo's output, for the tests: objects in the clear, the
page's content stream Flate-compressed, fonts either 8-bit WinAnsi
TrueType subsets (literal strings) or Type0 Identity-H with a ToUnicode
CMap (hex strings).
"""
import re
import sys
import zlib


def main(path):
    d = open(path, 'rb').read()
    objs = {int(m.group(1)): m.group(2)
            for m in re.finditer(rb'(\d+) 0 obj(.*?)endobj', d, re.S)}

    def stream(body):
        m = re.search(rb'stream\r?\n(.*?)\r?\nendstream', body, re.S)
        s = m.group(1)
        return zlib.decompress(s) if b'FlateDecode' in body else s

    def cmap(num):
        cm = stream(objs[num]).decode('latin1')
        mp = {}
        for blk in re.findall(r'beginbfchar(.*?)endbfchar', cm, re.S):
            for a, b in re.findall(r'<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>', blk):
                mp[int(a, 16)] = bytes.fromhex(b).decode('utf-16-be')
        for blk in re.findall(r'beginbfrange(.*?)endbfrange', cm, re.S):
            for a, b, c in re.findall(r'<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>',
                                      blk):
                for k in range(int(a, 16), int(b, 16) + 1):
                    mp[k] = chr(int(c, 16) + k - int(a, 16))
        return mp

    page = next(b for b in objs.values() if re.search(rb'/Type /Page\b', b))
    box = [float(v) for v in re.search(rb'/MediaBox \[([^\]]*)\]', page).group(1).split()]
    print('page %g %g' % (box[2] - box[0], box[3] - box[1]))
    fonts = {}
    for b in objs.values():
        m = re.search(rb'/Font\s*<<(.*?)>>', b, re.S)
        if m:
            for name, num in re.findall(rb'/([\w.-]+)\s+(\d+) 0 R', m.group(1)):
                f = objs[int(num)]
                tu = re.search(rb'/ToUnicode (\d+) 0 R', f)
                fonts[name.decode()] = cmap(int(tu.group(1))) if tu else None
    content = int(re.search(rb'/Contents (\d+) 0 R', page).group(1))
    s = stream(objs[content]).decode('latin1')
    tok = re.compile(r'(?P<tm>(?:[-\d.]+ ){6}Tm)|(?P<td>(?:[-\d.]+ ){2}Td)'
                     r'|/(?P<tf>[\w.-]+) [\d.]+ Tf'
                     r'|\((?P<lit>(?:\\.|[^\\)])*)\)|<(?P<hex>[0-9a-fA-F]*)>|\b(?P<et>ET)\b')
    font, at, text, tm = None, None, '', [1, 0, 0, 1, 0, 0]

    def flush():
        if at is not None and text:
            print('%d %d %s' % (round(at[0]), round(at[1]), text))

    for m in tok.finditer(s):
        if m.group('tm'):
            flush()
            tm = [float(x) for x in m.group('tm').split()[:6]]
            at, text = (tm[4], tm[5]), ''
        elif m.group('td'):
            flush()
            tx, ty = [float(x) for x in m.group('td').split()[:2]]
            tm[4], tm[5] = tm[4] + tx * tm[0] + ty * tm[2], tm[5] + tx * tm[1] + ty * tm[3]
            at, text = (tm[4], tm[5]), ''
        elif m.group('tf'):
            font = fonts[m.group('tf')]
        elif m.group('et'):
            flush()
            at, text = None, ''
        elif m.group('hex') is not None:
            codes = bytes.fromhex(m.group('hex'))
            text += ''.join(font.get(codes[i] << 8 | codes[i + 1], '?')
                            for i in range(0, len(codes) - 1, 2))
        else:
            raw = re.sub(r'\\([0-7]{1,3})', lambda e: chr(int(e.group(1), 8)), m.group('lit'))
            raw = re.sub(r'\\(.)', r'\1', raw)
            text += raw.encode('latin1').decode('cp1252')


main(sys.argv[1])
