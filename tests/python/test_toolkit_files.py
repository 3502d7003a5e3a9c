"""Where libdevice, libNVVM and NVRTC come from (cutwin/_toolkit.py): a variable set by the
user, else a CUDA toolkit, else NVIDIA's pip packages (cutwin[cu13] / [cu12])."""
import os

from cutwin import _toolkit


def touch(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "wb").close()
    return str(path)


def test_pip_packages_of_cuda_13_and_12(tmp_path):
    site = tmp_path / "site-packages"
    libdevice = touch(site / "nvidia/cu13/nvvm/libdevice/libdevice.10.bc")
    libnvvm = touch(site / "nvidia/cu13/lib/libnvvm.so.4")
    nvrtc12 = touch(site / "nvidia/cuda_nvrtc/lib/libnvrtc.so.12")
    env = {"PATH": str(tmp_path / "no-bin")}
    found = _toolkit.locate(env, search_path=[str(tmp_path / "elsewhere"), str(site)])
    if os.path.isfile("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"):  # a toolkit here comes first
        assert found["CUTWIN_LIBDEVICE"].startswith("/usr/local/cuda")
    else:
        assert found == {"CUTWIN_LIBDEVICE": libdevice, "CUTWIN_LIBNVVM": libnvvm, "CUTWIN_LIBNVRTC": nvrtc12}


def test_a_toolkit_comes_before_pip_packages_and_set_variables_stay(tmp_path):
    home = tmp_path / "cuda"
    libdevice = touch(home / "nvvm/libdevice/libdevice.10.bc")
    site = tmp_path / "site-packages"
    touch(site / "nvidia/cu13/nvvm/libdevice/libdevice.10.bc")
    touch(site / "nvidia/cu13/lib/libnvvm.so.4")
    env = {"CUDA_HOME": str(home), "CUTWIN_LIBNVVM": "/chosen/libnvvm.so", "PATH": ""}
    found = _toolkit.locate(env, search_path=[str(site)])
    assert found["CUTWIN_LIBDEVICE"] == libdevice
    assert "CUTWIN_LIBNVVM" not in found  # the user's choice is kept
    env2 = dict(env)
    assert _toolkit.configure(env2, search_path=[str(site)]) == found and env2["CUTWIN_LIBDEVICE"] == libdevice


def test_the_toolkits_libnvvm_in_either_layout_comes_before_the_pip_package(tmp_path):
    # A toolkit's ptxas assembles what its own libNVVM emits; a newer pip libNVVM emits a
    # PTX version that ptxas rejects. CUDA 12 keeps libNVVM in nvvm/lib64, CUDA 13 in lib.
    site = tmp_path / "site-packages"
    touch(site / "nvidia/cu13/lib/libnvvm.so.4")
    for layout in ("nvvm/lib64/libnvvm.so", "lib/libnvvm.so", "lib64/libnvvm.so"):
        home = tmp_path / layout.replace("/", "_")
        libnvvm = touch(home / layout)
        found = _toolkit.locate({"CUDA_HOME": str(home), "PATH": ""}, search_path=[str(site)])
        assert found["CUTWIN_LIBNVVM"] == libnvvm, layout
