"""A copy of a wheel that keeps only some folders (and its .dist-info), its RECORD rewritten.

    python scripts/slim_wheel.py WHEEL OUTDIR FOLDER [FOLDER...]

For a wheelhouse that must travel with a size limit: NVIDIA's NVRTC, nvJitLink and NVVM wheels
are 40-90 MB each, almost all of it the libraries, and a source build reads only their headers.
The copy has the same file name, project and version, so pip takes it for the pinned wheel as a
build requirement (pip checks no hash of a build requirement); what it holds under FOLDER is the
original's, byte for byte.  It is not NVIDIA's wheel: never publish it, nor install it as one.
"""
import base64
import hashlib
import sys
import zipfile
from pathlib import Path


def _digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def slim(wheel, outdir, folders):
    wheel, outdir = Path(wheel), Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    keep = tuple(f.strip("/") + "/" for f in folders)
    out = outdir / wheel.name
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        info_dir = next(n.split("/")[0] for n in src.namelist() if n.split("/")[0].endswith(".dist-info"))
        record = f"{info_dir}/RECORD"
        rows = []
        for item in src.infolist():
            name = item.filename
            if item.is_dir() or name == record or not (name.startswith(keep) or name.startswith(info_dir + "/")):
                continue
            data = src.read(name)
            dst.writestr(item, data)
            rows.append(f"{name},{_digest(data)},{len(data)}")
        dst.writestr(record, "\n".join(rows + [f"{record},,"]) + "\n")
    return out


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out = slim(sys.argv[1], sys.argv[2], sys.argv[3:])
    print(f"{out} {out.stat().st_size} bytes")
