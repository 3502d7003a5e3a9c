"""The debugger's state shared by its parts: the numbered breakpoints and watchpoints, and
the stop being handled."""
numbered = {}  # number -> Breakpoint or Watchpoint, numbered together as gdb does
next_number = [1]
current = None  # the Stop being handled (a Stop of stops.py)
