"""cuda.bindings._v2: the second API of the driver and NVRTC (snake_case functions that return
their outputs and raise on failure; docs/v2.md), as NVIDIA's cuda-bindings has it from 13.4 on."""
