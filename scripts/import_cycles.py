#!/usr/bin/env python3
"""The import graph between src/ files, and its cycles: every `crate::a::b` and `super::x`
path outside comments and test modules is an edge to the file that defines its longest
prefix; a strongly connected component of two or more files is a cycle. Prints each cycle
with the paths that make it, and exits 1 when there is one (STYLE.md: the import graph runs
one way). Usage: scripts/import_cycles.py [SRC_DIR]
"""
import os
import re
import sys

src_dir = sys.argv[1] if len(sys.argv) > 1 else "src"
files={}
for root,_,fs in os.walk(src_dir):
    for f in fs:
        if f.endswith('.rs'):
            p=os.path.join(root,f)
            parts=os.path.relpath(p, src_dir)[:-3].split(os.sep)
            if parts[-1]=='mod': parts=parts[:-1]
            if parts in (['lib'],['main']): parts=[]
            files[tuple(parts)]=p
def resolve(path):
    for i in range(len(path),0,-1):
        if tuple(path[:i]) in files: return tuple(path[:i])
edges={k:{} for k in files}
for mod,p in files.items():
    src=open(p).read()
    i=src.find('#[cfg(test)]\nmod tests')
    if i>=0: src=src[:i]
    src='\n'.join(l.split('//')[0] for l in src.split('\n'))
    # Grouped paths (`use super::{a, b::c}`, `crate::x::{y, z}`) are one path per member.
    def expand(m):
        head, body = m.group(1), m.group(2)
        if '{' in body:
            return m.group(0)
        return ' '.join(head + part.strip() for part in body.split(',') if part.strip() and part.strip() != 'self')
    for _ in range(3):
        src = re.sub(r'\b((?:crate|super)::(?:(?:super|\w+)::)*)\{([^{}]*)\}', expand, src)
    for m in re.finditer(r'crate::((?:\w+::)*\w+)', src):
        t=resolve(m.group(1).split('::'))
        if t and t!=mod: edges[mod][t]=m.group(0)
    for m in re.finditer(r'\b((?:super::)+)((?:\w+::)*\w+)', src):
        ups=m.group(1).count('super::')
        base=list(mod)[:len(mod)-ups]
        t=resolve(base+m.group(2).split('::'))
        if t and t!=mod: edges[mod][t]=m.group(0)
idx={}; low={}; st=[]; on=set(); sccs=[]; c=[0]
sys.setrecursionlimit(10000)
def sc(v):
    idx[v]=low[v]=c[0]; c[0]+=1; st.append(v); on.add(v)
    for w in edges[v]:
        if w not in idx: sc(w); low[v]=min(low[v],low[w])
        elif w in on: low[v]=min(low[v],idx[w])
    if low[v]==idx[v]:
        comp=[]
        while True:
            w=st.pop(); on.discard(w); comp.append(w)
            if w==v: break
        if len(comp)>1: sccs.append(comp)
for v in edges:
    if v not in idx: sc(v)
for comp in sccs:
    print(['/'.join(x) for x in comp])
    for a in comp:
        for b,why in edges[a].items():
            if b in comp: print('   ','/'.join(a),'->','/'.join(b), why)
sys.exit(1 if sccs else 0)
