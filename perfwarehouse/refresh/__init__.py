"""``perfwarehouse refresh``: the nightly loop in one command (issue 41).

Pull from the configured agents, run every analysis whose inputs changed (the stale or
missing (job, campaign) pairs of :mod:`perfwarehouse.status`, with each job's last
parameters from :mod:`perfwarehouse.jobs.plan`), rewrite the site pages of the campaigns
that changed, and say what is new since the previous refresh.

"New" is a difference between two points of the catalog, never a memory of this process:
the findings of the latest job runs now against those of the latest job runs that existed
at the previous refresh point (table ``refreshes``, written last, in one transaction). A
refresh killed at any instant leaves the previous point in place, so the next refresh
compares with it again and reports the same "new" list as an uninterrupted one.

Modules: :mod:`.findings` (what a point holds and what is new, pure formatting),
:mod:`.points` (the catalog edge: points, changed campaigns), :mod:`.run` (the loop),
:mod:`.notify` (the webhook).
"""
