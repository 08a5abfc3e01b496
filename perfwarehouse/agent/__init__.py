"""Collector agent: run tests into a spool, serve the spool, pull it into a warehouse.

* :mod:`~perfwarehouse.agent.schedule`: the OrderSage schedule (pure);
* :mod:`~perfwarehouse.agent.trials`: the trial skeleton both runners share (the spool
  session, processes, signals, the node);
* :mod:`~perfwarehouse.agent.runner`: ``perfwarehouse agent run`` (the schedule, reset);
* :mod:`~perfwarehouse.agent.workbench`: ``agent peak-rate`` / ``agent surface`` (the
  workbench controller's trials; what runs nothing in :mod:`~perfwarehouse.agent.workbench_parts`);
* :mod:`~perfwarehouse.agent.spool`: append-only JSON Lines segments;
* :mod:`~perfwarehouse.agent.serve`: ``perfwarehouse agent serve`` (read-only HTTP);
* :mod:`~perfwarehouse.ingest.pull`: ``perfwarehouse ingest pull`` (cursors, exactly once).

The agent meets the warehouse side only at :mod:`perfwarehouse.protocol` and the pure
:mod:`perfwarehouse.policies` (``tests/test_layering.py``).
"""
