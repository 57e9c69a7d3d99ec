"""Social-media management service (volume 2, part A): analytics, messages, listening, publishing, media."""

from conformance.services.base import ServicePackage
from conformance.services.social import listening_checks  # noqa: F401  (register the checks)
from conformance.services.social.faults import FAULTS
from conformance.services.social.simulator import SocialSimulator
from conformance.services.social.variants import VARIANTS

SERVICE = ServicePackage("social", simulator=SocialSimulator, faults=tuple(FAULTS), variants=tuple(VARIANTS))
