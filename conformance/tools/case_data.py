"""The conformance cases' registry and writer: each case is a function of a cases_*.py
module, registered by @case, that returns its spec (kernel, launch, inputs, expected outputs
with their tolerances); write() turns a spec into the case's folder (case.json and .npy
files). make_case_data.py runs them."""
import json
import os

import numpy as np

CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cases")
REGISTRY = {}

# Why numba's CUDA simulator (not numba-cuda on a GPU) disagrees with some cases.
NEP50 = ("numba's simulator runs the kernel as Python: with NumPy 2's promotion rules "
         "(NEP 50) a Python float plus a float32 stays float32, while compiled numba-cuda "
         "types the accumulator as float64")


NO_FMA = ("numba's simulator never fuses a multiply and an add; numba-cuda on the GPU lets "
          "NVVM contract them (its default, -fma=1), as cutwin's frontend does")


GRID_SYNC = ("numba's simulator synchronises the grid correctly only within one block "
             "(its blocks run one after another)")



def case(fn):
    REGISTRY[fn.__name__] = fn
    return fn


def rng(seed):
    return np.random.default_rng(seed)


def blocks(n, b):
    return (n + b - 1) // b



def _array_entry(d, name, value):
    """An array's entry in case.json: zeros by dtype and shape, else an in_<name>.npy file."""
    if not value.any():
        return {"zeros": value.dtype.name, "shape": list(value.shape)}
    f = f"in_{name}.npy"
    np.save(os.path.join(d, f), np.ascontiguousarray(value))
    return {"npy": f}


def write(name, spec, root=CASES):
    d = os.path.join(root, name)
    os.makedirs(d, exist_ok=True)
    if "steps" in spec:  # several devices: arrays each on its device, launches and copies
        case = {"description": spec["description"], "devices": spec["devices"],
                "arrays": {a: dict(device=k, **_array_entry(d, a, v)) for a, k, v in spec["arrays"]},
                "steps": spec["steps"]}
        return _finish(d, spec, case)
    args = []
    for arg_name, value in spec["args"]:
        if isinstance(value, dict):  # e.g. {"xoroshiro128p_states": n, "seed": s}
            args.append(dict(name=arg_name, **value))
        elif isinstance(value, tuple):
            args.append({"name": arg_name, "scalar": value[1], "dtype": value[0]})
        elif not value.any():
            args.append({"name": arg_name, "zeros": value.dtype.name, "shape": list(value.shape)})
        else:
            f = f"in_{arg_name}.npy"
            np.save(os.path.join(d, f), np.ascontiguousarray(value))
            args.append({"name": arg_name, "npy": f})
    case = {"description": spec["description"], "kernel": spec["kernel"], "grid": spec["grid"],
            "block": spec["block"], "args": args}
    return _finish(d, spec, case)


def _finish(d, spec, case):
    """The parts every case has (expected outputs, options) and case.json itself."""
    if "module" in spec:
        case["module"] = spec["module"]
    if "expect" in spec:
        case["expect"] = {}
        for arg_name, (value, tol) in spec["expect"].items():
            if "row_digests" in tol:  # checked by digests recorded on a GPU, no golden file
                case["expect"][arg_name] = dict(tol)
                continue
            f = f"expected_{arg_name}.npy"
            if value is not None:
                np.save(os.path.join(d, f), np.ascontiguousarray(value))
            case["expect"][arg_name] = dict(npy=f, **tol)
    if spec.get("recorded_on_gpu"):
        case["recorded_on_gpu"] = "numba-cuda 0.30.4 on an NVIDIA H200 (conformance/gpu/record_with_numba_cuda.py)"
    if "shared_bytes" in spec:
        case["shared_bytes"] = spec["shared_bytes"]
    if "compile" in spec:
        case["compile"] = spec["compile"]
    if "expect_error" in spec:
        case["expect_error"] = spec["expect_error"]
    if "backends" in spec:
        case["backends"] = spec["backends"]
        case["backends_reason"] = spec["backends_reason"]
    for key in ("numba_sim_difference", "numba_difference"):
        if key in spec:
            case[key] = spec[key]
    with open(os.path.join(d, "case.json"), "w") as fh:
        json.dump(case, fh, indent=2)
        fh.write("\n")
