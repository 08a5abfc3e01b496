"""``refresh --notify URL``: post the summary of a refresh as JSON to a webhook.

The body is one JSON object: ``text`` (the summary in a few lines, what a Slack-style
incoming webhook shows; Mattermost and Rocket.Chat read the same field), ``since``,
``counts`` and ``new`` (the findings, as ``--format json`` has them). A post that fails
(refused, timed out, an HTTP status other than 2xx) is retried with exponential backoff;
when every attempt failed the caller warns and the refresh stands (its point is already
written). Standard library only (``urllib``): no dependency for one POST.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from typing import Any

from perfwarehouse.refresh.findings import Finding, counts, text_lines


def payload(findings: Sequence[Finding], since: str, site: str = "",
            limit: int = 10) -> dict[str, Any]:
    """The JSON body: ``text`` (the headline and at most ``limit`` findings per kind), the
    counts and every finding, its ``link`` prefixed with ``site``."""
    text = "\n".join(text_lines(findings, since, limit=limit))
    new = []
    for f in findings:
        row = f.as_json()
        row["link"] = site + f.link
        new.append(row)
    return {"text": text, "since": since, "counts": counts(findings), "new": new}


def post(url: str, body: dict[str, Any], *, retries: int = 3, timeout_s: float = 10.0,
         backoff_s: float = 0.5, sleep: Callable[[float], None] = time.sleep) -> str | None:
    """POST ``body`` as JSON to ``url``; None when it was accepted (2xx), else why the last
    of ``1 + retries`` attempts failed. Each attempt waits at most ``timeout_s``."""
    if not url.startswith(("http://", "https://")):
        return f"{url}: not an http:// or https:// address"
    data = json.dumps(body, default=str).encode()
    problem = None
    for attempt in range(retries + 1):
        if attempt:
            sleep(backoff_s * 2 ** (attempt - 1))
        request = urllib.request.Request(url, data=data, method="POST", headers={
            "Content-Type": "application/json", "User-Agent": "perfwarehouse-refresh"})
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as response:  # noqa: S310
                response.read()
                return None
        except urllib.error.HTTPError as exc:
            problem = f"HTTP {exc.code} {exc.reason}"
            if 400 <= exc.code < 500 and exc.code != 429:
                return problem  # the hook refuses this body: retrying will not help
        except (urllib.error.URLError, OSError, TimeoutError) as exc:
            reason = getattr(exc, "reason", exc)
            problem = str(reason) or type(reason).__name__
    return problem
