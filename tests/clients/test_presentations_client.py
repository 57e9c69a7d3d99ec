"""A published presentation-generation client (gamma-app-mcp 0.2.0) against the served simulator.

``gamma_app_mcp.client.GammaClient`` (requests) takes a ``base_url`` and sends ``X-API-KEY`` as
the document says. The package says Python >= 3.11 and needs ``mcp`` only for its server module;
its client imports requests alone, so it is installed without dependencies
(``pip install --no-deps gamma-app-mcp==0.2.0``). Not a dependency of the project: the test is
skipped where the package is not installed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

gamma = pytest.importorskip("gamma_app_mcp.client")

from conformance.services import create_simulator  # noqa: E402

CREDS = create_simulator("presentations").credentials
FOLDERS = CREDS["FOLDER_IDS"].split(",")

pytestmark = pytest.mark.slow


@pytest.fixture
def client(served: Callable[..., Any], tally: Callable[[str], Any]) -> Iterator[Any]:
    # A clock 1000x real time: a generation finishes within the test's few polls.
    with served("presentations", clock_rate=1000.0, decorate=tally("presentations")) as (url, _sim):
        api = gamma.GammaClient(api_key=CREDS["API_KEY"], base_url=url, timeout=10)
        yield api
        api.session.close()


def _finished(api: Any, generation_id: str) -> dict[str, Any]:
    for _ in range(200):  # bounded: the simulated generation takes seconds of simulated time
        status = api.get_status(generation_id)
        if status["status"] != "pending":
            return dict(status)
    raise AssertionError("the generation did not finish within 200 polls")


def test_generate_and_poll(client: Any) -> None:
    job = client.generate("A short talk on tide pools", text_mode="generate", format="presentation", num_cards=3,
                          export_as="pdf", folder_ids=FOLDERS[:2],
                          text_options={"amount": "brief", "language": "en"},
                          image_options={"source": "aiGenerated"},
                          card_options={"dimensions": "16x9"},
                          sharing_options={"workspaceAccess": "view"})
    done = _finished(client, job["generationId"])
    assert done["status"] == "completed" and done["gammaUrl"]


def test_generate_from_template(client: Any) -> None:
    job = client.generate_from_template("Swap in a product launch", CREDS["TEMPLATE_ID"], export_as="pptx")
    assert _finished(client, job["generationId"])["status"] == "completed"


def test_themes_and_folders_walk_their_cursors(client: Any) -> None:
    walked: dict[str, list[str]] = {}
    for name, listing in (("themes", client.list_themes), ("folders", client.list_folders)):
        seen = walked.setdefault(name, [])
        page = listing(limit=2)
        while True:
            seen += [item["id"] for item in page["data"]]
            if not page.get("hasMore"):
                break
            page = listing(limit=2, after=page["nextCursor"])
        assert len(seen) == len(set(seen)) > 2
    assert set(FOLDERS) <= set(walked["folders"])


def test_refusals_reach_the_client_as_its_error(client: Any) -> None:
    with pytest.raises(gamma.GammaAPIError) as refused:
        gamma.GammaClient(api_key="not-a-key", base_url=client.base_url, timeout=10).list_themes()
    assert refused.value.status_code == 401
