"""Marketplace service (volume 3, part B): API v3, x-api-key plus OAuth 2.0 PKCE user tokens."""

from conformance.auth.oauth import refresh_grant_source
from conformance.services.base import ServicePackage
from conformance.services.marketplace.faults import FAULTS
from conformance.services.marketplace.oauth_faults import OAUTH_FAULTS
from conformance.services.marketplace.simulator import MarketplaceSimulator
from conformance.services.marketplace.variants import VARIANTS

SERVICE = ServicePackage("marketplace", simulator=MarketplaceSimulator, faults=(*FAULTS, *OAUTH_FAULTS),
                         variants=tuple(VARIANTS), token_source=refresh_grant_source)
