#!/usr/bin/env python3
"""The recipes of docs/architecture.md, enforced: what a new enumerator, step or intrinsic
must bring, checked over the tree.

    check_recipes.py CUTWIN_CLI SOURCE_DIR

1. No switch over a contract enum has a `default:` (the build's -Werror=switch then names
   every switch a new enumerator must reach). Contract enums: the syntax tree's kinds, the
   types' kinds and accesses, intrinsics, pipeline steps, kernel error kinds, host
   callbacks, debugger stops, float16 operations and every builtin family's enumerator.
2. Every IR step (a `cutwin steps` row after `lower` that prints IR, NVVM IR or PTX) has its
   test, tests/opt/<step>.ll (dashes as underscores).
3. Every intrinsic (`cutwin intrinsics`) is called in the input of a tests/opt case of each
   backend's lowering (`--step sim-lower` and `--step gpu-lower`), whose CHECK lines show
   what it became.
Each failure names its file (and line); exit status 1 if there is one.
"""
import os
import re
import subprocess
import sys

# Where each contract enum is declared: {name: (file, how its enumerators are listed)}.
CONTRACT_ENUMS = {
    "StmtKind": ("frontend/syntax/ast.h", None),
    "ExprKind": ("frontend/syntax/ast.h", None),
    "TypeKind": ("frontend/sema/types.h", None),
    "Access": ("frontend/sema/typer.h", None),
    "KernelErrorKind": ("include/cutwin/errors.h", None),
    "StopKind": ("frontend/ir/kernel_ir.h", None),
    "StepStage": ("frontend/ir/step_runner.h", None),
    "Intrinsic": ("frontend/ir/intrinsics.def", r"^CUTWIN_INTRINSIC\((\w+)"),
    "Step": ("frontend/ir/pipeline_steps.def", r"^CUTWIN_STEP\((\w+)"),
    "HostCallback": ("backend_sim/host_callbacks.h", r"^\s*X\((\w+),"),
}
SOURCE_DIRS = ("frontend", "backend_sim", "backend_gpu", "runtime", "cli", "conformance", "python/src")


def enum_members(text, name):
    """The enumerators of `enum class name` in a text without comments."""
    m = re.search(r"enum class " + name + r"\b[^{;]*\{", text)
    body = text[m.end():text.index("}", m.end())]
    return {item.split("=")[0].strip() for item in body.split(",") if item.strip()}


def contract_enums(src):
    """{enum name: its enumerators}: the list above and every builtin family's enumerator."""
    enums = {}
    for name, (path, listed) in CONTRACT_ENUMS.items():
        with open(os.path.join(src, path)) as f:
            text = f.read()
        enums[name] = (set(re.findall(listed, text, re.M)) if listed
                       else enum_members(blank_comments_and_strings(text), name))
    folder = os.path.join(src, "frontend", "builtins")
    for file_name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, file_name)) as f:
            text = blank_comments_and_strings(f.read())
        for name in re.findall(r"enum class (\w+)[^{;]*\{", text):  # not a declaration
            enums[name] = enum_members(text, name)
    return enums


def blank_comments_and_strings(text):
    """The text with comments, string and character literals blanked (lines kept)."""
    pattern = re.compile(r'//[^\n]*|/\*.*?\*/|R"(\w*)\(.*?\)\1"|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def matching(text, i, open_ch, close_ch):
    """The index just past the bracket closing the one at `i`."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == open_ch:
            depth += 1
        elif text[j] == close_ch:
            depth -= 1
            if depth == 0:
                return j + 1
    return len(text)


def switches(text):
    """(offset of `switch`, body start, body end) for every switch with a braced body."""
    for m in re.finditer(r"\bswitch\s*\(", text):
        cond_end = matching(text, m.end() - 1, "(", ")")
        body = text.find("{", cond_end)
        if body < 0 or text[cond_end:body].strip():
            continue
        yield m.start(), body, matching(text, body, "{", "}")


def own_labels(text, body, end, nested):
    """The case and default labels of a switch body, not those of switches nested in it."""
    pos, labels = body + 1, []
    for start, _, stop in sorted(nested):
        labels += LABEL.findall(text[pos:start])
        pos = max(pos, stop)
    labels += LABEL.findall(text[pos:end])
    return labels


# `case X::Y:` (X the enum, possibly qualified) as (X, Y, ""), `default:` as ("", "", "default").
LABEL = re.compile(r"\bcase\s+(?:[\w:]*::)?(\w+)::(\w+)\s*:|\b(default)\s*:")


def check_switches(src, enums):
    problems = []
    for folder in SOURCE_DIRS:
        for root, _, files in os.walk(os.path.join(src, folder)):
            for name in sorted(files):
                if not name.endswith((".cpp", ".h")):
                    continue
                path = os.path.join(root, name)
                with open(path) as f:
                    text = blank_comments_and_strings(f.read())
                found = list(switches(text))
                for start, body, end in found:
                    nested = [s for s in found if body < s[0] < end]
                    labels = own_labels(text, body, end, nested)
                    # (LLVM's own enums share some names: llvm::Intrinsic::sqrt is not ours)
                    named = {enum for enum, member, _ in labels if member in enums.get(enum, ())}
                    if named and any(default for _, _, default in labels):
                        line = text.count("\n", 0, start) + 1
                        problems.append("%s:%d: a switch over %s has a default:" %
                                        (os.path.relpath(path, src), line, ", ".join(sorted(named))))
    return problems


def table_rows(cli, command):
    out = subprocess.run([cli, command], capture_output=True, text=True, check=True).stdout
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in out.splitlines()[2:]]


def opt_cases(src):
    """tests/opt's cases: {file name: (the step its RUN line names, its IR without comments)}."""
    cases = {}
    folder = os.path.join(src, "tests", "opt")
    for name in sorted(os.listdir(folder)):
        if name.endswith(".ll"):
            with open(os.path.join(folder, name)) as f:
                text = f.read()
            step = re.search(r"^; RUN:.*--step[= ](\S+)", text, re.M)
            ir = "\n".join(line.split(";")[0] for line in text.splitlines())
            cases[name] = (step.group(1) if step else None, ir)
    return cases


def check_steps(cli, src, cases):
    rows = table_rows(cli, "steps")
    names = [row[0].strip("`") for row in rows]
    after = rows[names.index("lower") + 1:]
    ir_steps = [row[0].strip("`") for row in after if row[3] in ("IR", "NVVM IR", "PTX")]
    return ["tests/opt/%s.ll: missing (the test of step %s)" % (s.replace("-", "_"), s)
            for s in ir_steps if s.replace("-", "_") + ".ll" not in cases]


def check_intrinsics(cli, cases):
    problems = []
    for row in table_rows(cli, "intrinsics"):
        name = row[0].strip("`")
        for lowering in ("sim-lower", "gpu-lower"):
            if not any(step == lowering and re.search(r"@" + re.escape(name) + r"\(", ir)
                       for step, ir in cases.values()):
                problems.append("tests/opt: no %s case calls @%s" % (lowering, name))
    return problems


def main():
    cli, src = sys.argv[1], sys.argv[2]
    cases = opt_cases(src)
    problems = (check_switches(src, contract_enums(src)) + check_steps(cli, src, cases) +
                check_intrinsics(cli, cases))
    for p in problems:
        print(p)
    print("%d problems" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
