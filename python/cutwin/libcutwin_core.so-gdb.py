# gdb runs this when it loads libcutwin_core.so, if auto-loading is allowed here
# (`add-auto-load-safe-path` with this directory): cutwin's gdb commands and printers.
import os

_path = os.path.join(os.path.dirname(os.path.realpath(__file__)), "gdb_extension.py")
with open(_path) as _f:
    exec(compile(_f.read(), _path, "exec"))
