"""Order effects after OrderSage (Duplyakin, Ramesh, Imburgia et al., USENIX ATC 2023).

:mod:`~perfwarehouse.ordersage.orders` compares fixed-order with random-order trials
of every configuration (sections 3 and 5); :mod:`~perfwarehouse.ordersage.predecessors`
asks which test disturbs the next one. Both are pure; the jobs
``analyze order-effects`` and ``analyze predecessor-effects`` feed them from the
warehouse.
"""
