"""Email-outreach service, API v2 (volume 3, part A): accounts, scopes, campaigns, warm-up."""

from conformance.services.base import ServicePackage
from conformance.services.outreach.faults import FAULTS
from conformance.services.outreach.simulator import OutreachSimulator
from conformance.services.outreach.variants import VARIANTS

SERVICE = ServicePackage("outreach", simulator=OutreachSimulator, faults=tuple(FAULTS), variants=tuple(VARIANTS))
