"""European call prices on a binomial tree, port of the CUDA sample binomialOptions_nvrtc.

API area: module globals: the option data goes into a __constant__ array and the results come from
a __device__ array, both found with cuModuleGetGlobal and copied with cuMemcpyHtoD/DtoH; the
kernel takes no arguments (cuLaunchKernel with kernelParams None).

As in the sample: 1024 options with random stock prices (5 to 30), strikes (1 to 100) and terms
(0.25 to 10 years), a 6% rate and 10% volatility, priced on a 2048-step tree, one block of 128
threads per option walking the tree back from expiry (16 nodes per thread, neighbours exchanged
through shared memory). The host prepares each option's per-step factors in double precision,
as binomialOptionsGPU does. The GPU prices are compared with the same tree evaluated on the CPU
(in closed form: the value at the root is the binomially weighted sum of the payoffs at expiry,
computed with logarithms in float64) and with the Black-Scholes price the tree converges to; as
in the sample, the L1 distance between GPU and CPU tree must be below 5e-4.

Run: python examples/5_Domain_Specific/binomial_options.py
Exit status: 0 when the prices match, 1 otherwise, 3 when no CUDA device is available.
"""
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import check, compile_source, device_arch, release_device, select_device  # noqa: E402
from common.cuda_extras import device_name  # noqa: E402
from cuda.bindings import driver  # noqa: E402

NUM_STEPS = 2048
MAX_OPTIONS = 1024
THREADBLOCK_SIZE = 128

BINOMIAL_KERNEL = b"""
#define NUM_STEPS %d
#define MAX_OPTIONS %d
#define THREADBLOCK_SIZE %d
#define ELEMS_PER_THREAD (NUM_STEPS / THREADBLOCK_SIZE)
#if NUM_STEPS %% THREADBLOCK_SIZE
#error NUM_STEPS must be a multiple of THREADBLOCK_SIZE
#endif

// An option as the host prepared it: price, strike and the per-step factors
struct OptionData {
    float S;
    float X;
    float vDt;     // volatility * sqrt(step length)
    float puByDf;  // probability of an up move, discounted over one step
    float pdByDf;  // probability of a down move, discounted over one step
};

__constant__ OptionData d_OptionData[MAX_OPTIONS];
__device__ float d_CallValue[MAX_OPTIONS];

// A call's value at expiry in node i of NUM_STEPS + 1 (i up moves)
__device__ inline float expiryCallValue(float S, float X, float vDt, int i)
{
    float d = S * __expf(vDt * (2.0f * i - NUM_STEPS)) - X;
    return d > 0.0f ? d : 0.0f;
}

// One block per option. Thread t holds nodes t * ELEMS_PER_THREAD ... + ELEMS_PER_THREAD - 1 of
// the current level, plus a copy of the first node of thread t + 1, exchanged through shared
// memory at each step back towards the root.
extern "C" __global__ void binomialOptionsKernel()
{
    __shared__ float firstNode[THREADBLOCK_SIZE + 1];
    const OptionData opt = d_OptionData[blockIdx.x];
    const int tid = threadIdx.x;
    const int myFirst = tid * ELEMS_PER_THREAD;

    float value[ELEMS_PER_THREAD + 1];
#pragma unroll
    for (int k = 0; k < ELEMS_PER_THREAD; ++k)
        value[k] = expiryCallValue(opt.S, opt.X, opt.vDt, myFirst + k);
    if (tid == 0)
        firstNode[THREADBLOCK_SIZE] = expiryCallValue(opt.S, opt.X, opt.vDt, NUM_STEPS);

    // level i has nodes 0 .. i; stepping back, node j becomes the discounted mean of nodes j + 1
    // (up) and j (down). Nodes past i are left stale: they never reach the root.
    for (int i = NUM_STEPS; i > 0; --i) {
        firstNode[tid] = value[0];
        __syncthreads();
        value[ELEMS_PER_THREAD] = firstNode[tid + 1];
        __syncthreads();
        if (myFirst < i) {
#pragma unroll
            for (int k = 0; k < ELEMS_PER_THREAD; ++k)
                value[k] = opt.puByDf * value[k + 1] + opt.pdByDf * value[k];
        }
    }
    if (tid == 0)
        d_CallValue[blockIdx.x] = value[0];
}
""" % (NUM_STEPS, MAX_OPTIONS, THREADBLOCK_SIZE)

# the kernel's struct OptionData, packed as C lays it out
OPTION_DATA = np.dtype([("S", np.float32), ("X", np.float32), ("vDt", np.float32),
                        ("puByDf", np.float32), ("pdByDf", np.float32)])


def cnd(d):
    a1, a2, a3, a4, a5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429
    k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    tail = 0.39894228040143267793994605993438 * np.exp(-0.5 * d * d) * (
        k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))))
    return np.where(d > 0, 1.0 - tail, tail)


def black_scholes_call(S, X, T, R, V):
    sqrt_t = np.sqrt(T)
    d1 = (np.log(S / X) + (R + 0.5 * V * V) * T) / (V * sqrt_t)
    d2 = d1 - V * sqrt_t
    return (S * cnd(d1) - X * np.exp(-R * T) * cnd(d2)).astype(np.float32)


def step_factors(T, R, V):
    """The per-step factors of binomialOptionsGPU, in float64: (vDt, puByDf, pdByDf)."""
    dt = T / NUM_STEPS
    v_dt = V * np.sqrt(dt)
    r_dt = R * dt
    i_f, d_f = np.exp(r_dt), np.exp(-r_dt)
    u, d = np.exp(v_dt), np.exp(-v_dt)
    pu = (i_f - d) / (u - d)
    return v_dt, pu * d_f, (1.0 - pu) * d_f


def binomial_options_cpu(S, X, T, R, V):
    """binomialOptionsCPU in closed form: walking the tree back from expiry gives the root the sum
    over k of C(N, k) puByDf^k pdByDf^(N-k) times the payoff after k up moves."""
    v_dt, pu_by_df, pd_by_df = step_factors(T, R, V)
    k = np.arange(NUM_STEPS + 1, dtype=np.float64)
    payoff = np.maximum(S[:, None] * np.exp(v_dt[:, None] * (2.0 * k - NUM_STEPS)) - X[:, None], 0.0)
    log_fact = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, NUM_STEPS + 1, dtype=np.float64)))])
    log_binom = log_fact[NUM_STEPS] - log_fact - log_fact[::-1]
    log_weight = log_binom + k * np.log(pu_by_df)[:, None] + (NUM_STEPS - k) * np.log(pd_by_df)[:, None]
    return (np.exp(log_weight) * payoff).sum(axis=1).astype(np.float32)


def binomial_options_gpu(module, S, X, T, R, V):
    """binomialOptionsGPU: prepare the options, copy them to the constant array, run, read back."""
    opt_n = S.size
    v_dt, pu_by_df, pd_by_df = step_factors(T, R, V)
    h_option_data = np.zeros(opt_n, dtype=OPTION_DATA)
    h_option_data["S"], h_option_data["X"] = S, X
    h_option_data["vDt"], h_option_data["puByDf"], h_option_data["pdByDf"] = v_dt, pu_by_df, pd_by_df

    kernel = check(driver.cuModuleGetFunction(module, b"binomialOptionsKernel"))
    d_option_data, option_bytes = check(driver.cuModuleGetGlobal(module, b"d_OptionData"))
    assert option_bytes == MAX_OPTIONS * OPTION_DATA.itemsize, option_bytes
    check(driver.cuMemcpyHtoD(d_option_data, h_option_data, h_option_data.nbytes))

    check(driver.cuLaunchKernel(kernel, opt_n, 1, 1, THREADBLOCK_SIZE, 1, 1, 0, None, None, None))
    check(driver.cuCtxSynchronize())

    d_call_value, _ = check(driver.cuModuleGetGlobal(module, b"d_CallValue"))
    call_value = np.empty(opt_n, dtype=np.float32)
    check(driver.cuMemcpyDtoH(call_value, d_call_value, call_value.nbytes))
    return call_value


def l1(reference, result):
    ref = reference.astype(np.float64)
    return float(np.abs(ref - result.astype(np.float64)).sum() / np.abs(ref).sum())


def main():
    print(f"[{sys.argv[0]}] - Starting...")
    dev, _ctx = select_device(0)
    print(f"> Using CUDA device [0]: {device_name(dev)}")
    cubin = compile_source(BINOMIAL_KERNEL, device_arch(dev), fmt="cubin", name=b"binomialOptions_kernel.cu")
    module = check(driver.cuModuleLoadData(cubin))

    opt_n = MAX_OPTIONS
    print("Generating input data...")
    rng = np.random.default_rng(123)
    S = rng.uniform(5.0, 30.0, opt_n).astype(np.float32).astype(np.float64)
    X = rng.uniform(1.0, 100.0, opt_n).astype(np.float32).astype(np.float64)
    T = rng.uniform(0.25, 10.0, opt_n).astype(np.float32).astype(np.float64)
    R = float(np.float32(0.06))
    V = float(np.float32(0.10))
    call_value_bs = black_scholes_call(S, X, T, R, V)

    print("Running GPU binomial tree...")
    start = time.perf_counter()
    call_value_gpu = binomial_options_gpu(module, S, X, T, R, V)
    gpu_time = (time.perf_counter() - start) * 1e3
    print(f"Options count            : {opt_n}     ")
    print(f"Time steps               : {NUM_STEPS}     ")
    print(f"binomialOptionsGPU() time: {gpu_time:f} msec")
    print(f"Options per second       : {opt_n / (gpu_time * 1e-3):f}     ")

    print("Running CPU binomial tree...")
    call_value_cpu = binomial_options_cpu(S, X, T, R, V)

    print("Comparing the results...")
    print("GPU binomial vs. Black-Scholes")
    print(f"L1 norm: {l1(call_value_bs, call_value_gpu):E}")
    print("CPU binomial vs. Black-Scholes")
    print(f"L1 norm: {l1(call_value_bs, call_value_cpu):E}")
    print("CPU binomial vs. GPU binomial")
    error_val = l1(call_value_cpu, call_value_gpu)
    print(f"L1 norm: {error_val:E}")

    print("Shutting down...")
    check(driver.cuModuleUnload(module))
    release_device(dev)
    ok = math.isfinite(error_val) and error_val <= 5e-4
    print("Test passed" if ok else "Test failed!")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
