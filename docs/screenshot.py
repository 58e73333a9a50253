"""A screenshot of the built site's env card page in a real browser.

    make docs && python docs/screenshot.py [--page games/quess_v0.html] [--out site-card.png]

Serves the built site (``site/``, or ``--site``) with ``python -m
http.server`` on 127.0.0.1 and takes the page with headless Chromium
(Debian's ``chromium``; ``--chromium`` names another binary). Installs
nothing: a missing browser or site is an error that says what to do.  The
test suite does not use it.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--site", type=Path, default=ROOT / "site", help="the built site (default: site/, what make docs writes)"
    )
    ap.add_argument(
        "--page", default="games/quess_v0.html", help="the page, relative to the site (default: Quess' env card)"
    )
    ap.add_argument(
        "--out", type=Path, default=ROOT / "site-card.png", help="the PNG to write (default: site-card.png)"
    )
    ap.add_argument("--size", default="1280,1600", help="window width,height in pixels (default 1280,1600)")
    ap.add_argument("--chromium", default=None, help="the browser binary (default: chromium, else chromium-browser)")
    args = ap.parse_args(argv)
    browser = args.chromium or shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        ap.error("no chromium found: install Debian's (apt-get install -y chromium) or pass --chromium")
    if not (args.site / args.page).is_file():
        ap.error(f"{args.site / args.page} does not exist: build the site first (make docs)")
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(args.site)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/{args.page}"
    try:
        for _ in range(50):  # up to 5 s for the server to answer
            try:
                urllib.request.urlopen(url, timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise SystemExit(f"the local server did not answer at {url}")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        cmd = [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--window-size={args.size}",
            f"--screenshot={args.out.resolve()}",
            url,
        ]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if done.returncode != 0 or not args.out.is_file():
            raise SystemExit(f"chromium failed ({done.returncode}): {done.stderr[-2000:]}")
    finally:
        server.terminate()
        server.wait(timeout=10)
    print(f"{url} -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
