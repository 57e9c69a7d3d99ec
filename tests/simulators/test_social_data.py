"""The social simulator's seeded MESSAGE_ID is read where no simulator runs (replay imports the
package): it comes without building the year of posts, and is still the first post's guid."""

from __future__ import annotations

from conformance.services.social import data
from conformance.services.social.simulator import SocialSimulator


def test_the_seeded_message_id_is_the_first_post() -> None:
    assert SocialSimulator.credentials["MESSAGE_ID"] == data.first_post_guid() == data.posts()[0]["guid"]
