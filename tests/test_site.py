"""The documentation site (scripts/build_site.py, docs/site.md): built with MkDocs, warnings as
errors, then opened in headless Chromium (Debian's `chromium`) over a local web server: the home
page, the driver reference page and a search for cuMemAlloc must render and find it.  A
screenshot of each goes to build/site-screenshots/ (a build artefact).  Without Chromium, or
without mkdocs, the test is skipped with the reason, unless CUDA_BINDINGS_REQUIRE_BROWSER=1."""
import base64
import functools
import http.server
import json
import os
import re
import select
import shutil
import subprocess
import sys
import threading
import time

import pytest

from _support import REPO_ROOT, load_script

SITE = REPO_ROOT / "build" / "site"
SHOTS = REPO_ROOT / "build" / "site-screenshots"


def _missing(what):
    if os.environ.get("CUDA_BINDINGS_REQUIRE_BROWSER", "") not in ("", "0"):
        pytest.fail(f"{what} (CUDA_BINDINGS_REQUIRE_BROWSER is set)")
    pytest.skip(what)


@pytest.fixture(scope="module")
def site():
    try:
        import mkdocs  # noqa: F401
    except ImportError:
        _missing("mkdocs is not installed (pip install \".[test]\")")
    r = subprocess.run([sys.executable, "scripts/build_site.py"], cwd=REPO_ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert (SITE / "index.html").is_file() and (SITE / "reference" / "driver.html").is_file()
    return r.stdout.strip().splitlines()[-1]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server(site):
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(SITE)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


class _Browser:
    """Headless Chromium driven over its DevTools protocol on a pipe (--remote-debugging-pipe:
    JSON messages ending in NUL on fds 3 and 4), so a page's scripts (the search, which runs in a
    web worker) can be waited for, not only its load event."""

    def __init__(self, exe):
        to_chrome_r, self._w = os.pipe()
        self._r, from_chrome_w = os.pipe()

        def fds():
            a, b = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(a, 3)
            os.dup2(b, 4)
        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
             "--remote-debugging-pipe", "--window-size=1280,1600", "about:blank"],
            preexec_fn=fds, pass_fds=(3, 4), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buf, self._id = b"", 0
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]

    def call(self, method, session=None, **params):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            while b"\0" not in self._buf:
                ready, _, _ = select.select([self._r], [], [], max(0.0, deadline - time.monotonic()))
                if not ready:
                    raise TimeoutError(method)
                chunk = os.read(self._r, 1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium closed its DevTools pipe")
                self._buf += chunk
            raw, self._buf = self._buf.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
        raise TimeoutError(method)

    def page(self, call, **params):
        return self.call(call, session=self.session, **params)

    def value(self, expression):
        return self.page("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")

    def open(self, url, shot, ready="true", timeout=60):
        """Load url, wait until the JS expression `ready` holds, save a screenshot; the page's HTML."""
        self.page("Page.navigate", url=url)
        deadline = time.monotonic() + timeout
        while not (self.value("document.readyState") == "complete" and self.value(ready)):
            assert time.monotonic() < deadline, f"{url}: not ready ({ready}) after {timeout} s"
            time.sleep(0.2)
        png = self.page("Page.captureScreenshot", format="png")["data"]
        (SHOTS / shot).write_bytes(base64.b64decode(png))
        return self.value("document.documentElement.outerHTML")

    def close(self):
        self.proc.kill()
        self.proc.wait()


@pytest.fixture(scope="module")
def browser(server):
    exe = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if exe is None:
        _missing("no Chromium (Debian: apt-get install chromium)")
    SHOTS.mkdir(parents=True, exist_ok=True)
    b = _Browser(exe)
    yield b
    b.close()


def test_the_site_builds_with_warnings_as_errors(site):
    n = int(re.search(r"site: (\d+) pages", site)[1])
    assert n >= 20, site            # the README, every guide, every reference page
    assert (SITE / "reference" / "_v2.driver.html").is_file() and (SITE / "reference" / "_v2.nvrtc.html").is_file()


def test_the_home_page_renders_with_its_navigation(server, browser):
    dom = browser.open(f"{server}/index.html", "index.png")
    assert "cuda-bindings-gen" in dom and 'href="guide.html"' in dom and 'href="reference/driver.html"' in dom
    assert 'href="reference/_v2.driver.html"' in dom and 'href="reference/_v2.nvrtc.html"' in dom
    assert (SHOTS / "index.png").stat().st_size > 10_000


def test_the_driver_reference_page_shows_cuMemAlloc(server, browser):
    dom = browser.open(f"{server}/reference/driver.html#cumemalloc", "driver.png")
    assert 'id="cumemalloc"' in dom and "cuMemAlloc" in dom and "bytesize" in dom
    assert (SHOTS / "driver.png").stat().st_size > 10_000


def test_a_search_for_cuMemAlloc_finds_it(server, browser):
    dom = browser.open(f"{server}/search.html?q=cuMemAlloc", "search.png",
                       ready="document.querySelectorAll('#mkdocs-search-results a').length > 0")
    found = re.findall(r'href="([^"]*reference/driver\.html#cumemalloc)"', dom)
    assert found, dom[dom.find("mkdocs-search-results"):][:2000]
    assert (SHOTS / "search.png").stat().st_size > 10_000


def test_links_are_rewritten_for_the_site():
    # (no browser, no mkdocs: the layout step alone)
    from pathlib import PurePosixPath
    rewrite = load_script("build_site")._rewrite
    ref = PurePosixPath("build/docs")
    readme = ("See [the guide](docs/guide.md#kernel-arguments), [a script](scripts/gpu_check.sh), "
              "[`tests/test_site.py`](tests/test_site.py), [here](#which-cuda) and [PyPI](https://pypi.org/).\n"
              "```\n[not a link](docs/guide.md)\n```\n`[code](docs/guide.md)`\n")
    assert rewrite(readme, "README.md", "index.md", ref) == (
        "See [the guide](guide.md#kernel-arguments), a script (`scripts/gpu_check.sh`), "
        "`tests/test_site.py`, [here](#which-cuda) and [PyPI](https://pypi.org/).\n"
        "```\n[not a link](docs/guide.md)\n```\n`[code](docs/guide.md)`\n")
    assert rewrite("[the guide](../../docs/guide.md), [nvml](nvml.md)", "build/docs/index.md",
                   "reference/index.md", ref) == "[the guide](../guide.md), [nvml](nvml.md)"
    assert rewrite("[API](../build/docs/driver.md#cumemalloc) [home](../README.md)", "docs/porting.md",
                   "porting.md", ref) == "[API](reference/driver.md#cumemalloc) [home](index.md)"
    # a guide's link to the pages' default place (build/docs) is the page, wherever they were made
    assert rewrite("[_v2.driver](../build/docs/_v2.driver.md#mem_alloc_v2)", "docs/v2.md", "v2.md",
                   PurePosixPath("build/site-ref")) == "[_v2.driver](reference/_v2.driver.md#mem_alloc_v2)"
