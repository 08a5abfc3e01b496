"""Load-test campaigns: open and closed loop, operational laws, peak rate, latency under load.

Pure analysis (numpy/pyarrow in, frozen results or tables out):

* :mod:`.intervals`: CIs of means (Student's t; the normal z of Shivam et al.'s
  equation 1), rank-based CIs of percentiles, accuracy (their equation 2) and the
  peak-rate region test;
* :mod:`.laws`: the operational laws as consistency checks of each trial;
* :mod:`.histograms`: latency distributions on one log-bucket grid (pooled across trials);
* :mod:`.curve`: the load curve and the peak throughput / peak rate.
"""
