"""An `nvidia-smi`-like table of every GPU, through NVML (cuda.bindings.nvml).

API area: NVML: init_v2, system_get_driver_version, system_get_cuda_driver_version_v2,
device_get_count_v2, device_get_handle_by_index_v2, device_get_name, device_get_pci_info_v3,
device_get_temperature_v, device_get_power_usage, device_get_enforced_power_limit,
device_get_memory_info_v2, device_get_utilization_rates, device_get_mig_mode,
device_get_compute_running_processes_v3, system_get_process_name, shutdown.

For each GPU: its index, name, bus id, temperature, power draw and cap, memory used and total,
utilization, MIG mode; then the compute processes on each. A value the GPU does not report
(NotSupportedError) is shown as N/A, as nvidia-smi shows it.

Run: python examples/1_Utilities/nvml_smi.py
Exit status: 0 when every GPU was listed, 1 on an NVML error, 3 when NVML is not available (no
NVIDIA driver) or there is no GPU.
"""
import os
import sys
from collections.abc import Callable
from typing import TypeVar

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from common import requirement_not_met  # noqa: E402

T = TypeVar("T")


def or_na(call: Callable[[], T], nvml_module) -> T | str:
    """call(), or "N/A" where the GPU does not support the query."""
    try:
        return call()
    except nvml_module.NotSupportedError:
        return "N/A"


def main() -> int:
    try:
        from cuda.bindings import nvml
    except ImportError as e:
        return requirement_not_met(f"cuda.bindings.nvml is not available: {e}")
    try:
        nvml.init_v2()
    except Exception as e:          # no driver: the library is missing, or NVML cannot start
        return requirement_not_met(f"NVML is not available: {type(e).__name__}: {e}")
    try:
        count = nvml.device_get_count_v2()
        if count == 0:
            return requirement_not_met("no GPU")
        driver_version = nvml.system_get_driver_version()
        cuda = nvml.system_get_cuda_driver_version_v2()
        print(f"Driver Version: {driver_version}    CUDA Version: {cuda // 1000}.{cuda % 1000 // 10}")
        line = "+" + "-" * 100 + "+"
        print(line)
        print(f"| {'GPU':>3}  {'Name':<28} {'Bus-Id':<18} {'Temp':>5} {'Pwr:Usage/Cap':>15} "
              f"{'Memory-Usage':>21} {'Util':>5} {'MIG':>4} |")
        print(line)
        handles = [nvml.device_get_handle_by_index_v2(i) for i in range(count)]
        for i, h in enumerate(handles):
            name = nvml.device_get_name(h)
            bus = nvml.device_get_pci_info_v3(h).bus_id
            temp = or_na(lambda: nvml.device_get_temperature_v(h, nvml.TemperatureSensors.TEMPERATURE_GPU), nvml)
            power = or_na(lambda: nvml.device_get_power_usage(h) // 1000, nvml)
            cap = or_na(lambda: nvml.device_get_enforced_power_limit(h) // 1000, nvml)
            mem = nvml.device_get_memory_info_v2(h)
            util = or_na(lambda: nvml.device_get_utilization_rates(h).gpu, nvml)
            mig = or_na(lambda: ("On" if nvml.device_get_mig_mode(h)[0] else "Off"), nvml)
            temp_s = f"{temp}C" if temp != "N/A" else temp
            util_s = f"{util}%" if util != "N/A" else util
            print(f"| {i:>3}  {name[:28]:<28} {bus:<18} {temp_s:>5} {f'{power}W / {cap}W':>15} "
                  f"{f'{mem.used >> 20}MiB / {mem.total >> 20}MiB':>21} {util_s:>5} {mig:>4} |")
        print(line)
        print(f"| {'Processes:':<98} |")
        print(f"| {'GPU':>3}  {'PID':>8}  {'Process name':<60} {'GPU Memory':>22} |")
        shown = 0
        for i, h in enumerate(handles):
            procs = or_na(lambda: nvml.device_get_compute_running_processes_v3(h), nvml)
            if isinstance(procs, str):
                continue
            for k in range(len(procs)):
                p = procs[k]
                pname = or_na(lambda: nvml.system_get_process_name(p.pid), nvml)
                print(f"| {i:>3}  {p.pid:>8}  {str(pname)[-60:]:<60} {f'{p.used_gpu_memory >> 20}MiB':>22} |")
                shown += 1
        if not shown:
            print(f"| {'No running compute processes found':<98} |")
        print(line)
        return 0
    except nvml.NvmlError as e:
        print(f"NVML error: {type(e).__name__} ({e.status}): {e}")
        return 1
    finally:
        nvml.shutdown()


if __name__ == "__main__":
    sys.exit(main())
