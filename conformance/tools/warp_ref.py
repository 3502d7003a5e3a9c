"""A reference model of PTX's warp operations (shfl.sync, vote.sync, match.sync,
activemask) on a block of threads, written from the PTX ISA's rules: the oracle of the
warp tests and of the warp_ops conformance case.

Lanes are numbered as CUDA numbers them: warp w holds the block's linear thread indices
32w .. 32w+31; a last warp with fewer threads has no lanes above them. Values are Python
integers (bit patterns). A result CUDA leaves undefined (a shuffle from a lane that takes
no part) is None."""

IDX, UP, DOWN, XOR = "idx", "up", "down", "xor"


def shfl(mode, values, b, group):
    """Each lane's result of a shuffle among the lanes in `group` (a set of lane numbers):
    PTX uses the low five bits of b; a source outside 0..31 gives the caller's own value."""
    out = {}
    for lane in group:
        d = b[lane] & 31
        src = {IDX: d, UP: lane - d, DOWN: lane + d, XOR: lane ^ d}[mode]
        if not 0 <= src <= 31:
            out[lane] = values[lane]
        elif src in group:
            out[lane] = values[src]
        else:
            out[lane] = None
    return out


def ballot(preds, group):
    return sum(1 << lane for lane in group if preds[lane])


def vote(kind, preds, group):
    ones = [bool(preds[lane]) for lane in group]
    return {"all": all(ones), "any": any(ones), "uni": all(ones) or not any(ones)}[kind]


def match_any(values, group):
    return {lane: sum(1 << k for k in group if values[k] == values[lane]) for lane in group}


def match_all(values, group, mask):
    same = len({values[lane] for lane in group}) == 1
    return (mask if same else 0), same


def as_int32(x):
    """A 32-bit mask as numba returns it from ballot_sync/match_*_sync: an int32."""
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >= 1 << 31 else x


def warps(block_threads):
    """(first linear thread, lanes) of each warp of a block."""
    return [(w, min(32, block_threads - w)) for w in range(0, block_threads, 32)]
