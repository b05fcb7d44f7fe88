"""The API reference pages (`python -m codegen.refdocs`), built here as in CI: every public function
of each module once, under the header's group; links that resolve; enums as the modules have them."""
import importlib
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULES = ["driver", "runtime", "nvrtc", "nvjitlink", "nvvm"]
# the struct-style modules; cuDLA's in the builds whose headers have cudla.h (13.5 on)
RECORDS = ["cufile", "nvfatbin", "nvml"] + (["cudla"] if importlib.util.find_spec("cuda.bindings.cudla") else [])
MODULES += RECORDS
# the second API's modules (cuda.bindings._v2, every build): pages _v2.driver.md, _v2.nvrtc.md
V2 = ["_v2.driver", "_v2.nvrtc"]


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    out = tmp_path_factory.mktemp("refdocs")
    from cuda.bindings import __cuda_version__
    env = dict(os.environ, CUDA_BINDINGS_CUDA_VERSION=__cuda_version__)    # the pages of the build under test
    r = subprocess.run([sys.executable, "-m", "codegen.refdocs", "--out", str(out)], cwd=ROOT,
                       capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    return {p.name: p.read_text() for p in out.glob("*.md")}


def _public_functions(mod):
    return {n for n in dir(mod) if not n.startswith("_") and callable(getattr(mod, n))
            and not isinstance(getattr(mod, n), type)}


def _sections(text):
    """{level-2 heading: [level-3 headings under it]}"""
    out, cur = {}, None
    for line in text.splitlines():
        if line.startswith("## "):
            cur = out.setdefault(line[3:], [])
        elif line.startswith("### ") and cur is not None:
            cur.append(line[4:])
    return out


def _outside_code(text):
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def _extra_declared(lib):
    """The public names of the functions overrides.EXTRA_DECLARATIONS adds to this build's `lib`."""
    from codegen import overrides
    from codegen.common import public_function
    from codegen.libs import LIBS
    from cuda.bindings import __cuda_version__

    class Fn:
        def __init__(self, name):
            self.name = name
    texts = [t for rel in ("*", __cuda_version__)
             for t, _, _ in overrides.EXTRA_DECLARATIONS.get(rel, {}).get(lib, [])]
    names = re.findall(r"\b(\w+)\s*\(", "\n".join(texts))
    return {public_function(Fn(n), LIBS[lib]) for n in names if n != "typedef"}


@pytest.mark.parametrize("lib", MODULES + V2)
def test_every_public_function_once_under_a_group(pages, lib):
    mod = importlib.import_module(f"cuda.bindings.{lib}")
    secs = _sections(pages[f"{lib}.md"])
    groups = {k: v for k, v in secs.items() if k not in ("Contents", "Exceptions", "Enums", "Types", "Constants")}
    listed = [f for fs in groups.values() for f in fs]
    assert sorted(listed) == sorted(set(listed)), "a function is listed twice"
    assert set(listed) == _public_functions(mod)
    assert all(groups.values()), [g for g, fs in groups.items() if not fs]
    if lib == "cufile":
        assert set(groups) == {"Other", "Helpers"}      # cufile.h groups nothing
        return
    if lib in V2:
        # outside every group: the export table, the profiler's entry points; 12.9's deprecated NVVM getters
        assert set(groups.get("Other", [])) <= {"get_export_table", "profiler_start", "profiler_stop",
                                                "get_nvvm", "get_nvvm_size"}
        assert len([g for g in groups if g not in ("Other", "Helpers")]) >= (20 if lib == "_v2.driver" else 4)
        if lib == "_v2.driver":
            assert {"link_create_v2", "link_destroy", "module_load_data"} <= set(groups["Module Management"])
        return
    # "Other" holds only what the headers declare outside every group (the export tables) or do
    # not declare (the profiler entry points, from cudaProfilerTypedefs.h; the declarations the
    # override table adds for a release, overrides.EXTRA_DECLARATIONS)
    assert set(groups.get("Other", [])) <= {"cuGetExportTable", "cuProfilerStart", "cuProfilerStop",
                                            "cudaGetExportTable", "cudaProfilerStart", "cudaProfilerStop",
                                            # 12.9's deprecated NVVM getters, outside every group
                                            "nvrtcGetNVVM", "nvrtcGetNVVMSize",
                                            # nvml.h's functions after its last group
                                            "device_get_capabilities",
                                            "device_get_sram_unique_uncorrected_ecc_error_counts"} | _extra_declared(lib)
    if lib == "driver":
        assert {"cuLinkCreate", "cuLinkDestroy", "cuModuleLoadData"} <= set(groups["Module Management"])
    from_headers = [g for g in groups if g not in ("Other", "Helpers")]
    assert len(from_headers) >= (20 if lib in ("driver", "runtime") else 1)


@pytest.mark.parametrize("lib", MODULES + V2)
def test_contents_links_resolve_and_no_markup_leaks(pages, lib):
    text = pages[f"{lib}.md"]
    heads = {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
             for h in re.findall(r"^#+ (.*)$", _outside_code(text), flags=re.M)}
    links = re.findall(r"\]\(#([\w\-]+)\)", text)
    assert links and set(links) <= heads
    assert not re.search(r"\\(param|brief|p|ref|sa|return)\b|::\w", text)


@pytest.mark.parametrize("lib", MODULES + V2)
def test_enum_members_are_the_modules(pages, lib):
    mod = importlib.import_module(f"cuda.bindings.{lib}")
    text = pages[f"{lib}.md"].split("\n## Enums\n", 1)[1].split("\n## Types\n", 1)[0]
    blocks = re.findall(r"^### (\w+)\n(.*?)(?=^### |\Z)", text, flags=re.S | re.M)
    assert blocks
    for name, body in blocks:
        members = {n: int(v) for n, v in re.findall(r"^\| `(\w+)` \| (-?\d+) \|$", body, flags=re.M)}
        assert members == {m.name: int(m.value) for m in getattr(mod, name)} | {
            a: int(m.value) for a, m in getattr(mod, name).__members__.items()}, name


def test_types_name_their_header_group(pages):
    # nvrtc.h and nvJitLink.h place their types with `\\ingroup`, cuda.h inside its CUDA_TYPES block
    assert "### nvrtcResult\n\nC enum `nvrtcResult`, in Error Handling." in pages["nvrtc.md"]
    assert "### InputType\n\nC enum `nvJitLinkInputType`, in Linking." in pages["nvjitlink.md"]
    assert "### CUresult\n\nC enum `CUresult`, in Data types used by CUDA driver." in pages["driver.md"]
    assert "- `CUcontext`, in Data types used by CUDA driver" in pages["driver.md"]


def test_index_and_checked_page(pages):
    index = pages["index.md"]
    targets = re.findall(r"\]\(([\w.]+\.md)\)", index)
    assert set(targets) == {f"{lib}.md" for lib in MODULES + V2} | {"checked.md"}
    assert set(pages) == {f"{lib}.md" for lib in MODULES + V2} | {"checked.md", "index.md"}
    sections = re.split(r"^## cuda\.bindings\.checked\.(\w+)\n", pages["checked.md"], flags=re.M)
    listed = {lib: set(re.findall(r"^- \[`(\w+)\(", body, flags=re.M)) for lib, body in zip(sections[1::2], sections[2::2])}
    assert sorted(listed) == ["driver", "nvrtc", "runtime"]
    for lib, names in listed.items():
        mod = importlib.import_module(f"cuda.bindings.{lib}")
        helpers = {n for n in _public_functions(mod) if n == "sizeof" or n.startswith("make_")}
        assert names == _public_functions(mod) - helpers, lib
    assert "- [`cuMemAlloc(bytesize: int) -> CUdeviceptr`](driver.md#cumemalloc)" in pages["checked.md"]


@pytest.mark.parametrize("lib", RECORDS + V2)
def test_struct_classes_with_their_dtypes_and_fields(pages, lib):
    mod = importlib.import_module(f"cuda.bindings.{lib}")
    from cuda.bindings._records import _Record
    classes = [n for n in dir(mod) if isinstance(getattr(mod, n), type) and issubclass(getattr(mod, n), _Record)]
    text = pages[f"{lib}.md"].partition("\n## Types\n")[2].split("\n## Constants\n", 1)[0]
    blocks = re.findall(r"^### (\w+)\n\nC (?:struct|union) `\w+`(?:; numpy dtype `(\w+)`)?\.\n(.*?)(?=^### |\Z)",
                        text, flags=re.S | re.M)
    # every struct class has its block (nvFatbin has none)
    assert {name for name, _, _ in blocks} >= {c for c in classes if not c.startswith("_py_anon")}
    assert bool(blocks) == bool(classes)
    for name, dtype, body in blocks:
        cls = getattr(mod, name)
        fields = re.findall(r"^\| `(\w+)` \| `\w+` \|", body, flags=re.M)
        assert all(isinstance(getattr(cls, f, None), property) or hasattr(cls, f) for f in fields), name
        if dtype:
            assert getattr(mod, dtype).itemsize == mod.sizeof(cls), name
    errors = pages[f"{lib}.md"].split("\n## Exceptions\n", 1)[1].split("\n## Enums\n", 1)[0]
    for cls in re.findall(r"^\| `(\w+)` \| `ERROR_", errors, flags=re.M):
        assert issubclass(getattr(mod, cls), Exception)


@pytest.mark.parametrize("lib", V2)
def test_v2_signatures_are_the_modules(pages, lib):
    """Each _v2 function's signature is its stub's line (the installed .pyi, where the build has
    it) and takes the parameters the compiled function takes; its text returns the C outputs
    and raises the module's exception."""
    import inspect
    mod = importlib.import_module(f"cuda.bindings.{lib}")
    sigs = dict(re.findall(r"^### (\w+)\n\n```python\ndef (.*)\n```", pages[f"{lib}.md"], flags=re.M))
    assert len(sigs) > (400 if lib == "_v2.driver" else 20)
    for name, sig in sigs.items():
        if name == "sizeof":
            continue
        params = [p.split(":")[0].strip() for p in sig.split("(", 1)[1].rsplit(") -> ", 1)[0].split(", ") if p]
        assert params == list(inspect.signature(getattr(mod, name)).parameters), name
    stub = Path(mod.__file__).with_name(lib.split(".")[1] + ".pyi")
    if stub.is_file():
        stubs = {m[0]: f"{m[0]}({m[1]} -> {m[2]}"
                 for m in re.findall(r"^def (\w+)\((.*) -> (.*): \.\.\.$", stub.read_text(), flags=re.M)}
        assert {n: s for n, s in sigs.items() if n != "sizeof"} == stubs
    text = pages[f"{lib}.md"]
    if lib == "_v2.nvrtc":
        ptx = text.split("\n### get_ptx\n", 1)[1].split("\n### ", 1)[0]
        assert "def get_ptx(prog: int) -> bytes" in ptx and "Returns\n-------\nptx : bytes" in ptx
        assert "\nptx :" not in ptx.split("Returns")[0]         # the output is no parameter
        assert "NvrtcError\n" in ptx and "ERROR_INVALID_PROGRAM" in ptx and "NVRTC_ERROR" not in ptx
        assert "returns it as `prog`" in text and "output parameter" not in text.split("\n## Contents\n")[1].split("\n## Exceptions\n")[0]
    else:
        alloc = text.split("\n### mem_alloc_v2\n", 1)[1].split("\n### ", 1)[0]
        assert "def mem_alloc_v2(bytesize: int) -> int" in alloc and "dptr : int" in alloc
        assert "DriverError\n" in alloc and "ERROR_OUT_OF_MEMORY" in alloc and "CUDA_ERROR_" not in alloc
