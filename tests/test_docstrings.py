"""The generated functions' docstrings: one numpydoc layout (summary, description, sections with
underlines, one base indentation, a fixed width), Python names instead of doxygen markup, and C
output parameters described as returned values.  No GPU needed."""
import importlib
import inspect
import pydoc
import re

import pytest

MODULES = ("driver", "runtime", "nvrtc", "nvjitlink", "nvvm")
WIDTH = 88          # columns, the function body's indentation (4) included
ORDER = ["Parameters", "Returns", "Raises", "See Also", "Notes"]
MARKUP = re.compile(r"\\|::|@param|\\p\b|</?(?:b|i|tt|li|ul|td|tr|table|br|small)>", re.I)

SAMPLES = [
    ("driver", "cuMemAlloc", ["bytesize"], ["dptr"]),
    ("driver", "cuMemAllocPitch", ["WidthInBytes", "Height", "ElementSizeBytes"], ["dptr", "pPitch"]),
    ("driver", "cuLaunchKernel", ["f", "gridDimX", "kernelParams", "extra"], []),
    ("runtime", "cudaMalloc", ["size"], ["devPtr"]),
    ("runtime", "cudaMemcpy", ["dst", "src", "count", "kind"], []),
    ("nvrtc", "nvrtcCompileProgram", ["prog", "numOptions", "options"], []),
    ("nvrtc", "nvrtcGetPTXSize", ["prog"], ["ptxSizeRet"]),
    ("nvjitlink", "create", ["num_options", "options"], ["handle"]),
    ("nvvm", "compile_program", ["prog", "num_options", "options"], []),
]


def _mod(name):
    return importlib.import_module(f"cuda.bindings.{name}")


HANDWRITTEN = {"sizeof"}     # cuda_bindings/_module_common.pxi, in every module


def _public(mod):
    return [(n, f) for n, f in sorted(vars(mod).items())
            if not n.startswith("_") and callable(f) and not isinstance(f, type)
            and getattr(f, "__module__", None) == mod.__name__ and n not in HANDWRITTEN]


def _sections(doc):
    """cleandoc'd text -> (summary, description lines, {title: body lines}), checking the
    underlines on the way."""
    lines = doc.splitlines()
    heads = [i for i in range(len(lines) - 1)
             if lines[i] in ORDER and lines[i + 1] == "-" * len(lines[i])]
    out = {}
    for k, i in enumerate(heads):
        end = heads[k + 1] if k + 1 < len(heads) else len(lines)
        out[lines[i]] = [ln for ln in lines[i + 2:end]]
        while out[lines[i]] and not out[lines[i]][-1]:
            out[lines[i]].pop()
    first = lines.index("") if "" in lines else len(lines)
    return " ".join(lines[:first]), lines[first:heads[0] if heads else len(lines)], out


def _entries(body):
    """`name : type` (or a bare type) lines of a section, at its base indentation."""
    return [ln for ln in body if ln and not ln[0].isspace()]


@pytest.mark.parametrize("lib,name,ins,outs", SAMPLES, ids=[s[1] for s in SAMPLES])
def test_layout(lib, name, ins, outs):
    f = getattr(_mod(lib), name)
    raw = f.__doc__
    doc = inspect.cleandoc(raw)
    text = pydoc.render_doc(f, renderer=pydoc.plaintext)
    assert doc.splitlines()[1] in text     # help() shows the docstring
    summary, desc, sec = _sections(doc)
    # the summary comes first (no signature copy), one sentence
    assert not summary.startswith(name + "(") and summary.endswith(".")
    assert not re.search(r"\.\s+[A-Z]", summary[:-1])
    # the sections in numpydoc order, each with its underline
    titles = [t for t in ORDER if t in sec]
    assert titles[:2] == ["Parameters", "Returns"]
    assert [ln for ln in doc.splitlines() if ln in ORDER] == titles
    # one base indentation: the raw docstring's lines after the first all start at 4 spaces
    for ln in raw.splitlines()[1:]:
        assert not ln or ln.startswith("    "), ln
        assert len(ln) <= WIDTH, ln
    assert len(raw.splitlines()[0]) + 7 <= WIDTH    # def body indentation and the quotes
    # description: paragraphs at the base indentation; only list continuations and literal
    # blocks are indented, under a list item or after a blank line
    prev = ""
    for ln in desc:
        if ln.startswith(" "):
            assert not prev or re.match(r"(- |\d+[.)] |  )", prev), ln
        prev = ln
    # parameters: each input once, with its body indented by 4 under `name : type`
    params = _entries(sec["Parameters"])
    assert [p.split(" : ")[0] for p in params] == [p.split(" : ")[0] for p in params if " : " in p]
    names = [p.split(" : ")[0] for p in params]
    for p in ins:
        assert p in names
    for ln in sec["Parameters"]:
        assert not ln or ln[0] != " " or ln.startswith("    "), ln
    # outputs under Returns, not under Parameters
    rets = [r.split(" : ")[0] for r in _entries(sec["Returns"])]
    for o in outs:
        assert o in rets and o not in names
    if lib in ("nvjitlink", "nvvm"):
        assert "Raises" in sec
        assert rets == (outs or ["None"])
    else:
        status = {"driver": "CUresult", "runtime": "cudaError_t", "nvrtc": "nvrtcResult"}[lib]
        assert rets[0] == status and rets[1:] == outs
        assert sec["Returns"][1].startswith("    ")       # the status has its line
    assert not MARKUP.search(raw), MARKUP.search(raw)
    assert not re.search(r"returns in \W?\*|\bin \*\w", raw, re.I)


def test_output_wording():
    doc = _mod("driver").cuMemAlloc.__doc__
    assert "returns, as `dptr`, a pointer to the allocated memory" in " ".join(doc.split())
    # C references in Python form: enum members with their class, functions bare
    text = " ".join(_mod("driver").cuCtxCreate.__doc__.split())
    assert "CUctx_flags.CU_CTX_SCHED_SPIN" in text and "cuCtxDestroy when" in text
    see = _sections(inspect.cleandoc(_mod("driver").cuMemAlloc.__doc__))[2]["See Also"]
    assert "cuMemFree," in " ".join(see)


def test_param_in_out_forms():
    """`\\param [in] name` texts (nvrtc, nvJitLink, NVVM) reach the docstrings."""
    sec = _sections(inspect.cleandoc(_mod("nvrtc").nvrtcCompileProgram.__doc__))[2]
    assert "CUDA Runtime Compilation program." in " ".join(sec["Parameters"])
    sec = _sections(inspect.cleandoc(_mod("nvjitlink").create.__doc__))[2]
    assert "Address of nvJitLink handle." in " ".join(sec["Returns"])


def test_literal_block_and_list():
    doc = inspect.cleandoc(_mod("driver").cuLaunchKernel.__doc__)
    lines = doc.splitlines()
    code = [i for i, ln in enumerate(lines) if ln.strip().startswith("void *config[] = {")]
    assert code and lines[code[0]].startswith("    ")
    assert any(ln.startswith("- CU_LAUNCH_PARAM_END") for ln in lines)


def test_helpers():
    rt = _mod("runtime")
    for f in (rt.make_cudaExtent, rt.getLocalRuntimeVersion):
        _, _, sec = _sections(inspect.cleandoc(f.__doc__))
        assert "Returns" in sec
    assert _entries(_sections(inspect.cleandoc(rt.make_cudaExtent.__doc__))[2]["Parameters"]) == \
        ["w : int", "h : int", "d : int"]


@pytest.mark.parametrize("lib", MODULES)
def test_sweep(lib):
    mod = _mod(lib)
    funcs = _public(mod) + [(n, f) for n, f in sorted(vars(mod).items())
                            if n.startswith(("_nvJitLink", "_nvvm")) and callable(f)]
    assert len(funcs) > 5
    bad = []
    for name, f in funcs:
        sig = inspect.signature(f)
        doc = f.__doc__ or ""
        if MARKUP.search(doc):
            bad.append(f"{name}: markup {MARKUP.search(doc).group(0)!r}")
        _, _, sec = _sections(inspect.cleandoc(doc))
        if sig.parameters and "Parameters" not in sec:
            bad.append(f"{name}: no Parameters")
        if "Returns" not in sec:
            bad.append(f"{name}: no Returns")
        documented = [ln.split(" : ")[0] for ln in _entries(sec.get("Parameters", []))]
        if documented != list(sig.parameters):
            bad.append(f"{name}: Parameters {documented} != signature {list(sig.parameters)}")
    assert not bad, "\n".join(bad[:20])
