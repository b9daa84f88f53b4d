#!/usr/bin/env python3
"""Packs the HTML pages of installed Debian documentation packages into a WARC.gz crawl.

Real, redundant HTML (navigation, repeated API pages, versions of the same page) for tuning and
quality work, without network access:

    apt-get install python3.11-doc libboost1.81-doc
    python3 scripts/pack_docs.py --package python3.11-doc -o crawls/python.warc.gz
    python3 scripts/pack_docs.py --root /usr/share/doc/libboost1.81-doc -o crawls/boost.warc.gz
    CARGO_TARGET_DIR=T cargo doc && python3 scripts/pack_docs.py --root T/doc --site deps-docs.example \
        --exclude src,neardup,static.files,search.index,trait.impl,type.impl,help.html,settings.html \
        -o crawls/depdocs.warc.gz

Every .html/.htm file under the package's documentation (the files `dpkg -L PACKAGE` lists,
or everything under --root) becomes one `response` record (one gzip member per record, as
Common Crawl writes them) with a WARC-Record-ID derived from its path, an https target URI and
an HTTP 200 text/html head. The target URI is `https://SITE/PATH` (`--site`, by default the
package's name or the root's directory name, `.example`), so that the pages of one package are
one host, as a documentation site's pages are on the web. Files are visited in sorted order, so a crawl is reproducible.
Symbolic links to files already packed are skipped (the same page under two names is the
package's business, not a duplicate the crawl should invent). The Rust toolchain's own HTML
documentation is kept aside for evaluation: do not pack it for tuning.
"""

import argparse
import gzip
import hashlib
import os
import subprocess
import sys


def package_files(package):
    out = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True, check=True)
    return [p for p in out.stdout.splitlines() if p.lower().endswith((".html", ".htm"))]


def root_files(root, exclude=()):
    found = []
    for dirpath, dirs, names in os.walk(root, followlinks=False):
        # The walk's first directory is `root` itself, as given.
        if dirpath == root:
            dirs[:] = [d for d in dirs if d not in exclude]
            names = [n for n in names if n not in exclude]
        for n in names:
            if n.lower().endswith((".html", ".htm")):
                found.append(os.path.join(dirpath, n))
    return found


def record(path, body, site):
    rid = hashlib.sha1(path.encode()).hexdigest()
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n" % len(body)
    block = http + body
    head = (
        "WARC/1.0\r\n"
        "WARC-Type: response\r\n"
        f"WARC-Record-ID: <urn:sha1:{rid}>\r\n"
        f"WARC-Target-URI: https://{site}{path}\r\n"
        "Content-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {len(block)}\r\n\r\n"
    ).encode()
    return head + block + b"\r\n\r\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--package", help="an installed Debian package (its files from dpkg -L)")
    src.add_argument("--root", help="a directory to walk instead")
    ap.add_argument("-o", "--output", required=True, help="WARC.gz to write (not overwritten)")
    ap.add_argument("--site", help="the host of the pages' URIs (default: NAME.example)")
    ap.add_argument(
        "--exclude",
        default="",
        help="names of files and directories at the top of --root to leave out, comma-separated "
        "(a rustdoc tree's src,static.files,search.index,... and its top pages)",
    )
    a = ap.parse_args()
    site = a.site or (a.package or os.path.basename(os.path.normpath(a.root))) + ".example"
    if os.path.exists(a.output):
        sys.exit(f"{a.output} exists: choose another name")
    exclude = {x for x in a.exclude.split(",") if x}
    files = sorted(package_files(a.package) if a.package else root_files(a.root, exclude))
    seen = set()
    n = total = 0
    tmp = a.output + ".tmp"
    with open(tmp, "wb") as out:
        for f in files:
            real = os.path.realpath(f)
            if real in seen or not os.path.isfile(real):
                continue
            seen.add(real)
            with open(real, "rb") as fh:
                body = fh.read()
            out.write(gzip.compress(record(f, body, site), compresslevel=6))
            n += 1
            total += len(body)
    os.replace(tmp, a.output)
    print(f"{a.output}: {n} pages, {total / 1e6:.1f} MB of HTML", file=sys.stderr)


if __name__ == "__main__":
    main()
