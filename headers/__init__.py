"""Pinned CUDA header sets: where the generator and the build get NVIDIA's headers from.

Use ``headers.fetch.include_dir()``; see ``headers/fetch.py`` and ``docs/headers.md``.
"""
