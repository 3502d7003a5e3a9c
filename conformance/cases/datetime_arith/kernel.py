from numba import cuda


@cuda.jit
def datetime_arith(dates, other, hours, diff, moved, ratio, later):
    """NumPy's datetime64/timedelta64 arithmetic as numba computes it: a difference of days,
    days plus hours in the finer unit, timedelta division into float64, a comparison; NaT
    propagates (NaN for the division, false for the comparison)."""
    i = cuda.grid(1)
    if i < dates.size:
        d = dates[i] - other[i]
        diff[i] = d
        moved[i] = dates[i] + hours[i]
        ratio[i] = d / hours[i]
        later[i] = dates[i] > other[i]
