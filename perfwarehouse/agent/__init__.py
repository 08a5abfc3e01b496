"""Collector agent: run tests into a spool, serve the spool, pull it into a warehouse.

* :mod:`~perfwarehouse.agent.schedule`: the OrderSage schedule (pure);
* :mod:`~perfwarehouse.agent.runner`: ``perfwarehouse agent run`` (processes, reset, spool);
* :mod:`~perfwarehouse.agent.spool`: append-only JSON Lines segments;
* :mod:`~perfwarehouse.agent.serve`: ``perfwarehouse agent serve`` (read-only HTTP);
* :mod:`~perfwarehouse.ingest.pull`: ``perfwarehouse ingest pull`` (cursors, exactly once).
"""
