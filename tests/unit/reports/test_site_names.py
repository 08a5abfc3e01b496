"""Names in a report site cannot collide (issue 44, H8 and H14): campaign directories
(names that differ by case, share long prefixes, or spell another's directory: readable
names, told apart by ``-2``, ``-3`` among the site's campaigns)
and the viewer's configuration keys (a 32-bit hash lost 124 of 10^6 drill-downs); the
viewer says "no such configuration" for ``#__proto__``, ``#constructor`` and broken
percent-escapes instead of staying at "drawing"."""

from __future__ import annotations

import hashlib
import html
import itertools
import random
import re
from pathlib import Path

import pytest

from perfwarehouse.reports.campaigns import campaign_folders, campaign_slug
from perfwarehouse.reports.configuration import page_name
from perfwarehouse.reports.drilldown import DATA, VIEWER, data_script, viewer_html
from perfwarehouse.reports.render import SiteLinks, write_assets
from tests import browser


def _old_slug(name: str) -> str:
    """The directory of d99f738: 40 characters and a 24-bit hash."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "campaign"
    return slug if slug == name else f"{slug}-{hashlib.sha1(name.encode()).hexdigest()[:6]}"


def test_names_that_shared_a_directory_do_not_any_more() -> None:
    long = "nightly-regression-suite-on-the-arm-fleet"  # 41 characters
    pairs = [("Foo", _old_slug("Foo")),  # "foo-201a6b": a clean name, taken as it is
             (long + "-a", long + "-b"), (long, long[:40]), ("NPB", "npb"), ("a b", "a-b"),
             ("x" * 200, "x" * 201), ("assets", "Assets")]
    assert _old_slug("Foo") == "foo-201a6b"
    for a, b in pairs:
        folders = campaign_folders([a, b])
        assert folders[a] != folders[b], (a, b)
        assert "assets" not in folders.values()  # the site's own directory
    # nor does a name that spells another's directory take it from that one
    folders = campaign_folders(["Foo", "foo", "foo-2"])
    assert folders == {"foo": "foo", "foo-2": "foo-2", "Foo": "foo-3"}


def test_directories_are_readable_distinct_and_deterministic_for_shared_prefixes_and_case(
) -> None:
    """Issue 44 H8, without hashed names (issue 40: ``npb-d2a1e6/``): each directory is
    its name made readable (plus ``-k`` when names share it), distinct, lower case (so a
    case-insensitive file system keeps them apart), whatever the order of the names."""
    rng = random.Random(8)
    stem = "campaign-with-a-long-shared-prefix-of-sixty-characters-and-more"
    names = {stem[:k] + "".join(rng.choice("aA-_ .Zz09") for _ in range(rng.randint(0, 6)))
             for k in (0, 5, 38, 39, 40, 41, 43, 59, 60, 61) for _ in range(300)}
    names |= {n.upper() for n in list(names)} | {"", "-", "--", "campaign", "Campaign"}
    folders = campaign_folders(names)
    assert set(folders) == names
    assert len(set(folders.values())) == len(names)
    for name, folder in folders.items():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", folder), folder
        base = campaign_slug(name)
        assert folder == base or re.fullmatch(rf"{re.escape(base)}-[0-9]+", folder), (name, folder)
        assert not re.search(r"[0-9a-f]{6}", folder.removeprefix(base))  # no hash
    shuffled = list(names)
    rng.shuffle(shuffled)
    assert campaign_folders(shuffled) == folders
    # clean names stay as they are, and a name alone is never numbered
    assert campaign_folders(["ordersage-longterm", "NPB"]) == {
        "ordersage-longterm": "ordersage-longterm", "NPB": "npb"}
    assert campaign_slug("Nightly ARM fleet (Zürich)") == "nightly-arm-fleet-zurich"


def _old_key(campaign: str, benchmark: str, config_id: int) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", benchmark.lower()).strip("-")[:40] or "benchmark"
    digest = hashlib.sha1(f"{campaign}\x1f{int(config_id)}".encode()).hexdigest()[:8]
    return f"configuration-{slug}-{digest}"


def test_configurations_whose_32_bit_keys_collided_have_distinct_keys() -> None:
    seen: dict[str, int] = {}
    collided = None
    for config_id in itertools.count():  # a birthday search: ~80,000 ids
        key = _old_key("c", "b", config_id)
        if key in seen:
            collided = (seen[key], config_id)
            break
        seen[key] = config_id
    assert collided is not None
    a, b = collided
    assert page_name("c", "b", a) != page_name("c", "b", b)
    # unique by construction: the configuration id (the warehouse's key) is in the name
    rng = random.Random(3)
    ids = [0, 1, 2**63, 2**64 - 1, *(rng.getrandbits(64) for _ in range(1000))]
    assert len({page_name("c", "b", i) for i in ids}) == len(ids)
    assert page_name("c", "b", 5) != page_name("d", "b", 5)


@pytest.fixture(scope="module")
def viewer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("site")
    write_assets(site / "assets")
    folder = site / "camp"
    folder.mkdir()
    recs = {page_name("camp", "b", 1): {"title": "b", "level": "ok"}}
    (folder / DATA).write_text(data_script("camp", recs), encoding="utf-8")
    (folder / VIEWER).write_text(viewer_html("camp", recs, SiteLinks("../assets/", ()), []),
                                 encoding="utf-8")
    return folder / VIEWER


@pytest.mark.browser
@pytest.mark.skipif(browser.chromium() is None,
                    reason="chromium is not installed (run .ci/setup --browser)")
@pytest.mark.parametrize(("fragment", "named"), [
    ("__proto__", "__proto__"), ("constructor", "constructor"), ("%E0%A4%A", "%E0%A4%A"),
    ("configuration-b-%", "configuration-b-%")])
def test_the_viewer_says_no_such_configuration(viewer: Path, fragment: str,
                                               named: str) -> None:
    loaded = browser.load(viewer, fragment=fragment)
    assert loaded.status.get("state") == "done", loaded.status
    assert loaded.status.get("missing") == named, loaded.status
    assert "Configuration undefined" not in loaded.dom
    assert html.escape(f"Campaign camp has no configuration \u201c{named}\u201d",
                       quote=False) in loaded.dom
