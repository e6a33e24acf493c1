"""Result statistics: outcome frequencies against their exact probabilities, and streaks.

Written with :mod:`math` alone (docs/integrity.md gives the formulas):

- :func:`chi_squared`: Pearson's statistic of observed outcome counts against expected counts
  (the exact probabilities of the shoe's starting composition, from the same enumeration as
  ``station analyze``), with its p-value from the chi-squared distribution's survival function
  (:func:`chi2_sf`, the regularized upper incomplete gamma function);
- :func:`longest_streak_tail`: the exact probability that ``n`` non-tie results hold a streak
  (consecutive wins of the same side) at least ``length`` long, by dynamic programming;
- :func:`runs_test`: the number of streaks against its distribution given how many results each
  side won (Wald and Wolfowitz), two-sided, by the normal approximation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: Below this expected count a category is too small for the chi-squared approximation: the
#: test is not made (the report says so).
MIN_EXPECTED = 5.0


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-squared with ``df`` degrees of freedom."""
    half = x / 2.0
    if half <= 0:  # x at or below 0, or so small that halving it underflows to 0
        return 1.0
    return _gamma_q(df / 2.0, half)


def _gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) (series below a + 1, continued
    fraction above: the usual split, each converging fast on its side)."""
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1.0:
        term = total = 1.0 / a
        n = a
        for _ in range(1000):
            n += 1.0
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    # Lentz's method for the continued fraction of Q.
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return min(1.0, math.exp(log_front) * h)


@dataclass(frozen=True)
class TestResult:
    """One test: its name, statistic, p-value (``None`` when it could not be made) and a note."""

    name: str
    statistic: float
    p_value: float | None
    note: str = ""

    def to_json(self) -> dict[str, object]:
        return {"test": self.name, "statistic": round(self.statistic, 6),
                "p_value": None if self.p_value is None else float(f"{self.p_value:.6g}"), "note": self.note}


def chi_squared(name: str, observed: Sequence[int], expected: Sequence[float]) -> TestResult:
    """Pearson's chi-squared of ``observed`` counts against ``expected`` counts (same order)."""
    n = sum(observed)
    if n == 0 or any(e < MIN_EXPECTED for e in expected):
        return TestResult(name, 0.0, None, f"too few results ({n}) for the test")
    statistic = sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))
    return TestResult(name, statistic, chi2_sf(statistic, len(observed) - 1), f"{n} results, df {len(observed) - 1}")


def longest_streak_tail(n: int, p: float, length: int) -> float:
    """P(the longest streak of ``n`` independent results, each won by the first side with
    probability ``p``, is at least ``length``)."""
    if length <= 1:
        return 1.0 if n >= 1 else 0.0
    if n < length:
        return 0.0
    q = 1.0 - p
    # a[k], b[k]: probability of no streak >= length so far, the current streak k long, won by
    # the first (a) or the second (b) side.
    a = [0.0] * length
    b = [0.0] * length
    a[1], b[1] = p, q
    for _ in range(n - 1):
        na = [0.0] * length
        nb = [0.0] * length
        sa, sb = sum(a), sum(b)
        na[1] = sb * p
        nb[1] = sa * q
        for k in range(1, length - 1):
            na[k + 1] = a[k] * p
            nb[k + 1] = b[k] * q
        a, b = na, nb
    return max(0.0, 1.0 - sum(a) - sum(b))


def streaks(results: Sequence[str]) -> list[tuple[str, int]]:
    """The streaks of a result sequence (ties already removed): (side, length) in order."""
    out: list[tuple[str, int]] = []
    for r in results:
        if out and out[-1][0] == r:
            out[-1] = (r, out[-1][1] + 1)
        else:
            out.append((r, 1))
    return out


def runs_test(name: str, results: Sequence[str], first: str) -> TestResult:
    """Wald-Wolfowitz: are there too few or too many streaks for the counts of each side?"""
    n1 = sum(1 for r in results if r == first)
    n2 = len(results) - n1
    n = n1 + n2
    if n1 < 10 or n2 < 10:
        return TestResult(name, 0.0, None, f"too few results of each side ({n1}, {n2}) for the test")
    runs = len(streaks(results))
    mean = 2.0 * n1 * n2 / n + 1.0
    variance = 2.0 * n1 * n2 * (2.0 * n1 * n2 - n) / (n * n * (n - 1.0))
    z = (runs - mean) / math.sqrt(variance)
    return TestResult(name, z, math.erfc(abs(z) / math.sqrt(2.0)), f"{runs} streaks, {mean:.1f} expected")


def longest_streak_test(name: str, results: Sequence[str], p_first: float) -> TestResult:
    """The longest streak against its exact distribution for ``len(results)`` results."""
    found = streaks(results)
    if not found:
        return TestResult(name, 0.0, None, "no results")
    side, longest = max(found, key=lambda s: s[1])
    p = longest_streak_tail(len(results), p_first, longest)
    return TestResult(name, float(longest), p, f"longest streak {longest} ({side}) in {len(results)} results")
