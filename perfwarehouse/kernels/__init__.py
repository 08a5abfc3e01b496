"""numba kernels: contiguous arrays in, arrays/scalars out (``@njit(cache=True)``).

Typed wrappers with frozen result dataclasses live in :mod:`perfwarehouse.stats`
or the topic module; slow obvious twins in ``tests/naive/<topic>.py``.
"""
