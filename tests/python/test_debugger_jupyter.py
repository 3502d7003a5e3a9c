"""The debugger's prompt in Jupyter: a cell that launches a kernel with breakpoint() asks
for commands through the notebook's input box (the kernel's stdin channel), prints what
they show in the cell's output, and the cell finishes with the kernel's results."""
import os
import queue

import pytest

jupyter_client = pytest.importorskip("jupyter_client", reason="ci/requirements.txt installs jupyter_client")
pytest.importorskip("ipykernel", reason="ci/requirements.txt installs ipykernel")

CELL = '''
import numpy as np
from cutwin import cuda

@cuda.jit(debug=True)
def stencil(a, out):
    i = cuda.grid(1)
    if 0 < i < a.size - 1:
        s = a[i - 1] + a[i] + a[i + 1]
        if i == 9:
            breakpoint()
        out[i] = s

a = np.arange(16, dtype=np.float64) ** 2
out = np.zeros_like(a)
with cuda.use_backend("sim"):
    stencil[1, 16](a, out)
print("out[9] =", out[9])
'''


def run_cell(code, answers, timeout=120):
    """Runs `code` in a fresh IPython kernel, answering its input requests with `answers`
    in turn; returns (the prompts asked, the cell's printed output, the reply's status)."""
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__import__("cutwin").__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([package_root] + [p for p in [os.environ.get("PYTHONPATH")]
                                                                         if p]))
    km, kc = jupyter_client.manager.start_new_kernel(kernel_name="python3", env=env)
    try:
        msg_id = kc.execute(code, allow_stdin=True)
        prompts, printed, answers = [], [], list(answers)

        def take_output(timeout):
            """What the cell printed that has arrived within `timeout` of each message."""
            while True:
                try:
                    msg = kc.get_iopub_msg(timeout=timeout)
                except queue.Empty:
                    return
                if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream":
                    printed.append(msg["content"]["text"])

        while True:
            try:
                req = kc.get_stdin_msg(timeout=0.2)
                prompts.append(req["content"]["prompt"])
                kc.input(answers.pop(0) if answers else "q")
            except queue.Empty:
                pass
            take_output(0.05)
            try:
                reply = kc.get_shell_msg(timeout=0.05)
            except queue.Empty:
                continue
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        take_output(1)  # what the cell printed last may still be on its way
        return prompts, "".join(printed), reply["content"]["status"]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_the_prompt_asks_through_the_notebook_and_prints_in_the_cell():
    prompts, out, status = run_cell(CELL, ["p i, s", "p a[i - 1:i + 2]", "!s = 1.5", "c"])
    assert status == "ok", out
    assert prompts == ["(cutwin) "] * 4
    assert "> breakpoint in kernel 'stencil'" in out
    assert "thread (9, 0, 0), block (0, 0, 0)" in out
    assert "(9, 245.0)" in out
    assert "array([ 64.,  81., 100.])" in out
    assert "out[9] = 1.5" in out  # the thread went on with the value set at the prompt
