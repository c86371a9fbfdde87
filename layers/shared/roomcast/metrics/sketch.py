"""The metrics' distributions as DDSketch bins (the ``ddsketch`` library's logarithmic mapping):
a bucket keeps, for each sample kind, a count per bin as its own numeric attribute, so that a batch
adds to them with one ``ADD`` and the buckets of a room or a tenant merge exactly by adding. A
quantile read back from them is within ``RELATIVE_ACCURACY`` of the true one."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Final

from ddsketch import DDSketch
from ddsketch.mapping import LogarithmicMapping

from roomcast.metrics.model import Percentiles, Sample

RELATIVE_ACCURACY: Final = 0.02
_ZERO: Final = "z"  # the bin of 0 (a logarithm has no bin for it)


@cache
def _mapping() -> LogarithmicMapping:
    return LogarithmicMapping(RELATIVE_ACCURACY)


def bin_name(sample: Sample, value_ms: float) -> str:
    """The attribute counting ``value_ms`` (negative values, a clock's skew, count as 0)."""
    if value_ms <= 0:
        return f"{sample.value}{_ZERO}"
    return f"{sample.value}{_mapping().key(value_ms)}"


def bins(sample: Sample, values_ms: Iterable[float]) -> Counter[str]:
    return Counter(bin_name(sample, value) for value in values_ms)


def is_bin(sample: Sample, attribute: str) -> bool:
    rest = attribute[len(sample.value) :]
    return attribute.startswith(sample.value) and (rest == _ZERO or rest.lstrip("-").isdigit())


def percentiles(sample: Sample, attributes: Mapping[str, object]) -> Percentiles | None:
    """p50, p95 and p99 of the bins among ``attributes`` (a bucket's, or buckets' added); None
    without any sample."""
    sketch = DDSketch(RELATIVE_ACCURACY)
    for attribute, count in attributes.items():
        if not is_bin(sample, attribute) or not isinstance(count, int | float) or count <= 0:
            continue
        rest = attribute[len(sample.value) :]
        value = 0.0 if rest == _ZERO else _mapping().value(int(rest))
        sketch.add(value, float(count))
    if sketch.count <= 0:
        return None
    p50, p95, p99 = (sketch.get_quantile_value(q) for q in (0.5, 0.95, 0.99))
    return Percentiles(round(p50 or 0.0, 1), round(p95 or 0.0, 1), round(p99 or 0.0, 1))
