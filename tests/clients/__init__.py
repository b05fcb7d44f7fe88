"""Programs and helpers for running the libraries built on cuda.bindings (cuda.core, numba-cuda)."""

# numba-cuda 0.30.4 calls numpy.row_stack, which numpy 2.4 removed (numpy.vstack is the same
# function): the text of a sitecustomize.py that restores it, for the processes that run numba-cuda.
ROW_STACK_ALIAS = """\
import numpy
if not hasattr(numpy, "row_stack"):
    numpy.row_stack = numpy.vstack
"""
