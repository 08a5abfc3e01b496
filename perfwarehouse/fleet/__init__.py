"""The periodic fleet analysis: drift, new order dependence and variability of every
configuration in a period against the previous one (:mod:`perfwarehouse.fleet.analysis`).
``perfwarehouse report fleet`` presents it."""
